"""Curve outputs of an ensemble (contactuq plot, plots/ensemble.py curve_figure)."""
import os
import tempfile

import numpy as np

from contactuq.plots import ensemble


class _Ensemble:
    """The parts of a loaded ensemble the curve figure reads."""

    def __init__(self, values, cases, per_case):
        self._values = values
        self.rows = values.shape[0]
        self.ok = np.ones(self.rows, dtype=bool)
        self.curve_info = {"tip_z": {"ordinate_unit": "m", "abscissa_unit": "1", "abscissa_name": "run_fraction",
                                     "abscissa": np.linspace(0, 1, values.shape[1])}}
        self.metadata = {"study_path": "synthetic", "epistemic_cases": cases, "aleatoric_samples": per_case}

    def curve(self, name):
        return self._values


def test_one_sample_per_case_draws_each_start_as_a_curve_without_a_band():
    # Time histories: three cases of one start each. Each is its own line, labelled by its case.
    t = np.linspace(0, 1, 11)
    values = np.array([-t, -np.minimum(t, 0.5), -np.minimum(t, 0.6)]) * 1e-3
    e = _Ensemble(values, ["start=nominal", "start=jammed", "start=cross"], 1)
    drawn = {}
    real_save = ensemble.save

    def keep(fig, outdir, name, fmt):
        ax = fig.axes[0]
        drawn["labels"] = [line.get_label() for line in ax.get_lines()]
        drawn["bands"] = len(ax.collections)
        drawn["title"] = ax.get_title()
        drawn["last"] = [line.get_ydata()[-1] for line in ax.get_lines()]
        return real_save(fig, outdir, name, fmt)

    ensemble.save = keep
    try:
        with tempfile.TemporaryDirectory() as d:
            path = ensemble.curve_figure(e, "tip_z", d, "png")
            assert os.path.getsize(path) > 0
    finally:
        ensemble.save = real_save
    assert drawn["labels"] == ["start=nominal", "start=jammed", "start=cross"]
    assert drawn["bands"] == 0
    assert "one sample per case" in drawn["title"]
    np.testing.assert_allclose(drawn["last"], [-1.0, -0.5, -0.6])  # in mm


def test_several_samples_per_case_draw_median_and_band():
    rng = np.random.default_rng(1)
    values = rng.normal(size=(20, 5))
    e = _Ensemble(values, ["law=a", "law=b"], 10)
    with tempfile.TemporaryDirectory() as d:
        path = ensemble.curve_figure(e, "tip_z", d, "png")
        assert os.path.getsize(path) > 0


class _Coded:
    """A nested ensemble with an outcome code and a 0/1 success per row."""

    def __init__(self, outcome, cases):
        self._outcome = np.asarray(outcome, dtype=float)
        self.rows = self._outcome.size
        self.metadata = {"study_path": "synthetic", "epistemic_cases": cases,
                         "aleatoric_samples": self.rows // len(cases)}

    def output(self, name):
        return self._outcome if name == "outcome" else (self._outcome == 0).astype(float)


def test_integer_codes_get_fractions_and_other_outputs_do_not():
    assert list(ensemble._codes(np.array([0, 2, 5, 0, np.nan]))) == [0, 2, 5]
    assert ensemble._codes(np.array([0.0, 1.0, 0.0])) is None  # 0/1: a proportion instead
    assert ensemble._codes(np.array([0.5, 1.0, 2.0])) is None  # not integers
    assert ensemble._codes(np.arange(12.0)) is None  # too many values to be codes
    e = _Coded([0, 0, 2, 5, 0, 0, 0, 2], ["grasp=a", "grasp=b"])
    with tempfile.TemporaryDirectory() as d:
        assert os.path.getsize(ensemble.fractions_figure(e, "outcome", d, "png")) > 0
        assert ensemble.fractions_figure(e, "success", d, "png") is None


def test_a_nested_proportion_has_one_bar_per_case_with_its_counts():
    by_case = {"grasp=a": {"probability_of_1": {"value": 0.5, "ci": [0.15, 0.85], "events": 2, "trials": 4}},
               "grasp=b": {"probability_of_1": {"value": 0.75, "ci": [0.3, 0.95], "events": 3, "trials": 4}}}
    e = _Coded([0, 0, 2, 5, 0, 0, 0, 2], ["grasp=a", "grasp=b"])
    seen = {}
    real_save = ensemble.save

    def keep(fig, outdir, name, fmt):
        ax = fig.axes[0]
        seen["widths"] = [bar.get_width() for bar in ax.patches]
        seen["texts"] = [t.get_text() for t in ax.texts]
        return real_save(fig, outdir, name, fmt)

    ensemble.save = keep
    try:
        with tempfile.TemporaryDirectory() as d:
            ensemble.proportion_by_case_figure(e, "success", by_case, d, "png")
    finally:
        ensemble.save = real_save
    assert seen["widths"] == [0.5, 0.75]
    assert seen["texts"] == ["2/4", "3/4"]
