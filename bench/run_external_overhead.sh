#!/usr/bin/env bash
# What an evaluation of an external model (docs/external-models.md) costs with a program that
# does nothing but write results.json: a work directory, params.json, a process start, the wait,
# results.json read back, the directory removed. Per evaluation, from the difference of two runs
# (N_SMALL and N_LARGE samples) so that the tool's start and the file's writing cancel, at -j 1
# and -j 2. For comparison, the same program started by a plain shell loop (its start alone).
# Override with N_SMALL=... N_LARGE=...
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/release}
small=${N_SMALL:-40}
large=${N_LARGE:-440}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
study() {
  cat > "$work/study_$1.toml" <<TOML
[model]
type = "external"
command = ["/bin/sh", "-c", "printf '{\"outputs\": {\"y\": 1}}' > results.json"]
workdirs = "$work"
[model.inputs]
x = 0.5
[model.outputs]
y = "1"
[parameters.x]
role = "aleatoric"
distribution = "uniform"
low = 0
high = 1
[sampling]
samples = $1
seed = 1
TOML
}
study "$small"
study "$large"
seconds() {  # wall seconds of a command, best of two
  /usr/bin/python3 - "$@" <<'PY'
import subprocess, sys, time
best = float("inf")
for _ in range(2):
    t = time.perf_counter()
    subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
    best = min(best, time.perf_counter() - t)
print(best)
PY
}
per_eval() {  # ms per evaluation at -j $1
  local a b
  a=$(seconds "$BUILD/contactuq" run "$work/study_$small.toml" -o "$work/a.h5" -j "$1" -q --force)
  b=$(seconds "$BUILD/contactuq" run "$work/study_$large.toml" -o "$work/b.h5" -j "$1" -q --force)
  /usr/bin/python3 -c "print(f'{1000 * ($b - $a) / ($large - $small):.3f}')"
}
j1=$(per_eval 1)
j2=$(per_eval 2)
mkdir -p "$work/loop"
loop=$(seconds bash -c "cd '$work/loop' && for i in \$(seq $large); do /bin/sh -c \"printf '{}' > results.json\"; done")
echo "external model, a program that does nothing: $j1 ms per evaluation at -j 1, $j2 ms at -j 2"
/usr/bin/python3 -c "print(f'the same program started by a shell loop: {1000 * $loop / $large:.3f} ms per start')"
echo "RATIO external_overhead_ms $j1"
echo "RATIO external_overhead_ms_j2 $j2"
