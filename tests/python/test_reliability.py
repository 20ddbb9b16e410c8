"""A reliability file through the tool and the package: `summarize` (text and --json),
contactuq.analyze (the same dict as --json), contactuq.load and `plot`, on g = R - S with
R ~ N(200 N, 20 N) and S ~ N(150 N, 10 N), whose P(g < 0) = Phi(-50 / sqrt(500)) = 0.0126737 is
known exactly (studies/expression_r_minus_s.toml)."""
import json
import math
import os
import subprocess

import pytest

import contactuq

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("CONTACTUQ_CLI", os.path.join(ROOT, "build", "release", "contactuq"))

BETA = 50.0 / math.sqrt(20.0**2 + 10.0**2)
EXACT = 0.5 * math.erfc(BETA / math.sqrt(2.0))  # 0.0126737

STUDY = """title = "R - S"
method = "reliability"

[model]
type = "expression"

[model.inputs]
R = "200 N"
S = "150 N"

[model.outputs]
g = "R - S"

[parameters.R]
role = "aleatoric"
distribution = "normal"
mean = "200 N"
sd = "20 N"

[parameters.S]
role = "aleatoric"
distribution = "normal"
mean = "150 N"
sd = "10 N"

[output.limits]
g = {{ low = "0 N" }}

[reliability]
{options}
"""


def _run(tmp_path, name, options):
    study = tmp_path / f"{name}.toml"
    study.write_text(STUDY.format(options=options))
    out = tmp_path / f"{name}.h5"
    subprocess.run([CLI, "run", str(study), "-o", str(out), "-q"], check=True, capture_output=True)
    return out


