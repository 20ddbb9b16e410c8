"""Peer side of bench/run_curve_peer.sh: the ensemble evaluated with the NumPy port.

Usage: curve_ensemble_peer.py PARAMS.txt POINTS_PER_CURVE
Prints the same line as curve_ensemble_bench (time and checksums).
"""
import sys
import time

import numpy as np

import receptacle_pin

NAMES = ["Rr", "Rp", "phi", "Rt", "h", "R", "L", "b", "K", "mu", "theta0"]


def main():
    params = np.loadtxt(sys.argv[1], ndmin=2)
    points = int(sys.argv[2])
    half = points // 2
    stroke = np.linspace(0.0, 0.21 * 0.0254, half)
    x = np.concatenate([stroke, stroke[::-1]])
    v = np.concatenate([np.full(half, 10.0), np.full(half, -10.0)])
    start = time.perf_counter()
    total, peak_sum = 0.0, 0.0
    for row in params:
        p = dict(zip(NAMES, row[:11]))
        fx = 2 * receptacle_pin.arm_curve(x, v, p, row[11], engage=True)["Fx"]
        fx = fx + 2 * receptacle_pin.arm_curve(x, v, p, row[12], engage=False)["Fx"]
        total += np.abs(fx).sum()
        peak_sum += np.abs(fx).max()
    seconds = time.perf_counter() - start
    print(f"curves {len(params)} points {len(params) * points} seconds {seconds:.6f} "
          f"sum_abs_Fx {total:.17g} sum_peak {peak_sum:.17g}")


if __name__ == "__main__":
    main()
