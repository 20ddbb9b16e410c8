"""Posterior files in Python: load(file).draws() as an ArviZ-shaped xarray.Dataset, and the
figures of `contactuq plot` for them, from a small hierarchical run of the expression model."""
import os

import numpy as np
import pytest

import contactuq

xr = pytest.importorskip("xarray")
try:
    from contactuq import _core  # noqa: F401
except ImportError:
    pytest.skip("the extension contactuq._core is not built (pybind11 missing)", allow_module_level=True)

DATA = "part,y\nA,1.0\nA,1.2\nB,2.0\nB,2.4\nC,0.5\nC,0.7\nD,1.5\n"
STUDY = """title = "draws test"
method = "bayesian"
[model]
type = "expression"
[model.inputs]
theta = 1.0
[model.outputs]
y = "theta"
[parameters.theta]
role = "calibrated"
population = "normal"
location_prior = { distribution = "normal", mean = 1.0, sd = 3.0 }
scale_prior = { distribution = "half_normal", scale = 2.0 }
parameterisation = "noncentred"
[data]
tables = ["data.csv"]
[bayesian]
chains = 4
warmup = 150
draws = 100
seed = 3
predictive_draws = 0
[bayesian.noise]
y = { prior = { distribution = "half_normal", scale = 1.0 } }
"""


@pytest.fixture(scope="module")
def posterior(tmp_path_factory):
    d = tmp_path_factory.mktemp("bayes")
    (d / "data.csv").write_text(DATA)
    (d / "study.toml").write_text(STUDY)
    out = d / "post.h5"
    r = contactuq.run(str(d / "study.toml"), output=str(out), force=True)
    assert r["exit_code"] == 0, r
    return out


def test_draws_are_a_dataset_of_chains_and_draws(posterior):
    ds = contactuq.load(posterior).draws()
    assert isinstance(ds, xr.Dataset)
    for name in ("theta_loc", "theta_scale", "sigma_y"):
        assert ds[name].dims == ("chain", "draw"), name
        assert ds[name].shape == (4, 100)
    assert ds["theta"].dims == ("chain", "draw", "part")
    assert list(ds["theta"].coords["part"].values) == ["A", "B", "C", "D"]
    assert ds["theta"].shape == (4, 100, 4)
    assert (ds["theta_scale"] > 0).all() and (ds["sigma_y"] > 0).all()
    # The same numbers as the file's (chains x iterations) x parameters array, warm-up left out.
    r = contactuq.load(posterior)
    names = list(contactuq._texts(r["posterior/names"]))
    flat = np.asarray(r["posterior/draws"]).reshape(4, 250, len(names))
    np.testing.assert_array_equal(ds["theta_loc"].values, flat[:, 150:, names.index("theta_loc")])
    np.testing.assert_array_equal(ds["theta"].sel(part="C").values, flat[:, 150:, names.index("theta[C]")])


def test_warmup_is_included_on_request(posterior):
    ds = contactuq.load(posterior).draws(warmup=True)
    assert ds["theta_loc"].shape == (4, 250)
    assert int(ds["warmup"].sum()) == 150 and ds.attrs["warmup"] == 150
    kept = contactuq.load(posterior).draws()
    np.testing.assert_array_equal(ds["theta_loc"].values[:, 150:], kept["theta_loc"].values)


def test_draws_refuses_other_files(tmp_path):
    r = contactuq.ResultFile({"format": "contactuq-fit"}, {}, {}, path="x.h5")
    with pytest.raises(ValueError, match="contactuq-posterior"):
        r.draws()


def test_plot_writes_trace_and_marginals(posterior, tmp_path):
    pytest.importorskip("matplotlib")
    from contactuq.plot import main

    assert main([str(posterior), "--outdir", str(tmp_path)]) == 0
    for stem in ("bayesian_trace", "bayesian_marginals"):
        assert os.path.getsize(tmp_path / f"{stem}.png") > 10000, stem
