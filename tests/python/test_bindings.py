"""The compiled API (contactuq._core): models, batch evaluation, studies from files and dicts."""
import os
import tomllib

import numpy as np
import pytest

import contactuq

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUDIES = os.path.join(ROOT, "studies")

try:
    from contactuq import _core  # noqa: F401
except ImportError:
    pytest.skip("the extension contactuq._core is not built (pybind11 missing)", allow_module_level=True)


def test_models_list_every_registered_model():
    listed = {m["name"]: m for m in contactuq.models()}
    assert {"receptacle_pin", "switch", "impact", "pinslot", "threaded_insertion"} <= set(listed)
    rp = listed["receptacle_pin"]
    names = [v["name"] for v in rp["inputs"]]
    assert names[:3] == ["Rr", "Rp", "phi"] and "g1_d0" in names
    assert {"name": "peak_insertion", "unit": "N"}.items() <= rp["outputs"][0].items()
    assert rp["inputs"][names.index("K")]["unit"] == "N*m/rad"
    ti = {v["name"]: v["unit"] for v in listed["threaded_insertion"]["outputs"]}
    assert ti["max_torque_z"] == "N*m" and ti["energy_dissipated"] == "J"  # a torque is not an energy


def test_evaluate_a_hundred_thousand_points_in_parallel():
    m = contactuq.Model.from_study(os.path.join(STUDIES, "quickstart.toml"))
    n = 100_000
    x = np.tile(m.nominal, (n, 1))
    mu = np.linspace(0.02, 0.21, n)
    x[:, m.input_index("mu")] = mu
    x[:, m.input_index("theta0")] = np.deg2rad(np.linspace(-0.5, 0.5, n))
    x[7, m.input_index("mu")] = 50.0   # locks: a failure, not an exception
    x[11, m.input_index("K")] = -1.0   # invalid: a failure, not an exception
    r = m.evaluate(x)
    assert r.outputs.shape == (n, len(m.outputs)) and r.curves["Fx_total"].shape[0] == n
    assert r.status[7] == 1 and "friction lock" in r.messages[7]
    assert r.status[11] == 1 and np.isnan(r.outputs[11]).all()
    assert r.ok.sum() == n - 2
    # Rows equal single evaluations, and threads do not change a bit.
    for i in (0, 12345, n - 1):
        one = m.evaluate(x[i:i + 1], threads=1)
        np.testing.assert_array_equal(one.outputs[0], r.outputs[i])
    assert np.all(np.diff(r.output("hysteresis_energy")[100:200]) > 0)  # grows with mu


def test_model_from_a_dict_and_named_inputs():
    with open(os.path.join(STUDIES, "quickstart.toml"), "rb") as f:
        table = tomllib.load(f)["model"]
    m = contactuq.Model(table)
    r = m.evaluate({"mu": np.array([0.1, 0.2])})
    assert r.ok.all() and r.output("peak_insertion")[1] > r.output("peak_insertion")[0]
    bad = dict(table, L="-1 in")
    with pytest.raises(ValueError, match="L"):
        contactuq.Model(bad)


def test_a_valid_row_carries_the_model_s_note():
    m = contactuq.Model({"type": "threaded_insertion", "thread": "M8x1.25", "tilt": "2 deg",
                         "phase": "150 deg", "max_steps": 100})
    r = m.evaluate(np.tile(m.nominal, (2, 1)))
    assert r.ok.all() and (r.output("outcome") == 5).all()  # undecided, not failed
    assert all(msg.startswith("inconclusive: more than max_steps = 100") for msg in r.messages)


def test_run_a_study_from_a_dict_and_load_it(tmp_path):
    with open(os.path.join(STUDIES, "quickstart.toml"), "rb") as f:
        study = tomllib.load(f)
    study["sampling"]["samples"] = 200
    seen = []
    out = tmp_path / "q.h5"
    r = contactuq.run(study, output=out, progress=lambda done, total: seen.append((done, total)))
    assert r["exit_code"] == 0 and r["method"] == "sample" and r["planned"] == 200 and r["failed"] == 0
    assert seen and seen[-1] == (200, 200)
    e = contactuq.load(str(out))
    assert e.to_dataframe().shape[0] == 200
    assert e.to_xarray().sizes["sample"] == 200
    # Same refusals and messages as the command line.
    with pytest.raises(ValueError, match="exists"):
        contactuq.run(study, output=out)
    study["parameters"]["mu"]["distribution"] = "unifrom"
    with pytest.raises(ValueError, match="<dict>.*unifrom"):
        contactuq.run(study, output=tmp_path / "bad.h5")


