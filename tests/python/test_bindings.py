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


def _small_run(tmp_path, name, samples):
    """A shipped study run with fewer samples; the path of its result file."""
    text = open(os.path.join(STUDIES, name)).read().replace("samples = 1000", f"samples = {samples}")
    study = tmp_path / name
    study.write_text(text)
    out = tmp_path / name.replace(".toml", ".h5")
    assert contactuq.run(str(study), output=out)["exit_code"] == 0
    return out


def _summarize_json(out, *options):
    """`contactuq summarize OUT --json OPTIONS...`, parsed."""
    import json
    import subprocess

    return json.loads(subprocess.run([CLI, "summarize", str(out), "--json", *options], check=True,
                                     capture_output=True, text=True).stdout)


def test_analyze_returns_what_summarize_json_prints(tmp_path):
    """contactuq.analyze() and `summarize --json` print one library report: the same structure and
    the same numbers, bit for bit, with the default options and with every option changed."""
    # quickstart.toml declares peak_insertion <= 6 grf
    out = _small_run(tmp_path, "quickstart.toml", 300)
    ours = contactuq.analyze(out)
    assert ours == _summarize_json(out)
    assert ours["bootstrap"] == {"resamples": 1000, "confidence": 0.95, "seed": 1}
    changed = contactuq.analyze(out, bootstrap=200, confidence=0.9, quantiles=(0.1, 0.5), seed=3, si=True)
    assert changed == _summarize_json(out, "--bootstrap", "200", "--confidence", "0.9", "--quantiles", "0.1,0.5",
                                      "--seed", "3", "--si")
    assert changed != ours and [q["p"] for q in changed["outputs"][0]["quantiles"]] == [0.1, 0.5]
    # Everything summarize reports is there: status, moments with intervals, rankings, limits.
    assert ours["status"]["ok"] + ours["status"]["failed"] == 300 and ours["metadata"]["rows"] == 300
    peak = {o["name"]: o for o in ours["outputs"]}["peak_insertion"]
    assert peak["mean_ci"][0] < peak["mean"] < peak["mean_ci"][1]
    assert peak["limit"]["p_violation"]["trials"] == peak["used"] and peak["limit"]["high"] == pytest.approx(6 * 9.80665e-3)
    assert len(peak["ranking"]["prcc"]) == len(peak["ranking"]["inputs"]) > 1 and "nested" not in ours


def test_a_nested_study_is_analysed_per_model_never_pooled(tmp_path):
    """switch_epistemic.toml (made small): contactuq.analyze() equals `summarize --json`, nested
    statistics included; rankings and P(violation) per contact model, the violation counts equal
    to a count over each model's independent (A) rows of the pick-freeze design, read with h5py;
    limits in the study's [output] units (ms) unless si."""
    import subprocess

    import h5py

    out = _small_run(tmp_path, "switch_epistemic.toml", 40)
    ours = contactuq.analyze(out, bootstrap=100, seed=5)
    assert ours == _summarize_json(out, "--bootstrap", "100", "--seed", "5")
    si = contactuq.analyze(out, bootstrap=100, seed=5, si=True)
    assert si == _summarize_json(out, "--bootstrap", "100", "--seed", "5", "--si")
    with h5py.File(out, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["outputs"].attrs["names"]]
        outputs, status = f["outputs"][()], f["status"][()]
        cases = [c.decode() if isinstance(c, bytes) else c for c in f["metadata"].attrs["epistemic_cases"]]
        d = int(f["metadata"].attrs["pick_freeze_inputs"])
    assert len(cases) == 6 and d > 0
    assert ours["nested"]["cases"] == cases and ours["nested"]["samples_per_case"] == 40
    per_case = outputs.shape[0] // len(cases)
    settling = names.index("settling_time")
    by_case = {e["case"]: e for e in {o["name"]: o for o in ours["outputs"]}["settling_time"]["by_case"]}
    by_case_si = {e["case"]: e for e in {o["name"]: o for o in si["outputs"]}["settling_time"]["by_case"]}
    for c, label in enumerate(cases):
        a_rows = c * per_case + np.arange(0, per_case, d + 2)        # the independent samples
        y = outputs[a_rows, settling][status[a_rows] == 0]
        limit = by_case[label]["limit"]
        assert limit["p_violation"]["events"] == int(np.sum(y > 18e-3))
        assert limit["p_violation"]["trials"] == len(y) == 40
        assert limit["high"] == pytest.approx(18.0) and by_case_si[label]["limit"]["high"] == pytest.approx(18e-3)
        assert by_case_si[label]["limit"]["p_violation"] == limit["p_violation"]
        assert len(by_case[label]["ranking"]["prcc"]) == len(by_case[label]["ranking"]["inputs"])
    table = subprocess.run([CLI, "summarize", str(out), "--bootstrap", "0"], check=True, capture_output=True,
                           text=True).stdout
    assert "Specification limits ([output.limits]) under each model" in table
    assert "Which inputs drive each output under each model" in table
    figures = tmp_path / "figures"
    subprocess.run([CLI, "plot", str(out), "-o", str(figures), "--output", "settling_time"], check=True,
                   capture_output=True)
    assert (figures / "settling_time_horsetail.png").exists() and (figures / "settling_time_prcc_by_model.png").exists()
    # The contact model decides the settling specification: Brake's law violates it far more often.
    p = {label: by_case[label]["limit"]["p_violation"]["value"] for label in cases}
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
