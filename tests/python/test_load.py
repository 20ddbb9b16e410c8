"""contactuq.load on the files `contactuq run` writes: NumPy arrays, pandas and xarray views."""
import os
import subprocess

import numpy as np
import pytest

import contactuq

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("CONTACTUQ_CLI", os.path.join(ROOT, "build", "release", "contactuq"))


def run(study, out):
    subprocess.run([CLI, "run", os.path.join(ROOT, "studies", study), "-o", str(out), "-q"], check=True,
                   capture_output=True)
    return str(out)


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory):
    text = open(os.path.join(ROOT, "studies", "quickstart.toml")).read().replace("samples = 1000", "samples = 200")
    study = tmp_path_factory.mktemp("q") / "quickstart.toml"
    study.write_text(text)
    out = study.with_suffix(".h5")
    subprocess.run([CLI, "run", str(study), "-o", str(out), "-q"], check=True, capture_output=True)
    return contactuq.load(str(out))


def test_ensemble_arrays(quickstart):
    e = quickstart
    assert e.rows == 200 and e.ok.all()
    assert e.output_names[:2] == ["peak_insertion", "peak_withdrawal"]
    assert e.curve("Fx_total").shape == (200, 400)
    assert np.all(e.output("peak_insertion") > 0)


def test_dataframe(quickstart):
    df = quickstart.to_dataframe()
    assert df.shape[0] == 200 and df.index.name == "sample"
    assert {"mu", "K", "peak_insertion", "status", "message"} <= set(df.columns)
    assert df.attrs["units"]["peak_insertion"] == "N" and df.attrs["units"]["K"] == "N*m/rad"
    assert df.attrs["roles"]["mu"] == "aleatoric"
    np.testing.assert_array_equal(df["peak_insertion"].to_numpy(), quickstart.output("peak_insertion"))


def test_xarray(quickstart):
    ds = quickstart.to_xarray()
    assert ds.sizes["sample"] == 200
    assert ds["peak_insertion"].attrs["units"] == "N"
    assert ds["Fx_total"].dims == ("sample", "Fx_total_point")
    assert ds["Fx_total_x"].attrs["units"] == "m"
    np.testing.assert_array_equal(ds["Fx_total"].values, quickstart.curve("Fx_total"))


def test_other_result_files(tmp_path):
    r = contactuq.load(run("impact_models.toml", tmp_path / "impact.h5"))
    assert isinstance(r, contactuq.ResultFile)
    assert r.format == "contactuq-impact" and r.method == "impact"
    assert r["restitution"].shape == (len(r.attrs["laws"]), r["approach_velocity"].size)
    assert r.units["peak_force"] == "N"
    e = contactuq.load(run("switch_evaluate.toml", tmp_path / "switch.h5"))
    assert e.method == "evaluate" and e["trace/contact_force"].size == e["trace/t"].size
    with pytest.raises(KeyError, match="the file has"):
        e["nothing"]


def test_not_a_result_file(tmp_path):
    import h5py

    path = tmp_path / "other.h5"
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "something-else"
    with pytest.raises(ValueError, match="not a contactuq result file"):
        contactuq.load(str(path))
