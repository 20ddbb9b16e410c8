#!/usr/bin/env python3
"""OpenTURNS 1.20 peer of bench/reliability_coverage_bench.cpp: SubsetSampling (its defaults:
p0 = 0.1, proposal range 2) on g = beta sqrt(n) - sum u_i in n standard normals, Pf = Phi(-beta),
over independent runs. Prints one line like ours: runs, calls per run, mean, truth, observed CoV,
mean reported CoV and the coverage of the lognormal 95 % interval from its reported CoV (the
interval the anchors document measured: 88 % at 2,000 samples per level).

    subset_openturns.py [runs=200] [samples_per_level=2000] [beta=5] [n=10]
"""
import math
import sys

import openturns as ot

ot.Log.Show(ot.Log.NONE)
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
per_level = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
beta = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
n = int(sys.argv[4]) if len(sys.argv) > 4 else 10
truth = 0.5 * math.erfc(beta / math.sqrt(2.0))
names = [f"u{i}" for i in range(n)]
f = ot.SymbolicFunction(names, [f"{beta!r} * sqrt({n}) - ({' + '.join(names)})"])
event = ot.ThresholdEvent(ot.CompositeRandomVector(f, ot.RandomVector(ot.Normal(n))), ot.Less(), 0.0)

estimates, reported, covered, calls = [], [], 0, 0
for s in range(runs):
    ot.RandomGenerator.SetSeed(s + 1)
    before = f.getEvaluationCallsNumber()
    algo = ot.SubsetSampling(event)
    algo.setMaximumOuterSampling(per_level)
    algo.setBlockSize(1)
    algo.run()
    calls += f.getEvaluationCallsNumber() - before
    r = algo.getResult()
    p, cov = r.getProbabilityEstimate(), r.getCoefficientOfVariation()
    estimates.append(p)
    reported.append(cov)
    s_ln = math.sqrt(math.log1p(cov * cov))
    covered += p * math.exp(-1.96 * s_ln) <= truth <= p * math.exp(1.96 * s_ln)
m = len(estimates)
mean = sum(estimates) / m
sd = math.sqrt(sum((e - mean) ** 2 for e in estimates) / (m - 1))
print(f"openturns runs={runs} lost=0 calls_per_run={calls / runs:.0f} mean={mean:.4e} truth={truth:.4e} "
      f"observed_cov={sd / mean:.3f} mean_reported_cov={sum(reported) / m:.3f} coverage={covered / m:.3f}")
