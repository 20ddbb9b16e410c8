#!/usr/bin/env bash
# Polynomial chaos on Ishigami, ours (bench/pce_bench.cpp: hybrid LARS, degree by corrected LOO)
# and OpenTURNS' FunctionalChaosAlgorithm (bench/peers/pce_openturns.py: LARS + corrected LOO at
# a fixed degree) on Latin hypercubes of the same sizes. Each prints, per N, its reported
# (post-selection) LOO error against 1 - Q^2 on a 10^4-point test set; then
#   RATIO pce_loo_over_test <ours, geometric mean at the first N>
#   RATIO openturns_loo_over_test <theirs, the same>
# A ratio well below 1 is an optimistic error estimate. Override with RUNS=... DEGREE=... SIZES="50 500".
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${BENCH:-build/release/bench/pce_bench}
PYTHON=${PYTHON:-/usr/bin/python3}
[[ -x $BENCH ]] || { echo "build first: cmake --build --preset release --target pce_bench" >&2; exit 1; }
read -r -a sizes <<<"${SIZES:-50 500}"
args=("${RUNS:-10}" "${DEGREE:-10}" "${sizes[@]}")
"$BENCH" "${args[@]}"
peer=$("$PYTHON" bench/peers/pce_openturns.py "${args[@]}")
echo "$peer"
echo "$peer" | awk -v first="${sizes[0]}" '$2 == "N=" first { for (i = 1; i <= NF; ++i) if ($i ~ /^geomean_loo_over_test=/) { split($i, kv, "="); print "RATIO openturns_loo_over_test " kv[2] } }'
