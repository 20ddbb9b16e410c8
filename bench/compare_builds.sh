#!/usr/bin/env bash
# The same benchmarks from two builds, run alternately (A B A B ...) on this machine, so that load
# from other work hits both alike: the receptacle-pin curve ensemble, single impacts, pin-slot
# simulations and a sampling study end to end. Prints the best time of each side per benchmark and
#   RATIO <name>_new_over_old <new / old>   (1.00: as fast; > 1: slower)
#
#   bench/compare_builds.sh OLD_BUILD_DIR [NEW_BUILD_DIR]     # NEW defaults to build/release
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bench/compare_builds.sh OLD_BUILD_DIR [NEW_BUILD_DIR]}
new=${2:-build/release}
rounds=${ROUNDS:-3}
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
$py bench/make_curve_ensemble.py 10000 "$work/params.txt"
sed 's/samples = 1000/samples = 20000/' studies/quickstart.toml > "$work/quickstart.toml"

# Seconds of one run of benchmark $1 from build $2.
measure() {
  local name=$1 build=$2
  case $name in
    curve) "$build/bench/curve_ensemble_bench" "$work/params.txt" 500 | $py -c \
             'import sys; t = sys.stdin.read().split(); print(t[t.index("seconds") + 1])' ;;
    impact) "$build/bench/impact_bench" --benchmark_filter='BM_impact_(hertz|thornton)$' --benchmark_format=json \
              --benchmark_min_time=0.3 2>/dev/null | $py -c \
              'import json, sys; print(sum(b["cpu_time"] * 1e-9 for b in json.load(sys.stdin)["benchmarks"]))' ;;
    pinslot) "$build/bench/pinslot_bench" --benchmark_filter='BM_pinslot_(pscj_ln|rcj_ln|irj)$' \
               --benchmark_format=json --benchmark_min_time=0.3 2>/dev/null | $py -c \
               'import json, sys; print(sum(b["cpu_time"] * 1e-3 for b in json.load(sys.stdin)["benchmarks"]))' ;;
    ensemble) local t0 t1
              t0=$(date +%s.%N)
              "$build/contactuq" run "$work/quickstart.toml" -o "$work/q_$RANDOM.h5" -j 1 -q > /dev/null
              t1=$(date +%s.%N)
              echo "$t1 - $t0" | bc -l ;;
  esac
}

for name in curve impact pinslot ensemble; do
  best_old=inf best_new=inf
  for ((r = 0; r < rounds; r++)); do
    a=$(measure $name "$old"); b=$(measure $name "$new")
    best_old=$($py -c "print(min(float('$best_old'), $a))"); best_new=$($py -c "print(min(float('$best_new'), $b))")
  done
  echo "$name: old $best_old s, new $best_new s (best of $rounds, alternating)"
  $py -c "print(f'RATIO ${name}_new_over_old {$best_new / $best_old:.3f}')"
done
