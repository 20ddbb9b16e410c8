#!/usr/bin/env bash
# The surrogate method on Ishigami (studies/surrogate_ishigami.toml: 150 evaluations, LARS PCE of
# degree <= 10, 10-fold Q2, 10^4 test points) over RUNS independent sampling seeds, through
# `contactuq run` and `summarize --json`. Prints, per seed, the largest error of the six Sobol
# indices against their closed forms and K-fold 1 - Q2 against the test error; then
#   RATIO surrogate_kfold_over_test <geometric mean over the seeds>  (1: exact; < 1: optimistic)
#   RATIO surrogate_loo_over_test <the same for the post-selection LOO*>
#   RATIO surrogate_sobol_error_max <largest Sobol error over every seed>  (the test asks < 5e-3)
# Override with RUNS=... SAMPLES=... DEGREE=...
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=${CLI:-build/release/contactuq}
PYTHON=${PYTHON:-/usr/bin/python3}
[[ -x $CLI ]] || { echo "build first: cmake --build --preset release --target contactuq_cli" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for seed in $(seq 1 "${RUNS:-20}"); do
  sed -e "s/^seed = 2026/seed = $seed/" -e "s/^samples = 150/samples = ${SAMPLES:-150}/" \
      -e "s/^degree = 10 /degree = ${DEGREE:-10} /" studies/surrogate_ishigami.toml >"$work/s.toml"
  "$CLI" run "$work/s.toml" -o "$work/r$seed.h5" -q >/dev/null
  "$CLI" summarize --json "$work/r$seed.h5" >"$work/r$seed.json"
done
"$PYTHON" - "$work" <<'PY'
import glob, json, math, sys
a, b, pi = 7.0, 0.1, math.pi
v = a * a / 8 + b * pi**4 / 5 + b * b * pi**8 / 18 + 0.5
v1, v2, v13 = 0.5 * (1 + b * pi**4 / 5) ** 2, a * a / 8, b * b * pi**8 * (1 / 18 - 1 / 50)
first, total = [v1 / v, v2 / v, 0.0], [(v1 + v13) / v, v2 / v, v13 / v]
kfold, loo, worst = [], [], 0.0
for path in sorted(glob.glob(sys.argv[1] + "/r*.json")):
    y = json.load(open(path))["surrogate"]["outputs"]["y"]
    err = max(max(abs(y["sobol"]["first"][k] - first[i]), abs(y["sobol"]["total"][k] - total[i]))
              for i, k in enumerate(["x1", "x2", "x3"]))
    worst = max(worst, err)
    kfold.append((1 - y["q2_kfold"]) / y["test_error"])
    loo.append(y["corrected_loo_error"] / y["test_error"])
    print(f"{path.split('/')[-1]}: degree {y['degree']}, {y['terms']} terms, Sobol error {err:.2e}, "
          f"K-fold 1-Q2 {1 - y['q2_kfold']:.3g}, test {y['test_error']:.3g}, LOO* {y['corrected_loo_error']:.3g}")
geo = lambda r: math.exp(sum(map(math.log, r)) / len(r))
print(f"K-fold / test: min {min(kfold):.2f}, max {max(kfold):.2f}; LOO* / test: min {min(loo):.2f}, max {max(loo):.2f}")
print(f"RATIO surrogate_kfold_over_test {geo(kfold):.3g}")
print(f"RATIO surrogate_loo_over_test {geo(loo):.3g}")
print(f"RATIO surrogate_sobol_error_max {worst:.3g}")
PY
