#!/usr/bin/env bash
# Gaussian-process surrogates (include/contactuq/uq/gaussian_process.hpp) beside OpenTURNS 1.20.
#   1. The reference numbers of the "[gp]" test that compares with OpenTURNS: KrigingAlgorithm
#      with fixed hyperparameters (no optimisation) on a 15-point 2-D design; predictions,
#      conditional variances and trend coefficients (the test asserts ours to 1e-9 / 1e-8).
#   2. OpenTURNS' own maximum-likelihood kriging of Branin from 40-point Latin hypercubes
#      (Matern 5/2, constant trend), Q^2 on 1000 test points, for comparison with ours
#      (the "[gp]" Branin test prints its Q^2 with -s).
#   3. The "[gp]" tests, timed.
# Needs python3-openturns for 1 and 2 (skipped without it) and build/release/tests/test_uq.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-/usr/bin/python3}
TEST=${TEST:-build/release/tests/test_uq}
if "$PYTHON" -c "import openturns" 2>/dev/null; then
  "$PYTHON" - <<'PY'
import math
import openturns as ot
ot.Log.Show(ot.Log.NONE)
n = 15
pts = [[3.0 * ((i * 0.6180339887498949) % 1.0), 2.0 * ((i * 0.41421356237309515) % 1.0) - 1.0]
       for i in range(1, n + 1)]
def f(x): return math.sin(x[0]) * math.cos(0.5 * x[1]) + 0.3 * x[0] + 0.1 * x[1] ** 2
X = ot.Sample(pts); Y = ot.Sample([[f(p)] for p in pts])
T = ot.Sample([[0.37, -0.55], [1.5, 0.0], [2.2, 0.8], [2.9, -0.95], [0.05, 0.9]])
for kern in ["matern52", "squared_exponential"]:
    for trend in ["constant", "linear"]:
        cov = (ot.MaternModel([0.7, 0.9], [math.sqrt(2.0)], 2.5) if kern == "matern52"
               else ot.SquaredExponential([0.7, 0.9], [math.sqrt(2.0)]))
        basis = (ot.ConstantBasisFactory(2) if trend == "constant" else ot.LinearBasisFactory(2)).build()
        algo = ot.KrigingAlgorithm(X, Y, cov, basis)
        algo.setOptimizeParameters(False)
        algo.run()
        r = algo.getResult()
        m = r.getMetaModel()(T)
        print(kern, trend, "mean", [m[i, 0] for i in range(T.getSize())])
        print(kern, trend, "variance", [r.getConditionalMarginalVariance(T[i]) for i in range(T.getSize())])
        print(kern, trend, "beta", list(r.getTrendCoefficients()[0]))

def branin(x):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x[1] - b * x[0] ** 2 + c * x[0] - 6) ** 2 + 10 * (1 - t) * math.cos(x[0]) + 10
box = ot.ComposedDistribution([ot.Uniform(-5, 10), ot.Uniform(0, 15)])
test = ot.LowDiscrepancyExperiment(ot.SobolSequence(2), box, 1000).generate()
truth = [branin(p) for p in test]
mean = sum(truth) / len(truth)
q2s = []
for seed in range(5):
    ot.RandomGenerator.SetSeed(seed)
    x = ot.LHSExperiment(box, 40).generate()
    y = ot.Sample([[branin(p)] for p in x])
    algo = ot.KrigingAlgorithm(x, y, ot.MaternModel([1.0, 1.0], 2.5), ot.ConstantBasisFactory(2).build())
    algo.run()
    pred = algo.getResult().getMetaModel()(test)
    q2s.append(1 - sum((truth[i] - pred[i, 0]) ** 2 for i in range(len(truth)))
               / sum((v - mean) ** 2 for v in truth))
print("openturns branin N=40 Q2 per seed", " ".join(f"{q:.6f}" for q in q2s))
PY
else
  echo "python3-openturns missing: OpenTURNS comparison skipped"
fi
[[ -x $TEST ]] || { echo "build first: cmake --build --preset release --target test_uq" >&2; exit 1; }
start=$(date +%s.%N)
"$TEST" "[gp]" -s 2>&1 | grep -E "Q2 =|largest relative|noise variance" | sort -u || true
"$TEST" "[gp]"
echo "TIME gp_tests_s $(echo "$(date +%s.%N) - $start" | bc)"
