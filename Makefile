# The two commands of the README: `make run` and `make test`. Both install what they need first.
JOBS ?= $(shell nproc)
STUDY ?= studies/quickstart.toml
CURVE_STUDY ?= studies/williams_bifurcated.toml
BIN := build/release/contactuq
OUT := out/$(notdir $(STUDY:.toml=))

.PHONY: deps build build-cli build-asan run curve test test-release test-asan bench clean

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

# Only the command-line tool: what `make run` and `make curve` need.
build-cli: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS) --target contactuq_cli

build-asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)

# The default study: sample it, print the statistics, draw the figures.
run: build-cli
	@mkdir -p out
	$(BIN) run $(STUDY) -o $(OUT).h5 --force
	$(BIN) summarize $(OUT).h5
	$(BIN) plot $(OUT).h5 -o $(OUT)_plots

# One deterministic insertion curve with its critical points.
curve: build-cli
	@mkdir -p out
	$(BIN) curve $(CURVE_STUDY) -o out/$(notdir $(CURVE_STUDY:.toml=.csv)) --force

test-release: build
	ctest --preset release -j $(JOBS)

test-asan: build-asan
	ctest --preset asan -j $(JOBS)

test: test-release test-asan

bench: build
	bash bench/run_curve_peer.sh
	bash bench/run_impact_peer.sh
	bash bench/run_ensemble_peer.sh
	bash bench/run_qmc.sh
	bash bench/run_scaling.sh
	bash bench/run_threaded.sh
	bash bench/run_reliability_coverage.sh
	bash bench/run_mechanism_reliability.sh
	bash bench/run_python_model.sh
	bash bench/run_external_overhead.sh
	bash bench/run_umbridge.sh
	bash bench/run_pce.sh
	bash bench/run_surrogate.sh

clean:
	rm -rf build out
