"""The figures read result files through contactuq.load (ResultFile), and take their axis labels,
legends and saving from plots/style.py."""
import os
import re

import h5py
import numpy as np
import pytest

import contactuq
from contactuq.plots import style

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLOTS = os.path.join(ROOT, "python", "contactuq", "plots")


def _sources():
    for name in sorted(os.listdir(PLOTS)):
        if name.endswith(".py"):
            with open(os.path.join(PLOTS, name), encoding="utf-8") as f:
                yield name, f.read()


def test_no_plots_module_reads_a_file_itself():
    # One reader, contactuq.load, for every format: no private h5py readers in the plots.
    found = [name for name, source in _sources() if re.search(r"\bh5py\b|\b_open\(", source)]
    assert not found, f"reading files outside contactuq.load: {found}"


def test_one_label_legend_and_save():
    for name, source in _sources():
        if name == "style.py":
            continue
        assert not re.search(r"^def _label\(", source, re.MULTILINE), f"{name}: use style.axis_label"
        assert "bbox_to_anchor=(1.02" not in source, f"{name}: use style.legend_outside"
        assert ".savefig(" not in source, f"{name}: use style.save"


def test_axis_label():
    assert style.axis_label("displacement x", "m") == "displacement x [mm]"
    assert style.axis_label("e", "") == "e [-]"
    style.set_display_units({"by_name": {"gap": ["in", 1 / 0.0254]}, "by_si": {}})
    try:
        assert style.axis_label("gap", "m", "gap") == "gap [in]"
        assert style.axis_label("gap", "m") == "gap [mm]"  # by unit only: values already shown in it
    finally:
        style.set_display_units({})


@pytest.fixture
def evaluate_file(tmp_path):
    """A small file in the layout of an evaluate study of a model with curves."""
    path = tmp_path / "small.h5"
    with h5py.File(path, "w") as f:
        f.attrs.update({"format": "contactuq-evaluate", "format_version": 1, "method": "evaluate",
                        "model": "m", "status": "ok", "message": ""})
        inputs = f.create_dataset("inputs", data=[0.1, 2.0])
        inputs.attrs["names"] = ["mu", "k"]
        curves = f.create_group("curves")
        curves.attrs["names"] = ["force", "angle"]
        for name, unit in (("force", "N"), ("angle", "rad")):
            d = curves.create_dataset(name, data=np.arange(4.0))
            d.attrs.update({"units": unit, "abscissa_name": "x", "abscissa_unit": "m",
                            "abscissa": np.linspace(0, 1e-3, 4)})
        g = f.create_group("cases/b")
        g.attrs["count"] = 3
        f.create_group("cases/a")
    return str(path)


def test_result_file_attributes_groups_and_units(evaluate_file):
    r = contactuq.load(evaluate_file)
    assert isinstance(r, contactuq.ResultFile) and r.path == evaluate_file
    assert r.attr("", "model") == "m" and r.attr("/inputs", "names") == ["mu", "k"]
    assert r.attr("cases/b", "count") == 3 and r.attr("cases/a", "count", 1) == 1
    with pytest.raises(KeyError):
        r.attr("cases/a", "count")
    assert r.children("cases") == ["a", "b"] and "cases/a" in r and "/curves/force" in r and "nothing" not in r
    assert r.quantity("curves/force")[1] == "N" and r.unit("inputs", "") == ""
    with pytest.raises(ValueError, match="no units"):
        r.unit("inputs")
    assert r.get("nothing") is None
    curves = r.curves()
    assert list(curves) == ["force", "angle"]
    assert curves["angle"]["ordinate_unit"] == "rad" and curves["angle"]["abscissa_name"] == "x"
    np.testing.assert_array_equal(curves["force"]["abscissa"], np.linspace(0, 1e-3, 4))


def test_load_refuses_another_format_or_version(evaluate_file):
    assert contactuq.file_format(evaluate_file) == "contactuq-evaluate"
    assert contactuq.load(evaluate_file, "contactuq-evaluate").method == "evaluate"
    with pytest.raises(ValueError, match="not a contactuq-curve file"):
        contactuq.load(evaluate_file, "contactuq-curve")
    with h5py.File(evaluate_file, "a") as f:
        f.attrs["format_version"] = 2
    with pytest.raises(ValueError, match="evaluate file format version 2, this reader knows 1"):
        contactuq.load(evaluate_file, "contactuq-evaluate")


def test_evaluate_figures_from_the_loaded_file(evaluate_file, tmp_path):
    from argparse import Namespace

    from contactuq.plots import evaluate

    written = evaluate.plot(evaluate_file, str(tmp_path), "png", Namespace(outputs=[]))
    assert [os.path.basename(p) for p in written] == ["curve_force.png", "curve_angle.png"]
