"""FORM and SORM against OpenTURNS 1.20 (Debian's python3-openturns), an independent
implementation, on a case with no closed form: a lognormal, a Weibull and a uniform input joined
by a Gaussian copula with two correlations, and the limit state g = x1 - x2 x3 - 0.5. Both tools
use the Nataf transform, so the design point in standard space, beta and the three SORM formulas
must agree to the searches' tolerance."""
import os
import subprocess

import h5py
import pytest

ot = pytest.importorskip("openturns")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("CONTACTUQ_CLI", os.path.join(ROOT, "build", "release", "contactuq"))

STUDY = """method = "reliability"
[model]
type = "expression"
[model.inputs]
x1 = 10
x2 = 3
x3 = 1.5
[model.outputs]
g = "x1 - x2*x3 - 0.5"
[parameters.x1]
role = "aleatoric"
distribution = "lognormal"
median = 10
sigma_log = 0.2
[parameters.x2]
role = "aleatoric"
distribution = "weibull"
shape = 2
scale = 3
[parameters.x3]
role = "aleatoric"
distribution = "uniform"
low = 1
high = 2
[output.limits]
g = { low = 0 }
[reliability]
algorithm = "sorm"
tolerance = 1e-9
[[reliability.correlation]]
between = ["x1", "x2"]
rho = 0.3
kind = "normal"
[[reliability.correlation]]
between = ["x2", "x3"]
rho = -0.2
kind = "normal"
"""


def openturns_sorm():
    import math

    marginals = [ot.LogNormal(math.log(10.0), 0.2, 0.0), ot.WeibullMin(3.0, 2.0, 0.0), ot.Uniform(1.0, 2.0)]
    r = ot.CorrelationMatrix(3)
    r[0, 1] = 0.3
    r[1, 2] = -0.2
    distribution = ot.ComposedDistribution(marginals, ot.NormalCopula(r))
    g = ot.SymbolicFunction(["x1", "x2", "x3"], ["x1 - x2*x3 - 0.5"])
    event = ot.ThresholdEvent(ot.CompositeRandomVector(g, ot.RandomVector(distribution)), ot.Less(), 0.0)
    solver = ot.AbdoRackwitz()
    solver.setMaximumIterationNumber(1000)
    for set_error in (solver.setMaximumAbsoluteError, solver.setMaximumRelativeError,
                      solver.setMaximumResidualError, solver.setMaximumConstraintError):
        set_error(1e-10)
    algorithm = ot.SORM(solver, event, distribution.getMean())
    algorithm.run()
    return algorithm.getResult()


def test_form_and_sorm_agree_with_openturns(tmp_path):
    study = tmp_path / "case.toml"
    study.write_text(STUDY)
    out = tmp_path / "case.h5"
    subprocess.run([CLI, "run", str(study), "-o", str(out), "-q"], check=True, capture_output=True)
    theirs = openturns_sorm()
    with h5py.File(out, "r") as f:
        form, sorm = f["reliability/form"], f["reliability/sorm"]
        assert form.attrs["converged"] == 1
        assert form.attrs["beta"] == pytest.approx(theirs.getHasoferReliabilityIndex(), rel=1e-6)
        u_star = list(theirs.getStandardSpaceDesignPoint())
        x_star = list(theirs.getPhysicalSpaceDesignPoint())
        assert list(form["u_star"][:]) == pytest.approx(u_star, abs=1e-4)
        assert list(form["x_star"][:]) == pytest.approx(x_star, rel=1e-5)
        assert sorm.attrs["breitung"] == pytest.approx(theirs.getEventProbabilityBreitung(), rel=1e-4)
        assert sorm.attrs["hohenbichler"] == pytest.approx(theirs.getEventProbabilityHohenbichler(), rel=1e-4)
        assert sorm.attrs["tvedt"] == pytest.approx(theirs.getEventProbabilityTvedt(), rel=1e-4)
