#!/bin/bash
# Stands in for Slurm's sbatch in tests: runs the job at once on this machine, each array task
# with SLURM_ARRAY_TASK_ID set, records the submission in $FAKE_SBATCH_LOG and prints a job id.
# A job whose --dependency=afterok:<id> names a job that failed is not run.
set -u
array="" dependency="" script=""
for a in "$@"; do
  case $a in
    --array=*) array=${a#--array=} ;;
    --dependency=afterok:*) dependency=${a#--dependency=afterok:} ;;
    --*) ;;
    *) script=$a ;;
  esac
done
id=$(( $(wc -l <"$FAKE_SBATCH_LOG" 2>/dev/null || echo 0) + 100 ))
echo "$id array=$array dependency=$dependency $(basename "$script")" >>"$FAKE_SBATCH_LOG"
status=0
if [[ -n $dependency && -f "$FAKE_SBATCH_LOG.failed.$dependency" ]]; then
  status=1
elif [[ -n $array ]]; then
  IFS=, read -r -a tasks <<<"$array"
  for k in "${tasks[@]}"; do
    SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_JOB_ID=$id bash "$script" >>"$FAKE_SBATCH_LOG.out" 2>&1 || status=1
  done
else
  SLURM_JOB_ID=$id bash "$script" >>"$FAKE_SBATCH_LOG.out" 2>&1 || status=1
fi
((status == 0)) || touch "$FAKE_SBATCH_LOG.failed.$id"
echo "$id"
