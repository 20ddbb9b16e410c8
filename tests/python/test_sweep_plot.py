"""The figures of a sweep file (format "contactuq-sweep"): one per scalar output over the swept
input and one per curve with a line per point, read through contactuq.load."""
import types

import h5py
import numpy as np

from contactuq.plots import sweep


def _sweep_file(path):
    """A small file in the layout `contactuq run` writes for a sweep study (study/sweep.hpp)."""
    with h5py.File(path, "w") as f:
        f.attrs.update({"format": "contactuq-sweep", "format_version": 1, "method": "sweep", "model": "m",
                        "parameter": "g0", "failed": 1})
        s = f.create_dataset("sweep", data=[1e-3, 2e-3, 3e-3])
        s.attrs.update({"parameter": "g0", "units": "m"})
        x = f.create_dataset("inputs", data=np.array([[1e-3, 5.0], [2e-3, 5.0], [3e-3, 5.0]]))
        x.attrs.update({"names": ["g0", "k"], "units": ["m", "N/m"]})
        y = f.create_dataset("outputs", data=np.array([[0.1, 1.0], [0.2, 2.0], [np.nan, np.nan]]))
        y.attrs.update({"names": ["t", "F"], "units": ["s", "N"]})
        f.create_dataset("messages", data=["", "", "jammed"], dtype=h5py.string_dtype())
        c = f.create_group("curves")
        c.attrs["names"] = ["force"]
        d = c.create_dataset("force", data=np.array([[0.0, 1.0], [0.0, 2.0], [np.nan, np.nan]]))
        d.attrs.update({"units": "N", "abscissa_name": "t", "abscissa_unit": "s", "abscissa": [0.0, 1e-3]})


def test_a_sweep_file_draws_every_output_and_curve(tmp_path):
    path = tmp_path / "sweep.h5"
    _sweep_file(path)
    written = sweep.plot(str(path), str(tmp_path), "png", types.SimpleNamespace(outputs=[]))
    names = sorted(p.rsplit("/", 1)[-1] for p in written)
    assert names == ["sweep_F.png", "sweep_curve_force.png", "sweep_t.png"]


def test_a_sweep_plot_draws_only_what_is_asked(tmp_path):
    path = tmp_path / "sweep.h5"
    _sweep_file(path)
    written = sweep.plot(str(path), str(tmp_path), "png", types.SimpleNamespace(outputs=["force"]))
    assert [p.rsplit("/", 1)[-1] for p in written] == ["sweep_curve_force.png"]
