#!/usr/bin/env bash
# Subset simulation over many independent runs on the linear limit state (beta = 5, n = 10,
# 2,000 samples per level by default), ours (bench/reliability_coverage_bench.cpp) and
# OpenTURNS' SubsetSampling (bench/peers/subset_openturns.py) on the same case. Prints each
# side's observed CoV, mean reported CoV and interval coverage, then
#   RATIO subset_coverage <our coverage>
#   RATIO subset_calls_vs_openturns <x>
# where x = (our calls x our observed CoV^2) / (its calls x its observed CoV^2): the calls we
# need for OpenTURNS' real CoV, as a fraction of its calls (variance falls as 1/calls).
# Override with RUNS=... N=... BETA=... DIM=...
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${BENCH:-build/release/bench/reliability_coverage_bench}
PYTHON=${PYTHON:-/usr/bin/python3}
[[ -x $BENCH ]] || { echo "build first: cmake --build --preset release --target reliability_coverage_bench" >&2; exit 1; }
args=("${RUNS:-200}" "${N:-2000}" "${BETA:-5}" "${DIM:-10}")
ours=$("$BENCH" "${args[@]}")
echo "$ours"
peer=$("$PYTHON" bench/peers/subset_openturns.py "${args[@]}")
echo "$peer"
"$PYTHON" - "$ours" "$peer" <<'PY'
import sys
def fields(text):
    line = next(l for l in text.splitlines() if "calls_per_run=" in l)
    return {k: float(v) for k, v in (w.split("=") for w in line.split()[1:])}
ours, peer = fields(sys.argv[1]), fields(sys.argv[2])
work = lambda r: r["calls_per_run"] * r["observed_cov"] ** 2
print(f"RATIO subset_calls_vs_openturns {work(ours) / work(peer):.3f}")
PY
