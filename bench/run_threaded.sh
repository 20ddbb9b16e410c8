#!/usr/bin/env bash
# Threaded insertion, one thread (bench/threaded_bench.cpp): the nominal M8x1.25 start against its
# 0.2 s target, a misaligned start against the nominal one, and the misaligned start at the
# thesis's 400 probe points per turn (the reference: Nicolson's own sampling density) against
# the default 32. CPU time of one run each; the nominal one averaged over several.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/release}
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$BUILD/bench/threaded_bench" --benchmark_format=json --benchmark_out="$json" --benchmark_out_format=json \
  --benchmark_format=console
python3 - "$json" <<'PY'
import json, sys
runs = {b["name"].split("/")[0]: b for b in json.load(open(sys.argv[1]))["benchmarks"]}
seconds = {k: b["cpu_time"] * {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0}[b["time_unit"]] for k, b in runs.items()}
for k in ("nominal", "misaligned", "misaligned_thesis_sampling"):
    b = runs[k]
    print(f"{k}: {seconds[k]:.3f} s CPU, {b['steps']:.0f} steps, outcome {b['outcome']:.0f}")
print(f"RATIO threaded_nominal_over_target {seconds['nominal'] / 0.2:.3f}")
print(f"RATIO threaded_misaligned_over_nominal {seconds['misaligned'] / seconds['nominal']:.2f}")
print(f"RATIO threaded_thesis_sampling_over_default {seconds['misaligned_thesis_sampling'] / seconds['misaligned']:.2f}")
PY
