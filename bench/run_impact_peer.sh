#!/usr/bin/env bash
# Impacts per second, ours (bench/impact_bench.cpp) against the SciPy solve_ivp peer
# (bench/peers/impact_peer.py) on the same impact at the same tolerance, single thread. Prints the
# restitution each side computed and the throughput ratio ours / peer (against the peer's fastest
# method), for our default integrator (dopri5) and for CVODE. Machines here are shared: read the
# ratio, not the absolute times.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${BENCH:-build/release/bench/impact_bench}
PYTHON=${PYTHON:-/usr/bin/python3}
REPEATS=${REPEATS:-100}
[[ -x $BENCH ]] || { echo "build first: cmake --preset release && cmake --build --preset release" >&2; exit 1; }
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

ours=$(mktemp)
peer=$(mktemp)
trap 'rm -f "$ours" "$peer"' EXIT
"$BENCH" --benchmark_filter='BM_impact_(hertz|thornton)(_cvode)?$' --benchmark_format=json \
  --benchmark_min_time=0.5 >"$ours"
"$PYTHON" bench/peers/impact_peer.py "$REPEATS" >"$peer"

"$PYTHON" - "$ours" "$peer" <<'PY'
import json, sys
ours = {b["name"].removeprefix("BM_impact_"): b for b in json.load(open(sys.argv[1]))["benchmarks"]}
peer = {}
for line in open(sys.argv[2]):
    law, method, e, rate = line.split()
    peer.setdefault(law, []).append((method, float(e), float(rate)))
print(f"{'law':8} {'ours':7} {'ours e':>14} {'impacts/s':>10} | {'peer':7} {'peer e':>14} {'impacts/s':>10} | ratio")
ratios = []
for law, runs in peer.items():
    best = max(runs, key=lambda r: r[2])
    for integrator, key in (("dopri5", law), ("cvode", law + "_cvode")):
        b = ours[key]
        mine = b["items_per_second"]
        for method, e, rate in runs:
            print(f"{law:8} {integrator:7} {b['restitution']:14.10f} {mine:10.0f} | {method:7} {e:14.10f} {rate:10.1f} | {mine / rate:6.0f}x")
        print(f"{law:8} {integrator:7} ratio against the fastest peer ({best[0]}): {mine / best[2]:.0f}x; "
              f"|e_ours - e_peer| = {abs(b['restitution'] - best[1]):.1e}")
        ratios.append(mine / best[2])
# The least favourable comparison: our slower integrator on the law where we gain least.
print(f"RATIO impact_vs_scipy {min(ratios):.1f}")
PY
