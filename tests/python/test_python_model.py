"""Python functions as models (contactuq.register_model): the same ensemble as the same physics
written as an expression model, units at the boundary, failures as failed cases, every method."""
import math
import os
import tomllib

import h5py
import numpy as np
import pytest

import contactuq

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUDIES = os.path.join(ROOT, "studies")

try:
    from contactuq import _core  # noqa: F401
except ImportError:
    pytest.skip("the extension contactuq._core is not built (pybind11 missing)", allow_module_level=True)


def r_minus_s(R, S):
    return {"g": R - S, "safety_factor": R / S}


def r_minus_s_vectorized(x):
    return np.column_stack([x[:, 0] - x[:, 1], x[:, 0] / x[:, 1]])


contactuq.register_model("py_r_minus_s", r_minus_s, inputs={"R": "200 N", "S": "150 N"},
                         outputs={"g": "N", "safety_factor": ""}, replace=True)
contactuq.register_model("py_r_minus_s_vec", r_minus_s_vectorized, inputs={"R": "200 N", "S": "150 N"},
                         outputs={"g": "N", "safety_factor": ""}, vectorized=True, replace=True)


def expression_study(samples=2000):
    with open(os.path.join(STUDIES, "expression_r_minus_s.toml"), "rb") as f:
        study = tomllib.load(f)
    study["sampling"]["samples"] = samples
    return study


def run(study, path, **kw):
    r = contactuq.run(study, output=str(path), force=True, **kw)
    assert r["exit_code"] == 0, r
    with h5py.File(path, "r") as f:
        return f["inputs"][()], f["outputs"][()], f["status"][()]


@pytest.mark.parametrize("name", ["py_r_minus_s", "py_r_minus_s_vec"])
def test_same_ensemble_as_the_expression_model(tmp_path, name):
    reference = run(expression_study(), tmp_path / "expr.h5", threads=2)
    study = expression_study()
    study["model"] = {"type": name}
    for threads in (1, 4):
        got = run(study, tmp_path / f"{name}{threads}.h5", threads=threads)
        for a, b in zip(reference, got):
            np.testing.assert_array_equal(a, b)  # bit for bit: the same arithmetic in both


def test_values_cross_in_declared_units():
    seen = []

    def f(gap, load):
        seen.append((gap, load))
        return 2.0 * gap  # mm -> declared output unit mm

    contactuq.register_model("py_units", f, inputs={"gap": "2.5 mm", "load": {"unit": "kN", "nominal": 3.0}},
                             outputs={"twice": "mm"}, replace=True)
    m = contactuq.Model({"type": "py_units"})
    assert [v["unit"] for v in m.inputs] == ["m", "N"]
    assert np.allclose(m.nominal, [2.5e-3, 3000.0])
    r = m.evaluate(np.array([[2.5e-3, 3000.0]]), threads=1)
    assert seen == [(pytest.approx(2.5), pytest.approx(3.0))]
    assert r.output("twice")[0] == pytest.approx(5e-3)  # back in SI


def test_failures_are_failed_cases_with_the_message():
    def f(x):
        if x > 0.5:
            raise RuntimeError(f"diverged at x = {x}")
        if x > 0.4:
            return float("nan")
        if x > 0.3:
            return {"wrong_name": 1.0}
        return x * x

    contactuq.register_model("py_faulty", f, inputs={"x": 0.1}, outputs=["y"], replace=True)
    m = contactuq.Model({"type": "py_faulty"})
    r = m.evaluate(np.array([[0.2], [0.35], [0.45], [0.6], [0.1]]), threads=2)
    assert list(r.status) == [0, 1, 1, 1, 0]
    assert r.outputs[0, 0] == pytest.approx(0.04) and r.outputs[4, 0] == pytest.approx(0.01)
    assert "no output \"y\"" in r.messages[1]
    assert "nan" in r.messages[2].lower()
    assert "RuntimeError" in r.messages[3] and "diverged at x = 0.6" in r.messages[3]


def test_vectorized_wrong_shape_fails_the_block():
    contactuq.register_model("py_bad_shape", lambda x: np.zeros((len(x), 3)), inputs={"x": 1.0}, outputs=["y"],
                             vectorized=True, replace=True)
    r = contactuq.Model({"type": "py_bad_shape"}).evaluate(np.ones((4, 1)), threads=1)
    assert list(r.status) == [1, 1, 1, 1] and "must return an (" in r.messages[0]


def test_registration_errors():
    with pytest.raises(ValueError, match="is a model of contactuq's"):
        contactuq.register_model("switch", r_minus_s, inputs={"R": "1 N"}, outputs={"g": "N"})
    with pytest.raises(ValueError, match="already registered from Python"):
        contactuq.register_model("py_r_minus_s", r_minus_s, inputs={"R": "1 N", "S": "1 N"}, outputs={"g": "N"})
    with pytest.raises(ValueError, match="furlong"):
        contactuq.register_model("py_bad_unit", r_minus_s, inputs={"R": "1 furlong"}, outputs={"g": "N"})
    with pytest.raises(ValueError, match="outside"):
        contactuq.register_model("py_out", r_minus_s, inputs={"R": {"unit": "N", "nominal": 5, "low": 0, "high": 1}},
                                 outputs={"g": "N"})
    with pytest.raises(ValueError, match="unknown key"):
        contactuq.register_model("py_key", r_minus_s, inputs={"R": {"units": "N"}}, outputs={"g": "N"})


