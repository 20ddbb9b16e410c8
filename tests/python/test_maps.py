"""The map of P(1) of a 0/1 output over two inputs (contactuq plot, plots/ensemble.py)."""
import os
import tempfile

import numpy as np

from contactuq.plots import ensemble


class _Ensemble:
    """The parts of a loaded ensemble the map reads."""

    def __init__(self, inputs, names, success):
        self.inputs, self.input_names = inputs, names
        self.input_units = ["m"] * len(names)
        self.input_roles = ["aleatoric"] * len(names)
        self.output_names, self._success = ["success"], success
        self.metadata = {"study_path": "synthetic"}

    def input(self, name):
        return self.inputs[:, self.input_names.index(name)]

    def output(self, name):
        return self._success


def _synthetic(n=400, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.uniform(size=(n, 3))
    # Succeeds below a line in (tilt, offset); the phase column does not matter.
    success = (x[:, 0] + x[:, 2] < 1.0).astype(float)
    return _Ensemble(x, ["offset", "phase", "tilt"], success)


def test_the_grid_counts_every_sample_and_its_ones():
    e = _synthetic()
    edges, ones, count = ensemble.probability_grid(e.input("offset"), e.input("tilt"), e.output("success"), 4)
    assert count.sum() == 400
    assert ones.sum() == e.output("success").sum()
    assert np.all(ones <= count)
    # Low offset and low tilt (first row, first column) all succeed; the far corner never does.
    assert ones[0, 0] == count[0, 0] > 0
    assert ones[-1, -1] == 0 < count[-1, -1]
    assert len(edges) == 2 and edges[0][0] == e.input("offset").min() and edges[1][-1] == e.input("tilt").max()


def test_the_map_is_over_the_inputs_that_matter_unless_chosen():
    e = _synthetic()
    assert sorted(ensemble._map_axes(e, "success", None)) == ["offset", "tilt"]
    assert ensemble._map_axes(e, "success", "phase,tilt") == ["phase", "tilt"]
    with tempfile.TemporaryDirectory() as d:
        path = ensemble.probability_map_figure(e, "success", d, "png")
        assert os.path.getsize(path) > 0
        # Too few samples: no map.
        few = _Ensemble(e.inputs[:10], e.input_names, e.output("success")[:10])
        assert ensemble.probability_map_figure(few, "success", d, "png") is None
