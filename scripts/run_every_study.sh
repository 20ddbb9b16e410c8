#!/usr/bin/env bash
# Runs every study in studies/ with `contactuq run`, then `summarize` and `plot` on its result,
# and prints one line per study: exit codes, run time and the number of figures. The slow
# studies (robust designs, nested switch studies, threaded insertion) take minutes on 2 cores, the
# threaded success study (2000 starts) about half an hour, the threaded robust design about an hour.
#
#   scripts/run_every_study.sh [OUTDIR]      # default out/every_study; uses build/release/contactuq
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="${CONTACTUQ_CLI:-$root/build/release/contactuq}"
out="${1:-$root/out/every_study}"
mkdir -p "$out"
failed=0
server=""
trap '[[ -n $server ]] && kill $server 2>/dev/null' EXIT
for study in "$root"/studies/*.toml; do
  name=$(basename "$study" .toml)
  # The UM-Bridge example evaluates a served model: serve it, as its header says, for its run.
  if grep -q '^type = "umbridge"' "$study" && [[ -z $server ]]; then
    "$cli" serve "$root/studies/expression_r_minus_s.toml" --port 4242 > "$out/serve.log" 2>&1 &
    server=$!
    sleep 1
  fi
  start=$(date +%s.%N)
  "$cli" run "$study" -o "$out/$name.h5" --force > "$out/$name.run.log" 2>&1
  run=$?
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  "$cli" summarize "$out/$name.h5" > "$out/$name.summary.txt" 2>&1
  summary=$?
  rm -rf "$out/${name}_plots"
  "$cli" plot "$out/$name.h5" -o "$out/${name}_plots" > "$out/$name.plot.log" 2>&1
  plot=$?
  figures=$(find "$out/${name}_plots" -name '*.png' 2>/dev/null | wc -l)
  printf "%-32s run %s (%6.1f s)  summarize %s  plot %s  figures %s\n" "$name" "$run" "$seconds" "$summary" "$plot" \
    "$figures"
  [[ $run -eq 0 && $summary -eq 0 && $plot -eq 0 && $figures -gt 0 ]] || failed=1
done
exit $failed
