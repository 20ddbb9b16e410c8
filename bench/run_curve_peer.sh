#!/usr/bin/env bash
# Receptacle–pin curves per second, ours vs the NumPy peer, on the same ensemble in one run,
# single-threaded: 10^4 curves x 500 points (override with N=... POINTS=...).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
POINTS=${POINTS:-500}
BUILD=${BUILD:-build/release}
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

$py bench/make_curve_ensemble.py "$N" "$work/params.txt"
ours=$("$BUILD/bench/curve_ensemble_bench" "$work/params.txt" "$POINTS")
peer=$(cd bench/peers && OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $py curve_ensemble_peer.py "$work/params.txt" "$POINTS")
echo "contactuq: $ours"
echo "numpy:     $peer"
$py - "$ours" "$peer" <<'PY'
import sys
f = lambda s: dict(zip(s.split()[0::2], map(float, s.split()[1::2])))
a, b = f(sys.argv[1]), f(sys.argv[2])
for key in ("sum_abs_Fx", "sum_peak"):
    rel = abs(a[key] - b[key]) / max(abs(b[key]), 1e-300)
    if rel > 1e-9:
        sys.exit(f"results differ: {key} {a[key]} vs {b[key]} (relative {rel:.2e})")
print(f"results agree (sum_abs_Fx, sum_peak to 1e-9); throughput ratio contactuq / numpy = "
      f"{b['seconds'] / a['seconds']:.1f}x ({a['points'] / a['seconds']:.3g} vs {b['points'] / b['seconds']:.3g} points/s)")
print(f"RATIO curve_vs_numpy {b['seconds'] / a['seconds']:.2f}")
PY
