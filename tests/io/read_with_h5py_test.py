"""Reads ensembles written by tests/io/ensemble_store_test.cpp with plain h5py, following only
docs/hdf5-schema.md, then with contactuq.load.

    read_with_h5py_test.py FINISHED.h5 INTERRUPTED.h5 INTERRUPTED_ROWS

The values follow the formulas of ensemble_store_test.cpp (sample i, input j, output k, curve c,
point p):
    input(i, j)    = i + 0.125 (j + 1)
    status(i)      = failed (1) if i % 7 == 3, else not_run (2) if i % 13 == 12, else ok (0)
    output(i, k)   = 10 i + k + 0.25              (NaN unless ok)
    curve(c, i, p) = 1000 c + i + p / 64           (NaN unless ok)
    message(i)     = "sample <i>: friction lock, μ too large" if failed,
                     "not run: the study aborted"             if not_run, else ""
Exits non-zero (an AssertionError) on the first mismatch.
"""

import sys

import h5py
import numpy as np

SAMPLES = 60
INPUTS = ["mu", "theta0", "contact_law", "d0", "width"]
OUTPUTS = ["peak_force", "peak_rotation", "insertion_energy"]
CURVES = {"insertion_force": 40, "receptacle_rotation": 9}


def status_of(i):
    return 1 if i % 7 == 3 else 2 if i % 13 == 12 else 0


def expected(rows):
    i = np.arange(rows)
    status = np.array([status_of(k) for k in i], dtype=np.int32)
    nan_unless_ok = np.where(status == 0, 1.0, np.nan)[:, None]
    inputs = i[:, None] + 0.125 * (np.arange(len(INPUTS)) + 1)[None, :]
    outputs = (10.0 * i[:, None] + np.arange(len(OUTPUTS))[None, :] + 0.25) * nan_unless_ok
    curves = {}
    for c, (name, points) in enumerate(CURVES.items()):
        curves[name] = (1000.0 * c + i[:, None] + np.arange(points)[None, :] / 64) * nan_unless_ok
    messages = [f"sample {k}: friction lock, μ too large" if s == 1 else
                "not run: the study aborted" if s == 2 else "" for k, s in zip(i, status)]
    return inputs, outputs, curves, status, messages


def text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def texts(values):
    return [text(v) for v in np.asarray(values).ravel()]


def same(a, b):
    """Equal arrays, NaN equal to NaN."""
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def check_with_h5py(path):
    with h5py.File(path, "r") as f:
        assert text(f.attrs["format"]) == "contactuq-ensemble"
        assert int(f.attrs["format_version"]) == 1
        assert set(f.keys()) == {"study", "metadata", "inputs", "outputs", "curves", "status",
                                 "messages"}, sorted(f.keys())
        study = text(f["study"][()])
        assert study.startswith("# receptacle–pin quickstart\n[study]\n"), study
        assert "samples = 60\n" in study

        m = f["metadata"].attrs
        assert int(m["seed"]) == 18446744073709551557
        assert m["seed"].dtype == np.uint64
        assert int(m["samples"]) == SAMPLES
        assert int(m["threads"]) == 2
        assert text(m["design"]) == "lhs"
        assert text(m["git_commit"]) == "0123abc"
        assert text(m["study_path"]) == "studies/quickstart.toml"
        assert text(m["start_time"]) == "2024-05-01T12:00:00Z"
        assert text(m["end_time"]) == "2024-05-01T12:05:00Z"
        assert text(m["host"]) == "test-host"
        assert text(m["contactuq_version"]) != ""
        assert len(m["resume_log"]) == 0

        inputs, outputs, curves, status, messages = expected(SAMPLES)
        d = f["inputs"]
        assert d.shape == (SAMPLES, len(INPUTS)) and d.dtype == np.float64
        assert texts(d.attrs["names"]) == INPUTS
        assert texts(d.attrs["units"]) == ["", "rad", "", "m", "m"]
        assert texts(d.attrs["roles"]) == ["aleatoric", "aleatoric", "epistemic", "fixed", "design"]
        assert texts(d.attrs["column_attributes"]) == ["distribution", "note", "bounds"]
        assert texts(d.attrs["distribution"])[:3] == [
            "normal(mean=0.2, sd=0.02)", "uniform(0.01, 0.03)", "choices(hertz, flores)"]
        assert texts(d.attrs["note"]) == ["", "initial angle – gap", "", "", ""]
        # Chunked and deflate-compressed, as the schema promises.
        assert d.chunks is not None and d.chunks[1] == len(INPUTS)
        assert d.compression == "gzip"
        assert d.maxshape == (None, len(INPUTS))
        assert same(d[()], inputs)

        d = f["outputs"]
        assert texts(d.attrs["names"]) == OUTPUTS
        assert texts(d.attrs["units"]) == ["N", "rad", "J"]
        assert d.compression == "gzip"
        assert same(d[()], outputs)
        assert np.isnan(d[3, 0]) and d[4, 0] == 40.25

        assert texts(f["curves"].attrs["names"]) == list(CURVES)
        for name, points in CURVES.items():
            d = f["curves"][name]
            assert d.shape == (SAMPLES, points), (name, d.shape)
            assert d.chunks is not None and d.compression == "gzip"
            assert same(d[()], curves[name]), name
        force = f["curves"]["insertion_force"]
        assert text(force.attrs["abscissa_name"]) == "pin displacement"
        assert text(force.attrs["abscissa_unit"]) == "m"
        assert text(force.attrs["ordinate_unit"]) == "N"
        assert np.array_equal(force.attrs["abscissa"], 1e-4 * np.arange(40))
        assert "abscissa" not in f["curves"]["receptacle_rotation"].attrs

        d = f["status"]
        assert d.shape == (SAMPLES,) and d.dtype == np.int32
        assert texts(d.attrs["codes"]) == ["ok", "failed", "not_run"]
        assert np.array_equal(d[()], status)

        d = f["messages"]
        assert d.shape == (SAMPLES,)
        assert texts(d[()]) == messages


def check_with_load(path, rows, finished):
    import contactuq

    e = contactuq.load(path)
    inputs, outputs, curves, status, messages = expected(rows)
    assert e.rows == rows, (e.rows, rows)
    assert e.finished == finished
    assert e.input_names == INPUTS and e.output_names == OUTPUTS
    assert e.input_roles[2] == "epistemic"
    assert e.input_attributes["bounds"][4] == "[0.001, 0.002]"
    assert same(e.inputs, inputs)
    assert same(e.outputs, outputs)
    assert same(e.output("peak_rotation"), outputs[:, 1])
    assert same(e.input("width"), inputs[:, 4])
    for name in CURVES:
        assert same(e.curve(name), curves[name]), name
    assert e.curve_info["insertion_force"]["ordinate_unit"] == "N"
    assert np.array_equal(e.status, status)
    assert np.array_equal(e.ok, status == 0)
    assert e.failures == int(np.count_nonzero(status))
    assert e.messages == messages
    assert e.metadata["seed"] == 18446744073709551557
    assert e.metadata["samples"] == SAMPLES
    assert e.study.startswith("# receptacle–pin quickstart")
    try:
        e.output("peak")
        raise AssertionError("an unknown output name was accepted")
    except KeyError as error:
        assert "peak_force" in str(error)


def main():
    finished, interrupted, interrupted_rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
    check_with_h5py(finished)
    check_with_load(finished, SAMPLES, True)
    # The file of a writer killed with SIGKILL: its flushed samples, nothing more.
    check_with_load(interrupted, interrupted_rows, False)
    print("read_with_h5py_test: ok")


if __name__ == "__main__":
    main()
