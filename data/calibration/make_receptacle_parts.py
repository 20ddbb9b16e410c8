#!/usr/bin/python3
"""Makes data/calibration/receptacle_parts.csv (SYNTHETIC) for studies/bayesian_receptacle_parts.toml.

Runs the truth study (receptacle_parts_truth.toml: ten parts with K and mu drawn from their
populations), then adds the load cell's noise (normal, sd 0.1 grf) to the peak insertion and
withdrawal forces of two insertions per part. Reproducible from the seeds below.
    /usr/bin/python3 data/calibration/make_receptacle_parts.py build/release/contactuq
"""
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
cli = sys.argv[1] if len(sys.argv) > 1 else "contactuq"
grf = 9.80665e-3  # N
noise_sd = 0.1 * grf
insertions = 2

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "truth.h5")
    subprocess.run([cli, "run", os.path.join(here, "receptacle_parts_truth.toml"), "-o", out, "-q"], check=True)
    with h5py.File(out, "r") as f:
        def column(group, name):
            names = [n.decode() if isinstance(n, bytes) else n for n in f[group].attrs["names"]]
            return f[group][:, names.index(name)]
        K = column("inputs", "K")
        mu = column("inputs", "mu")
        peak_in = column("outputs", "peak_insertion")
        peak_out = column("outputs", "peak_withdrawal")

rng = np.random.default_rng(20261128)
lines = [
    "# SYNTHETIC measurements: computed by contactuq from model receptacle_pin, not measured.",
    "# Made by: /usr/bin/python3 data/calibration/make_receptacle_parts.py (runs receptacle_parts_truth.toml),",
    f"# noise normal sd 0.1 grf on each peak force, {insertions} insertions per part, numpy seed 20261128.",
    "# Truth per part (SI): " + "; ".join(f"{p + 1}: K = {K[p]:.6g} N*m/rad, mu = {mu[p]:.4f}" for p in range(len(K))),
    "part,peak_insertion [grf],peak_withdrawal [grf]",
]
for p in range(len(K)):
    for _ in range(insertions):
        a = (peak_in[p] + noise_sd * rng.standard_normal()) / grf
        b = (peak_out[p] + noise_sd * rng.standard_normal()) / grf
        lines.append(f"{p + 1},{a:.4f},{b:.4f}")
with open(os.path.join(here, "receptacle_parts.csv"), "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"wrote {os.path.join(here, 'receptacle_parts.csv')}: {len(K)} parts x {insertions} insertions")