def test_valid_range_is_checked_by_the_study():
    contactuq.register_model("py_ranged", lambda k: k, inputs={"k": {"unit": "N/m", "nominal": 5, "low": 1, "high": 10}},
                             outputs={"y": "N/m"}, replace=True)
    study = {"model": {"type": "py_ranged"}, "method": "sample",
             "parameters": {"k": {"role": "aleatoric", "distribution": "uniform", "low": "0.5 N/m", "high": "8 N/m"}},
             "sampling": {"samples": 10}}
    with pytest.raises(ValueError, match="k"):
        contactuq.check(study, output="unused.h5")


def test_reliability_on_a_python_model(tmp_path):
    # FORM on g = R - S, both normal: beta = 50 / sqrt(20^2 + 10^2) exactly (a linear limit state).
    study = expression_study()
    study["model"] = {"type": "py_r_minus_s"}
    del study["sampling"]
    study["method"] = "reliability"
    study["reliability"] = {"algorithm": "form", "output": "g"}
    r = contactuq.run(study, output=str(tmp_path / "form.h5"), force=True)
    assert r["exit_code"] == 0, r
    summary = contactuq.analyze(tmp_path / "form.h5")["reliability"]
    assert summary["beta"] == pytest.approx(50 / math.sqrt(500), rel=1e-6)


def test_listed_by_models():
    listed = {m["name"]: m for m in contactuq.models()}
    assert listed["py_r_minus_s"]["python"] is True
    assert [v["name"] for v in listed["py_r_minus_s"]["inputs"]] == ["R", "S"]


def test_the_shipped_example_runs(tmp_path):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, os.path.join(STUDIES, "python_r_minus_s.py"), str(tmp_path / "ex.h5")],
                       capture_output=True, text=True, env=dict(os.environ), timeout=300)
    assert r.returncode == 0, r.stderr
    assert "'value': 0.0126" in r.stdout  # Phi(-sqrt(5)) = 0.01267


def line(x, a, b):  # y = a x + (b - 0.3)^2: its mean over x is least at b = 0.3
    return {"y": a * x + (b - 0.3) ** 2}


contactuq.register_model("py_line", line, inputs={"x": 0.5, "a": 2.0, "b": 0.5}, outputs={"y": ""}, replace=True)


def test_nested_on_a_python_model(tmp_path):
    # Every epistemic case of a over the same aleatoric x: y = a x + 0.04 row by row.
    study = {"method": "nested", "model": {"type": "py_line"},
             "parameters": {"a": {"role": "epistemic", "choices": [1.0, 2.0, 3.0]},
                            "x": {"role": "aleatoric", "distribution": "uniform", "low": 0, "high": 1}},
             "sampling": {"samples": 40, "seed": 3}}
    x, y, status = run(study, tmp_path / "nested.h5", threads=2)
    assert len(status) == 120 and not status.any()
    np.testing.assert_allclose(y[:, 0], x[:, 1] * x[:, 0] + 0.04, rtol=1e-14)
    np.testing.assert_array_equal(x[:40, 0], x[80:, 0])  # common random numbers
    assert sorted(set(x[:, 1])) == [1.0, 2.0, 3.0]


def test_optimize_on_a_python_model(tmp_path):
    study = {"method": "optimize", "model": {"type": "py_line"},
             "parameters": {"b": {"role": "design", "low": 0, "high": 1, "value": 0.9},
                            "x": {"role": "aleatoric", "distribution": "uniform", "low": 0, "high": 1}},
             "sampling": {"samples": 20, "seed": 3},
             "optimization": {"algorithm": "bobyqa", "evaluations": 40,
                              "objective": [{"output": "y", "statistic": "mean"}]}}
    r = contactuq.run(study, output=str(tmp_path / "opt.h5"), force=True)
    assert r["exit_code"] == 0, r
    with h5py.File(tmp_path / "opt.h5", "r") as f:
        assert f.attrs["model"] == "py_line"
        assert not f["history/failed"][()].any()
        assert f["results/best_x"][0, 0] == pytest.approx(0.3, abs=1e-4)
        # The mean of a x over the study's 20 samples, nothing from (b - 0.3)^2 at the optimum.
        assert f["results/best_objectives"][0, 0] == pytest.approx(1.0, abs=0.05)


def test_calibrate_on_a_python_model(tmp_path):
    # Measured y at five x, made with a = 1.5: the fit finds it.
    data = tmp_path / "line.csv"
    data.write_text("case,x [1],y [1]\n" + "".join(f"{k},{x},{1.5 * x + 0.04!r}\n"
                                                 for k, x in enumerate([0.1, 0.3, 0.5, 0.7, 0.9], 1)))
    study = {"method": "calibrate", "model": {"type": "py_line"},
             "parameters": {"a": {"role": "calibrated", "low": 0.5, "high": 3.0}},
             "data": {"tables": [str(data)]},
             "calibrate": {"starts": 2, "seed": 1, "scales": {"y": 0.01}}}
    r = contactuq.run(study, output=str(tmp_path / "cal.h5"), force=True)
    assert r["exit_code"] == 0, r
    with h5py.File(tmp_path / "cal.h5", "r") as f:
        assert f.attrs["model"] == "py_line"
        assert f["estimates/value"][0] == pytest.approx(1.5, rel=1e-9)
        np.testing.assert_allclose(f["residuals/y/fitted"][()], f["residuals/y/measured"][()], atol=1e-12)
