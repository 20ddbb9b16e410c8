"""`contactuq plot` of every shipped sampling study cut to 10, 20 and 50 samples: every figure is
drawn (exit code 0, nothing skipped). Small samples are where statistics come out strange: a
percentile bootstrap interval that excludes its estimate, an undefined coefficient, a 0/1
output that is all 0.

A study is sampling when `contactuq check` calls its method sample, nested, morris or
reliability. Its size is set in a copy of the study: `samples` of [sampling] (per epistemic
case for nested studies), `trajectories` of [morris] (as many trajectories as give about N model
runs), `samples` of [reliability] (per level). A new sampling study is covered at every size
without being named here; CUT below names the studies run at fewer sizes, each with why.

Time: about 95 s of CPU, most of it drawing some 300 figures, spread over the cores: under a
minute on 2 idle cores. Registered as a ctest of its own (tests/CMakeLists.txt)."""
import concurrent.futures
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUDIES = os.path.join(ROOT, "studies")
CLI = os.environ.get("CONTACTUQ_CLI", os.path.join(ROOT, "build", "release", "contactuq"))
SIZES = (10, 20, 50)
SAMPLING = ("sample", "nested", "morris", "reliability")

# Studies run at fewer sizes than SIZES, and why. The figures they would add are those of the
# studies run at every size (the same plots modules and figures).
CUT = {
    # The threaded-insertion model simulates each start for about 0.5 s of CPU: 10 samples of the
    # sensitivity or Nicolson study (8 cases) would take a minute, the success study 5 s, the three
    # histories as shipped 8 s.
    "threaded_insertion_sensitivity": ((), "a threaded-insertion start costs ~0.5 s of CPU"),
    "threaded_insertion_success": ((), "a threaded-insertion start costs ~0.5 s of CPU"),
    "threaded_insertion_grasp_trends": ((), "a threaded-insertion start costs ~0.5 s of CPU"),
    "threaded_insertion_histories": ((), "a threaded-insertion start costs ~0.5 s of CPU"),
    "nicolson_tables": ((), "a threaded-insertion start costs ~0.5 s of CPU"),
    # 8 cases of a clearance-joint simulation (~35 ms each): 400 runs at 50 samples.
    "pinslot_uq": ((10,), "8 pin-slot simulations per sample"),
    # One Python process per sample; the model and figures are those of expression_r_minus_s.
    "external_r_minus_s": ((10,), "one process per sample; figures as expression_r_minus_s"),
    # Its model is served by a `contactuq serve` it does not start; the model and figures are those
    # of expression_r_minus_s (tests/cli/umbridge_test.py runs it against a server).
    "umbridge_r_minus_s": ((), "needs a UM-Bridge server; figures as expression_r_minus_s"),
    # 60 epistemic cases with pick-freeze rows: 600 switch simulations and 37 figures at 10.
    "switch_epistemic": ((10,), "60 epistemic cases x (d + 2) pick-freeze rows"),
    # Many figures (28 and 17, ~0.25 s of CPU each): the smallest and the largest size.
    "switch_nominal": ((10, 50), "28 figures a size"),
    "receptacle_morris": ((10, 50), "17 figures a size"),
}
# Reliability methods take at least 100 samples per level; FORM and SORM take none.
RELIABILITY_SIZE = 100


def _check(path):
    """(method, model runs) that `contactuq check` reports for a study."""
    out = subprocess.run([CLI, "check", path], capture_output=True, text=True, check=True).stdout
    m = re.search(r": ok: (\w+) study of model \w+, (\d+)", out)
    assert m, f"contactuq check {path}: {out}"
    return m.group(1), int(m.group(2))


def _set(text, table, key, value):
    """`key = value` in [table] of a study's text (the first such line; tables of tables such as
    [[sampling.correlation]] are other tables)."""
    out, current, done = [], None, False
    for line in text.splitlines(keepends=True):
        m = re.match(r"\s*(\[\[?)\s*([\w.]+)\s*\]", line)
        if m:
            current = m.group(2) if m.group(1) == "[" else None
        elif current == table and not done and re.match(rf"\s*{key}\s*=", line):
            line = re.sub(r"=\s*[^#\n]*", f"= {value}", line, count=1).rstrip() + "\n"
            done = True
        out.append(line)
    return "".join(out), done


def _cut(name, size, folder):
    """A copy of studies/NAME.toml in `folder` sampling `size` (None: as shipped); its path."""
    path = os.path.join(STUDIES, f"{name}.toml")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    method, runs = _check(path)
    if size is not None:
        if method == "morris":
            m = re.search(r"^\s*trajectories\s*=\s*(\d+)", text, re.MULTILINE)
            per_trajectory = runs // int(m.group(1))
            text, done = _set(text, "morris", "trajectories", max(2, round(size / per_trajectory)))
        elif method == "reliability":
            text, done = _set(text, "reliability", "samples", size)
        else:
            text, done = _set(text, "sampling", "samples", size)
        assert done, f"{name}: no sample size to set"
    out = os.path.join(folder, f"{name}_{size}.toml")
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return out


