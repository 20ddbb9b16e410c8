#!/usr/bin/env bash
# A mechanism case against brute force: the shipped receptacle force study
# (studies/receptacle_force_reliability.toml) with its limit lowered to 13 gf, where P(failure) is
# about 1e-4. One subset simulation run (4000 samples per level: under 20,000 model runs, its
# interval from its own CoV) against plain Monte Carlo with MC_SAMPLES runs (default 4e6) of
# the same study. Prints both estimates with their 95 % intervals, then
#   RATIO mechanism_subset_vs_monte_carlo <subset / Monte Carlo>
#   RATIO mechanism_subset_calls_vs_monte_carlo <subset calls / Monte Carlo calls>
# and fails when the two 95 % intervals do not overlap.
set -euo pipefail
cd "$(dirname "$0")/.."
CLI=${CLI:-build/release/contactuq}
PYTHON=${PYTHON:-/usr/bin/python3}
MC_SAMPLES=${MC_SAMPLES:-4000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
study=studies/receptacle_force_reliability.toml
sed 's/16 grf/13 grf/' "$study" | sed 's/^samples = 1000 .*/samples = 4000/' > "$work/subset.toml"
sed 's/16 grf/13 grf/; s/algorithm = "subset"/algorithm = "monte_carlo"/' "$study" |
  sed "s/^samples = 1000 .*/samples = $MC_SAMPLES/" > "$work/mc.toml"
"$CLI" run "$work/subset.toml" -o "$work/subset.h5" | head -6
"$CLI" run "$work/mc.toml" -o "$work/mc.h5" | head -6
"$PYTHON" - "$work/subset.h5" "$work/mc.h5" <<'PY'
import sys, h5py
def read(path):
    g = h5py.File(path, "r")["reliability"]
    return {k: float(g.attrs[k]) for k in ("probability", "ci95_low", "ci95_high", "cov", "model_calls")}
s, m = read(sys.argv[1]), read(sys.argv[2])
for name, r in (("subset", s), ("monte_carlo", m)):
    print(f"{name:12s} P = {r['probability']:.4g} [{r['ci95_low']:.4g}, {r['ci95_high']:.4g}]  CoV {r['cov']:.3f}  calls {r['model_calls']:.0f}")
print(f"RATIO mechanism_subset_vs_monte_carlo {s['probability'] / m['probability']:.3f}")
print(f"RATIO mechanism_subset_calls_vs_monte_carlo {s['model_calls'] / m['model_calls']:.4f}")
overlap = s["ci95_low"] <= m["ci95_high"] and m["ci95_low"] <= s["ci95_high"]
sys.exit(0 if overlap else 1)
PY
