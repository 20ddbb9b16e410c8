"""Writes the benchmark ensemble: Table 1 (Williams) with K, mu, theta0, phi and d0 varied.

Usage: make_curve_ensemble.py N OUT.txt   (SI values, one curve per line, seed 2015)
"""
import sys

import numpy as np

inch, deg, lbf = 0.0254, np.pi / 180, 4.4482216152605
n, out = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(2015)
u = lambda lo, hi: rng.uniform(lo, hi, n)
cols = [
    np.full(n, 0.060 * inch), np.full(n, 0.015 * inch), u(12, 18) * deg, np.full(n, 0.003 * inch),
    np.full(n, 0.026 * inch), np.full(n, 0.025 * inch), np.full(n, 0.300 * inch), np.full(n, -0.007 * inch),
    u(0.003, 0.005) * lbf * inch / deg, u(0.0, 0.3), u(-0.5, 0.5) * deg,
    u(0.41, 0.45) * inch, u(0.20, 0.24) * inch,
]
np.savetxt(out, np.column_stack(cols), fmt="%.17g")
