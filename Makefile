# The two commands of the README: `make run` and `make test`. Both install what they need first.
JOBS ?= $(shell nproc)
STUDY ?= studies/williams_bifurcated.toml
BIN := build/release/contactuq

.PHONY: deps build build-asan run test test-release test-asan bench clean

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake --preset release >/dev/null
	@cmake --build --preset release -j $(JOBS)

build-asan: deps
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)

run: build
	@mkdir -p out
	$(BIN) curve $(STUDY) -o out/$(notdir $(STUDY:.toml=.csv))

test-release: build
	ctest --preset release -j $(JOBS)

test-asan: build-asan
	ctest --preset asan -j $(JOBS)

test: test-release test-asan

bench: build
	bash bench/run_curve_peer.sh
	bash bench/run_impact_peer.sh

clean:
	rm -rf build out