def _sampling_studies():
    # Hidden files are scratch studies that the docs check writes and deletes meanwhile.
    names = sorted(n[:-5] for n in os.listdir(STUDIES) if n.endswith(".toml") and not n.startswith("."))
    return [n for n in names if _check(os.path.join(STUDIES, n + ".toml"))[0] in SAMPLING]


def _cases():
    """(study, size) of every run of the test."""
    cases = []
    for name in _sampling_studies():
        if name in CUT:
            sizes = CUT[name][0]
        elif _check(os.path.join(STUDIES, name + ".toml"))[0] == "reliability":
            with open(os.path.join(STUDIES, name + ".toml"), encoding="utf-8") as f:
                sampled = _set(f.read(), "reliability", "samples", 0)[1]
            sizes = (RELIABILITY_SIZE,) if sampled else (None,)
        else:
            sizes = SIZES
        cases += [(name, size) for size in sizes]
    return cases


def _run_and_plot(name, size, folder):
    """'' when the study ran and every figure was drawn, else what went wrong."""
    study = _cut(name, size, folder)
    result = study[:-5] + ".h5"
    run = subprocess.run([CLI, "run", study, "-o", result, "--force", "-q", "-j", "1"], capture_output=True,
                         text=True)
    if run.returncode != 0:
        return f"{name} at {size}: run exit {run.returncode}: {run.stderr.strip()}"
    plot = subprocess.run([CLI, "plot", result, "-o", study[:-5] + "_plots"], capture_output=True, text=True)
    written = [line[len("wrote "):] for line in plot.stdout.splitlines() if line.startswith("wrote ")]
    if plot.returncode != 0 or not written:
        return f"{name} at {size}: plot exit {plot.returncode}: {plot.stderr.strip()}"
    empty = [w for w in written if os.path.getsize(w) == 0]
    return f"{name} at {size}: empty figures {empty}" if empty else ""


@pytest.mark.skipif(not os.path.exists(CLI), reason="the contactuq executable is not built")
def test_every_sampling_study_plots_at_10_20_and_50_samples(tmp_path):
    # Relative paths in studies (drivers/...) are relative to the study's folder.
    for entry in os.listdir(STUDIES):
        if os.path.isdir(os.path.join(STUDIES, entry)):
            os.symlink(os.path.join(STUDIES, entry), tmp_path / entry)
    cases = _cases()
    assert ("quickstart", 50) in cases  # the study and size of the first report
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        problems = [p for p in pool.map(lambda c: _run_and_plot(*c, str(tmp_path)), cases) if p]
    assert not problems, "\n".join(problems)


@pytest.mark.skipif(not os.path.exists(CLI), reason="the contactuq executable is not built")
def test_a_figure_that_fails_is_skipped_with_its_reason_and_the_others_are_written(tmp_path, monkeypatch, capsys):
    study = _cut("quickstart", 20, str(tmp_path))
    result = study[:-5] + ".h5"
    subprocess.run([CLI, "run", study, "-o", result, "-q", "-j", "1"], check=True, capture_output=True)
    from contactuq import plot
    from contactuq.plots import ensemble

    def broken(*args, **kwargs):
        raise ValueError("'yerr' must not contain\nnegative values")

    monkeypatch.setenv("CONTACTUQ_EXE", CLI)
    monkeypatch.setattr(ensemble, "rankings_figure", broken)
    outdir = tmp_path / "plots"
    code = plot.main([result, "--outdir", str(outdir), "--output", "peak_insertion", "--output", "x_c"])
    out, err = capsys.readouterr()
    assert code == 3
    assert err.splitlines() == ["contactuq plot: skipped rankings: 'yerr' must not contain negative values"]
    assert sorted(os.listdir(outdir)) == sorted(
        ["peak_insertion_histogram.png", "peak_insertion_cdf.png", "x_c_histogram.png", "x_c_cdf.png",
         "Fx_total_band.png"])
    assert out.count("wrote ") == 5

    # Nothing drawn at all is an error (2), not a partial result.
    monkeypatch.setattr(ensemble, "scalar_figures", broken)
    monkeypatch.setattr(ensemble, "curve_figure", broken)
    code = plot.main([result, "--outdir", str(tmp_path / "none"), "--output", "x_c"])
    err = capsys.readouterr().err
    assert code == 2 and err.splitlines()[-1].endswith("no figure could be drawn")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
