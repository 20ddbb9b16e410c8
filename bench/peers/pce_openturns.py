#!/usr/bin/env python3
"""OpenTURNS 1.20 peer of bench/pce_bench.cpp: FunctionalChaosAlgorithm on Ishigami (a = 7,
b = 0.1, U(-pi, pi)^3) with a Legendre basis of total degree <= max_degree, LARS selection and
corrected leave-one-out (LeastSquaresMetaModelSelectionFactory), on `runs` Latin hypercubes per
training size. Prints one line per N like ours: the medians of its reported relative error
(getRelativeErrors, the LOO after selection) and of 1 - Q^2 on a 10^4-point Monte Carlo test
set, and the geometric mean of their ratio.

    pce_openturns.py [runs=10] [max_degree=10] [N ...=50 500]
"""
import math
import sys

import numpy as np
import openturns as ot

ot.Log.Show(ot.Log.NONE)
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
max_degree = int(sys.argv[2]) if len(sys.argv) > 2 else 10
sizes = [int(a) for a in sys.argv[3:]] or [50, 500]
pi = math.pi
dist = ot.ComposedDistribution([ot.Uniform(-pi, pi)] * 3)
f = ot.SymbolicFunction(["x1", "x2", "x3"], ["sin(x1) + 7 * sin(x2)^2 + 0.1 * x3^4 * sin(x1)"])
basis = ot.OrthogonalProductPolynomialFactory([ot.LegendreFactory()] * 3)
terms = basis.getEnumerateFunction().getStrataCumulatedCardinal(max_degree)
ot.RandomGenerator.SetSeed(12345)
x_test = dist.getSample(10000)
y_test = np.array(f(x_test)).ravel()
var_test = np.var(y_test, ddof=1)
for n in sizes:
    loo, test = [], []
    for s in range(runs):
        ot.RandomGenerator.SetSeed(s + 1)
        x = ot.LHSExperiment(dist, n).generate()
        y = f(x)
        selection = ot.LeastSquaresMetaModelSelectionFactory(ot.LARS(), ot.CorrectedLeaveOneOut())
        algo = ot.FunctionalChaosAlgorithm(x, y, dist, ot.FixedStrategy(basis, terms),
                                           ot.LeastSquaresStrategy(x, y, selection))
        algo.run()
        result = algo.getResult()
        loo.append(result.getRelativeErrors()[0])
        test.append(np.mean((np.array(result.getMetaModel()(x_test)).ravel() - y_test) ** 2) / var_test)
    loo, test = np.array(loo), np.array(test)
    ratio = math.exp(np.mean(np.log(loo / test)))
    print(f"openturns N={n} runs={runs} median_loo={np.median(loo):.3e} median_test={np.median(test):.3e} "
          f"geomean_loo_over_test={ratio:.3g} min_loo_over_test={np.min(loo / test):.3g}")
