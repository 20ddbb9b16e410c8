"""Peer of bench/run_ensemble_peer.sh: studies/quickstart.toml run with OpenTURNS and NumPy.

usage: ensemble_peer.py N POINTS_PER_DIRECTION OUT.h5

The same study as `contactuq run studies/quickstart.toml` end to end, the way a Python user
would write it: OpenTURNS builds the input distribution (the four marginals with a normal copula
for the Spearman correlation of K and theta0) and the Latin hypercube (in the standard normal
space, mapped by the Nataf transformation), an ot.PythonFunction wraps
the NumPy model (bench/peers/receptacle_pin.py, vectorised over the points of a stroke) and
returns the five scalar outputs, and h5py writes inputs, outputs and curves with the same
chunking and compression as contactuq. Prints seconds and samples per second.
"""
import sys
import time

import h5py
import numpy as np
import openturns as ot

import receptacle_pin

INCH, DEG = 0.0254, np.pi / 180
LBF = 4.4482216152605
# Williams Table 1 (studies/quickstart.toml [model]) in SI.
NOMINAL = dict(Rr=0.060 * INCH, Rp=0.015 * INCH, phi=15 * DEG, Rt=0.003 * INCH, h=0.026 * INCH,
               R=0.025 * INCH, b=-0.007 * INCH, L=0.300 * INCH, K=0.004 * LBF * INCH / DEG,
               mu=0.020, theta0=0.0)
D0_ENGAGE, D0_DISENGAGE = 0.429 * INCH, 0.222 * INCH


def distribution():
    mu = ot.Uniform(0.02, 0.21)
    theta0 = ot.Normal(0.0, 0.5 * DEG)
    K = ot.Normal(0.004 * LBF * INCH / DEG, 0.0002 * LBF * INCH / DEG)
    d0 = ot.Triangular(0.424 * INCH, 0.429 * INCH, 0.434 * INCH)
    spearman = ot.CorrelationMatrix(4)
    spearman[0, 2] = 0.3  # K, theta0
    copula = ot.NormalCopula(ot.NormalCopula.GetCorrelationFromSpearmanCorrelation(spearman))
    return ot.ComposedDistribution([K, mu, theta0, d0], copula)


def main():
    n, half, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    start = time.perf_counter()
    stroke = np.linspace(0.0, 0.21 * INCH, half)
    x = np.concatenate([stroke, stroke[::-1]])
    v = np.concatenate([np.full(half, 10.0), np.full(half, -10.0)])
    curves = np.empty((n, x.size))
    row = [0]

    def model(sample):
        K, mu, theta0, d0 = sample
        p = dict(NOMINAL, K=K, mu=mu, theta0=theta0)
        engage = receptacle_pin.arm_curve(x, v, p, d0, engage=True)
        disengage = receptacle_pin.arm_curve(x, v, p, D0_DISENGAGE, engage=False)
        fx = 2 * engage["Fx"] + 2 * disengage["Fx"]
        curves[row[0]] = fx
        row[0] += 1
        touching = np.flatnonzero(engage["theta"][:half] != 0.0)
        return [np.max(-fx[:half]), np.max(fx[half:]),
                max(np.max(np.abs(engage["theta"])), np.max(np.abs(disengage["theta"]))),
                -np.sum(0.5 * (fx[1:] + fx[:-1]) * np.diff(x)),
                x[touching[0]] if touching.size else np.nan]

    ot.RandomGenerator.SetSeed(2026)
    # OpenTURNS draws Latin hypercubes of independent inputs only: stratify the standard normal
    # space and map it to the correlated inputs by the inverse Nataf transformation.
    standard = ot.LHSExperiment(ot.Normal(4), n).generate()
    inputs = distribution().getInverseIsoProbabilisticTransformation()(standard)
    outputs = ot.PythonFunction(4, 5, model)(inputs)

    chunk = max(1, min(4096, 256 * 1024 // (8 * x.size)))
    with h5py.File(out, "w") as f:
        opts = dict(compression="gzip", compression_opts=1, shuffle=True)
        f.create_dataset("inputs", data=np.asarray(inputs), chunks=(chunk, 4), **opts)
        f.create_dataset("outputs", data=np.asarray(outputs), chunks=(chunk, 5), **opts)
        f.create_dataset("curves/Fx_total", data=curves, chunks=(chunk, x.size), **opts)
    seconds = time.perf_counter() - start
    print(f"samples {n} seconds {seconds:.3f} samples_per_s {n / seconds:.1f}")


if __name__ == "__main__":
    main()
