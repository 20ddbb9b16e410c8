#!/bin/bash
# Submits a sharded contactuq study to Slurm: an array of K shard tasks and a merge job that
# runs when all of them succeeded. With --resubmit, submits only the shards that have not
# finished (no part_k.done), and a new merge job after them.
#   scripts/slurm/submit.sh STUDY K OUT [RESULT]
#   scripts/slurm/submit.sh --resubmit STUDY K OUT [RESULT]
# SBATCH (default sbatch) and extra sbatch options in SBATCH_OPTIONS (e.g. "--partition=short").
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
resubmit=0
if [[ ${1:-} == --resubmit ]]; then resubmit=1; shift; fi
if (($# < 3)); then
  echo "usage: $0 [--resubmit] STUDY K OUT [RESULT]" >&2
  exit 2
fi
study=$(realpath "$1") shards=$2 out=$(realpath -m "$3") result=${4:-$out/study.h5}
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "$0: K = '$shards' must be a positive integer" >&2; exit 2; }
SBATCH=${SBATCH:-sbatch}
read -r -a options <<<"${SBATCH_OPTIONS:-}"
# A bad study is refused here, with its file, line and key, not by every array task.
"${CONTACTUQ:-contactuq}" check "$study" >/dev/null || exit 2

todo=()
for ((k = 1; k <= shards; ++k)); do
  if ((resubmit == 0)) || [[ ! -f "$out/part_$k.done" ]]; then todo+=("$k"); fi
done
mkdir -p "$out"
export STUDY="$study" SHARDS="$shards" OUT="$out" RESULT="$result"
dependency=()
if ((${#todo[@]} > 0)); then
  array=$(IFS=,; echo "${todo[*]}")
  job=$("$SBATCH" --parsable "${options[@]}" --array="$array" --export=ALL "$here/shard.sbatch")
  job=${job%%;*}
  echo "shards $array: job $job"
  dependency=(--dependency="afterok:$job")
else
  echo "every shard has finished"
fi
merge=$("$SBATCH" --parsable "${options[@]}" "${dependency[@]}" --export=ALL "$here/merge.sbatch")
echo "merge: job ${merge%%;*} -> $result"