def test_a_progress_callback_that_raises_stops_the_run_cleanly(tmp_path):
    with open(os.path.join(STUDIES, "quickstart.toml"), "rb") as f:
        study = tomllib.load(f)
    study["sampling"]["samples"] = 5000

    def stop(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        contactuq.run(study, output=tmp_path / "stopped.h5", progress=stop)
    # The run stopped as an interrupted one: resumable.
    r = contactuq.run(study, output=tmp_path / "stopped.h5", resume=True)
    assert r["exit_code"] == 0 and r["planned"] == 5000


def test_run_a_study_file(tmp_path):
    r = contactuq.run(os.path.join(STUDIES, "switch_evaluate.toml"), output=tmp_path / "s.h5")
    assert r["method"] == "evaluate" and r["exit_code"] == 0


CLI = os.environ.get("CONTACTUQ_CLI", os.path.join(ROOT, "build", "release", "contactuq"))


def _analysed(tmp_path, name, samples, seed):
    """A shipped study run with fewer samples; its contactuq.analyze result and `summarize --json
    --si` outputs by name, with the same bootstrap seed."""
    import json
    import subprocess

    text = open(os.path.join(STUDIES, name)).read().replace("samples = 1000", f"samples = {samples}")
    study = tmp_path / name
    study.write_text(text)
    out = tmp_path / name.replace(".toml", ".h5")
    assert contactuq.run(str(study), output=out)["exit_code"] == 0
    ours = contactuq.analyze(out, bootstrap=200, seed=seed)
    summary = json.loads(subprocess.run([CLI, "summarize", str(out), "--json", "--si", "--bootstrap", "200",
                                         "--seed", str(seed)], check=True, capture_output=True, text=True).stdout)
    return out, ours, {o["name"]: o for o in summary["outputs"]}


def test_analyze_returns_the_numbers_summarize_prints(tmp_path):
    # quickstart.toml declares peak_insertion <= 6 grf
    _, ours, by_name = _analysed(tmp_path, "quickstart.toml", 300, 3)
    for name, mine in ours.items():
        theirs = by_name[name]["ranking"]
        for key in ("spearman", "prcc", "src"):
            for i, input_name in enumerate(theirs["inputs"]):
                a, b = mine["ranking"][key][input_name], theirs[key][i]
                as_float = [np.nan if v is None else v for v in [b["value"], *b["ci"]]]
                np.testing.assert_array_equal([a["value"], *a["ci"]], as_float)
    p = ours["peak_insertion"]["limit"]["p_violation"]
    q = by_name["peak_insertion"]["limit"]["p_violation"]
    assert (p["events"], p["trials"]) == (q["events"], q["trials"]) and p["value"] == q["value"]


def test_a_nested_study_is_analysed_per_model_never_pooled(tmp_path):
    """Rankings and P(violation) of switch_epistemic.toml (made small) per contact model: the same
    numbers from Python as from `summarize --json`, and the violation counts equal to a count over
    each model's independent (A) rows of the pick-freeze design, read with h5py."""
    import subprocess

    import h5py

    out, ours, by_name = _analysed(tmp_path, "switch_epistemic.toml", 40, 5)
    with h5py.File(out, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["outputs"].attrs["names"]]
        outputs, status = f["outputs"][()], f["status"][()]
        cases = [c.decode() if isinstance(c, bytes) else c for c in f["metadata"].attrs["epistemic_cases"]]
        d = int(f["metadata"].attrs["pick_freeze_inputs"])
    assert len(cases) == 6 and d > 0
    per_case = outputs.shape[0] // len(cases)
    settling = names.index("settling_time")
    for c, label in enumerate(cases):
        theirs = {e["case"]: e for e in by_name["settling_time"]["by_case"]}[label]
        mine = ours["settling_time"]["by_case"][label]
        a_rows = c * per_case + np.arange(0, per_case, d + 2)        # the independent samples
        y = outputs[a_rows, settling][status[a_rows] == 0]
        events = int(np.sum(y > 18e-3))
        assert mine["limit"]["p_violation"]["events"] == theirs["limit"]["p_violation"]["events"] == events
        assert mine["limit"]["p_violation"]["trials"] == len(y) == 40
        for i, input_name in enumerate(theirs["ranking"]["inputs"]):
            a, b = mine["ranking"]["prcc"][input_name], theirs["ranking"]["prcc"][i]
            np.testing.assert_array_equal([a["value"], *a["ci"]], [np.nan if v is None else v for v in [b["value"], *b["ci"]]])
    table = subprocess.run([CLI, "summarize", str(out), "--bootstrap", "0"], check=True, capture_output=True,
                           text=True).stdout
    assert "Specification limits ([output.limits]) under each model" in table
    assert "Which inputs drive each output under each model" in table
    figures = tmp_path / "figures"
    subprocess.run([CLI, "plot", str(out), "-o", str(figures), "--output", "settling_time"], check=True,
                   capture_output=True)
    assert (figures / "settling_time_horsetail.png").exists() and (figures / "settling_time_prcc_by_model.png").exists()
    # The contact model decides the settling specification: Brake's law violates it far more often.
    p = {label: ours["settling_time"]["by_case"][label]["limit"]["p_violation"]["value"] for label in cases}
    assert p["law=brake"] > p["law=cor"] + 0.3


def test_check_and_time_limit(tmp_path):
    """contactuq.check reads a study as the command line's check does; time_limit stops a sampling
    run cleanly (exit code 130) and resume=True finishes it."""
    c = contactuq.check(os.path.join(STUDIES, "quickstart.toml"))
    assert (c["method"], c["model"], c["planned"]) == ("sample", "receptacle_pin", 1000)
    with open(os.path.join(STUDIES, "quickstart.toml"), "rb") as f:
        study = tomllib.load(f)
    study["sampling"]["sampels"] = 3
    with pytest.raises(ValueError, match="unknown key 'sampels'"):
        contactuq.check(study)
    text = open(os.path.join(STUDIES, "quickstart.toml")).read().replace("samples = 1000", "samples = 600000")
    text = text.replace("points = 200 ", "points = 20 ")
    study = tmp_path / "big.toml"
    study.write_text(text)
    out = tmp_path / "big.h5"
    for limit in (0.4, 1, 2, 4):  # the limit counts from the start, input sampling included
        r = contactuq.run(str(study), output=out, threads=2, force=True, time_limit=limit)
        assert r["exit_code"] == 130
        if out.exists():
            break
    assert out.exists() and contactuq.load(out).ok.size < 600000
    assert contactuq.run(str(study), output=out, threads=2, resume=True)["exit_code"] == 0
    assert contactuq.load(out).ok.size == 600000
