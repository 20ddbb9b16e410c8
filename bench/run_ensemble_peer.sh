#!/usr/bin/env bash
# The quickstart ensemble (studies/quickstart.toml: LHS over mu, theta0, K, d0 of the bifurcated
# receptacle, 400-point insertion curves) with N samples (default 10^5), end to end:
#   - `contactuq run` at -j 1 and -j 2: samples/s, parallel efficiency, peak memory, and peak
#     memory at N/10 (memory must not grow with the curves of N samples);
#   - bench/ensemble_bench: the same runs evaluated into a sink that drops the samples, so that
#     the cost of HDF5 writing is the difference;
#   - the peer, bench/peers/ensemble_peer.py: OpenTURNS Latin hypercube driving the NumPy model,
#     h5py writing the same datasets; ratio of wall times.
# Override with N=... PEER_N=... (the peer is slow; its rate at PEER_N is scaled to N).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
PEER_N=${PEER_N:-$N}
BUILD=${BUILD:-build/release}
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

study() { sed -e "s/^samples = 1000$/samples = $1/" studies/quickstart.toml > "$2"; }
study "$N" "$work/study.toml"
study "$((N / 10))" "$work/study_small.toml"

measure() {  # prints "wall_s max_rss_kb"; the run's --timing line goes to $work/timing
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > /dev/null 2> "$work/timing"
  cat "$work/time"
}
read -r wall1 rss1 < <(measure "$BUILD/contactuq" run "$work/study.toml" -o "$work/j1.h5" -q -j 1 --timing)
timing1=$(cat "$work/timing")
read -r wall2 rss2 < <(measure "$BUILD/contactuq" run "$work/study.toml" -o "$work/j2.h5" -q -j 2)
read -r _ rss_small < <(measure "$BUILD/contactuq" run "$work/study_small.toml" -o "$work/small.h5" -q -j 2)
$py - "$work/j1.h5" "$work/j2.h5" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:])
for name in ("inputs", "outputs", "curves/Fx_total", "status"):
    if not np.array_equal(a[name][()], b[name][()], equal_nan=True):
        sys.exit(f"-j 1 and -j 2 differ in {name}")
PY
parts1=$("$BUILD/bench/ensemble_bench" "$work/study.toml" 1 "$work/b1.h5")
parts2=$("$BUILD/bench/ensemble_bench" "$work/study.toml" 2 "$work/b2.h5")
parts1_raw=$("$BUILD/bench/ensemble_bench" "$work/study.toml" 1 "$work/r1.h5" 0)
parts2_raw=$("$BUILD/bench/ensemble_bench" "$work/study.toml" 2 "$work/r2.h5" 0)
size_raw=$(stat -c %s "$work/r2.h5")
size=$(stat -c %s "$work/j2.h5")

peer=$(cd bench/peers && OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $py ensemble_peer.py "$PEER_N" 200 "$work/peer.h5")

$py - "$N" "$wall1" "$rss1" "$wall2" "$rss2" "$rss_small" "$size" "$parts1" "$parts2" "$peer" "$parts1_raw" "$parts2_raw" "$size_raw" "$timing1" <<'PY'
import re, sys
n = int(sys.argv[1])
wall1, rss1, wall2, rss2, rss_small, size = map(float, sys.argv[2:8])
kv = lambda s: dict(zip(s.split()[0::2], map(float, s.split()[1::2])))
p1, p2, peer = kv(sys.argv[8]), kv(sys.argv[9]), kv(sys.argv[10])
r1, r2, size_raw = kv(sys.argv[11]), kv(sys.argv[12]), float(sys.argv[13])
print(f"contactuq run, {n} samples x 400-point curves, file {size / 2**20:.0f} MiB:")
print(f"  -j 1: {wall1:6.2f} s  {n / wall1:8.0f} samples/s  peak memory {rss1 / 1024:.0f} MiB")
print(f"  -j 2: {wall2:6.2f} s  {n / wall2:8.0f} samples/s  peak memory {rss2 / 1024:.0f} MiB "
      f"(at N/10: {rss_small / 1024:.0f} MiB)")
print(f"  parallel efficiency at 2 threads: {wall1 / (2 * wall2) * 100:.0f} %")
for p in (p1, p2, r1, r2):
    if p is r1:
        print(f"  uncompressed (--compression 0), file {size_raw / 2**20:.0f} MiB:")
    share = (p["write_run_s"] - p["evaluate_s"]) / p["write_run_s"]
    print(f"  HDF5 writing at {int(p['threads'])} thread(s): {100 * share:5.1f} % of the run time "
          f"(run {p['write_run_s']:.2f} s vs {p['evaluate_s']:.2f} s without writing; "
          f"write stage {p['append_s']:.2f} s, evaluation waited {p['wait_s']:.2f} s for it; "
          f"finish {p['finish_s']:.3f} s)")
peer_rate = peer["samples_per_s"]
print(f"peer (OpenTURNS LHS + NumPy model + h5py), {int(peer['samples'])} samples: "
      f"{peer['seconds']:.1f} s, {peer_rate:.0f} samples/s")
print(f"ratio contactuq / peer, end to end: {n / wall1 / peer_rate:.1f}x at -j 1, "
      f"{n / wall2 / peer_rate:.1f}x at -j 2")
# Serial fraction of the -j 1 run, from that run's own --timing line: its wall time less the work
# of the parallel stage (evaluation and compression in the workers: the evaluate phase less the
# time it waited for the write stage, which runs on a thread of its own), over the wall time.
# Process start and exit, planning (Latin hypercube and Iman-Conover), opening and finishing the
# file and the summary are what is left.
phases = {k.strip(): float(v) for k, v in re.findall(r"([a-z ]+?) ([0-9.]+) s;", sys.argv[14])}
parallel = phases["evaluate"] - phases["waited for the writer"]
outside = wall1 - sum(phases[k] for k in ("plan", "open", "evaluate", "finish", "summary"))
print(f"serial part of the -j 1 run: {wall1 - parallel:.3f} s of {wall1:.2f} s: plan {phases['plan']:.3f} s, "
      f"open {phases['open']:.3f} s, waiting for the write stage {phases['waited for the writer']:.3f} s, "
      f"finish {phases['finish']:.3f} s, summary {phases['summary']:.3f} s, process start and exit {outside:.3f} s")
print(f"RATIO ensemble_vs_openturns {n / wall1 / peer_rate:.2f}")
print(f"RATIO speedup_j2 {wall1 / wall2:.3f}")
print(f"RATIO serial_fraction {max(0.0, wall1 - parallel) / wall1:.4f}")
PY