def _summary(path):
    done = subprocess.run([CLI, "summarize", str(path), "--json"], check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("reliability")
    return {"form": _run(d, "form", 'algorithm = "form"'),
            "sorm": _run(d, "sorm", 'algorithm = "sorm"'),
            "subset": _run(d, "subset", 'algorithm = "subset"\nsamples = 500\nseed = 7')}


def test_form_summary_json_and_load(files):
    s = _summary(files["form"])
    assert s["format"] == "contactuq-reliability" and s["method"] == "reliability"
    r = s["reliability"]
    assert r["algorithm"] == "form" and r["output"] == "g" and r["event"] == "g < 0 N" and r["resolved"] == 1
    assert r["probability"]["estimate"] == pytest.approx(EXACT, rel=1e-4)
    assert r["beta"] == pytest.approx(BETA, rel=1e-4)
    assert r["probability"]["cov"] is None  # FORM has no sampling error: NaN is null, valid JSON
    assert r["model_calls"] > 0 and r["failed_calls"] == 0
    # alpha = -grad g / |grad g| in u-space: (-20, 10) / sqrt(500), importance factors 0.8 and 0.2.
    point = {p["input"]: p for p in r["form"]["design_point"]}
    assert point["R"]["alpha"] == pytest.approx(-20 / math.sqrt(500), abs=1e-4)
    assert point["S"]["importance"] == pytest.approx(0.2, abs=1e-4)
    assert point["R"]["unit"] == "N"
    # The design point lies on g = 0: x*_R = x*_S.
    assert point["R"]["x"] == pytest.approx(point["S"]["x"], rel=1e-5)

    loaded = contactuq.load(files["form"])
    assert isinstance(loaded, contactuq.Reliability) and isinstance(loaded, contactuq.ResultFile)
    assert loaded.probability == pytest.approx(r["probability"]["estimate"], rel=1e-12)
    assert loaded.inputs == ["R", "S"] and loaded.output_unit == "N" and loaded.resolved
    assert loaded.form["converged"] and loaded.form["importance_factors"].sum() == pytest.approx(1.0)
    assert loaded.subset is None and loaded.sorm is None

    text = subprocess.run([CLI, "summarize", str(files["form"])], check=True, capture_output=True, text=True).stdout
    assert "P(failure) = 0.01267" in text and "alpha^2" in text and "FORM (" in text


def test_sorm_formulas_agree_with_form_on_a_linear_limit_state(files):
    r = _summary(files["sorm"])["reliability"]
    for key in ("breitung", "hohenbichler", "tvedt"):
        assert r["sorm"][key] == pytest.approx(EXACT, rel=1e-3)
    text = subprocess.run([CLI, "summarize", str(files["sorm"])], check=True, capture_output=True, text=True).stdout
    assert "Breitung" in text and "Tvedt" in text


def test_subset_summary_covers_the_exact_value(files):
    s = _summary(files["subset"])
    r = s["reliability"]
    low, high = r["probability"]["ci95"]
    assert r["algorithm"] == "subset" and r["resolved"] == 1
    # One seeded run: the exact value inside its interval widened by 2 on each side.
    assert low / 2 <= EXACT <= 2 * high
    runs = r["subset"]["runs"]
    assert len(runs) == 1 and runs[0]["reached_failure"] == 1
    levels = runs[0]["levels"]
    assert levels[-1]["threshold"] == 0.0 and all(lv["samples"] == 500 for lv in levels)
    assert math.prod(lv["probability"] for lv in levels) == pytest.approx(r["probability"]["estimate"], rel=1e-12)
    # The calls up to the last level are every call the run made.
    assert levels[-1]["model_calls"] == r["model_calls"]

    loaded = contactuq.load(files["subset"])
    run = loaded.subset["runs"][0]
    assert run["running_probability"][-1] == pytest.approx(loaded.probability, rel=1e-12)
    assert run["model_calls"][-1] == loaded.model_calls


def _core_or_skip():
    try:
        from contactuq import _core  # noqa: F401
    except ImportError:
        pytest.skip("the extension contactuq._core is not built")


def test_analyze_returns_what_summarize_json_prints(files):
    _core_or_skip()
    for name, path in files.items():
        assert contactuq.analyze(path) == _summary(path), name
        done = subprocess.run([CLI, "summarize", str(path), "--json", "--si"], check=True, capture_output=True,
                              text=True)
        assert contactuq.analyze(path, si=True) == json.loads(done.stdout), name
    # load() reads the file with h5py alone; its running products are the library's.
    loaded = contactuq.load(files["subset"])
    levels = contactuq.analyze(files["subset"], si=True)["reliability"]["subset"]["runs"][0]["levels"]
    run = loaded.subset["runs"][0]
    assert [lv["running_probability"] for lv in levels] == pytest.approx(list(run["running_probability"]), rel=1e-15)
    assert [lv["running_ci95"][1] for lv in levels] == pytest.approx(list(run["running_high"]), rel=1e-15)
    assert [lv["model_calls"] for lv in levels] == list(run["model_calls"])
    assert [lv["threshold"] for lv in levels] == list(run["threshold"])


def test_an_unresolved_result_says_so(tmp_path):
    # One level of subset simulation cannot reach P ~ 0.013 with p0 = 0.1: an upper bound only.
    study = tmp_path / "short.toml"
    study.write_text(STUDY.format(options='algorithm = "subset"\nsamples = 200\nmax_levels = 1'))
    out = tmp_path / "short.h5"
    done = subprocess.run([CLI, "run", str(study), "-o", str(out), "-q"], capture_output=True)
    assert done.returncode == 1  # no result to report
    r = _summary(out)["reliability"]
    assert r["resolved"] == 0 and "max_levels" in r["note"]
    assert r["probability"]["estimate"] is None and r["probability"]["ci95"][0] == 0
    assert r["probability"]["ci95"][1] >= EXACT  # a bound above the truth
    text = subprocess.run([CLI, "summarize", str(out)], check=True, capture_output=True, text=True).stdout
    assert "NOT RESOLVED" in text and "at most" in text
    assert not contactuq.load(out).resolved
    subprocess.run([CLI, "plot", str(out), "-o", str(tmp_path / "plots")], check=True, capture_output=True)
    assert os.listdir(tmp_path / "plots") == ["g_subset.png"]


def test_plot_writes_the_figures(files, tmp_path):
    for name, expected in (("form", ["g_form.png"]), ("sorm", ["g_form.png"]), ("subset", ["g_subset.png"])):
        outdir = tmp_path / name
        subprocess.run([CLI, "plot", str(files[name]), "-o", str(outdir)], check=True, capture_output=True)
        assert sorted(os.listdir(outdir)) == expected
        assert all(os.path.getsize(outdir / f) > 10000 for f in expected)


def test_run_from_python(tmp_path):
    _core_or_skip()
    study = tmp_path / "form.toml"
    study.write_text(STUDY.format(options='algorithm = "form"'))
    done = contactuq.run(str(study), output=tmp_path / "form.h5")
    assert done["method"] == "reliability" and done["exit_code"] == 0
    assert contactuq.load(tmp_path / "form.h5").probability == pytest.approx(EXACT, rel=1e-4)
