#!/usr/bin/env bash
# Parallel speed-up at 2 threads of the nested studies whose cases vary in cost: the switch
# (studies/switch_epistemic.toml, six contact laws, N aleatoric samples of a Saltelli design) and
# the pin-slot (studies/pinslot_uq.toml, joints x laws). Each study runs at -j 1 and -j 2, best of
# REPEATS; the ratio of the wall times is printed as RATIO speedup_j2_<study>. With mpirun and a
# contactuq built with MPI, the same studies also run as 2 MPI ranks of 1 thread each:
# RATIO mpi2_over_j2_<study> is the wall time of 2 ranks over that of 2 threads (1: MPI costs
# nothing over threads; the ranks duplicate the study's set-up, the threads share it).
# Override with SWITCH_N=... PINSLOT_N=... REPEATS=...
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/release}
REPEATS=${REPEATS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed "s/^samples = 1000$/samples = ${SWITCH_N:-200}/" studies/switch_epistemic.toml > "$work/switch.toml"
sed "s/^samples = 100$/samples = ${PINSLOT_N:-40}/" studies/pinslot_uq.toml > "$work/pinslot.toml"

mpi=()
if command -v mpirun > /dev/null && ldd "$BUILD/contactuq" | grep -q libmpi; then
  mpi=(mpirun -n 2 --oversubscribe)
  [[ $(id -u) -eq 0 ]] && mpi+=(--allow-run-as-root)
fi

best_wall() {  # study threads [launcher...] -> the best wall time of REPEATS runs [s]
  local best="" study=$1 threads=$2
  shift 2
  for ((r = 0; r < REPEATS; ++r)); do
    /usr/bin/time -f "%e" -o "$work/time" "$@" "$BUILD/contactuq" run "$study" -o "$work/out.h5" -j "$threads" -q --force > /dev/null
    local t
    t=$(cat "$work/time")
    if [[ -z $best ]] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
  done
  echo "$best"
}

for study in switch pinslot; do
  one=$(best_wall "$work/$study.toml" 1)
  two=$(best_wall "$work/$study.toml" 2)
  echo "$study: -j 1 $one s, -j 2 $two s (best of $REPEATS)"
  awk -v a="$one" -v b="$two" -v s="$study" 'BEGIN { printf "RATIO speedup_j2_%s %.3f\n", s, a / b }'
  if [[ ${#mpi[@]} -gt 0 ]]; then
    ranks=$(best_wall "$work/$study.toml" 1 "${mpi[@]}")
    echo "$study: 2 MPI ranks x 1 thread $ranks s (best of $REPEATS)"
    awk -v a="$ranks" -v b="$two" -v s="$study" 'BEGIN { printf "RATIO mpi2_over_j2_%s %.3f\n", s, a / b }'
  fi
done
