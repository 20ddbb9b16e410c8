"""Checks `contactuq summarize --json` against NumPy on the same file, read with h5py.

usage: check_summary.py ENSEMBLE.h5 SUMMARY.json
Exits non-zero with a message on the first disagreement.
"""

import json
import sys

import h5py
import numpy as np


def main(path, summary_path):
    with open(summary_path) as f:
        summary = json.load(f)
    with h5py.File(path, "r") as f:
        outputs = f["outputs"][()]
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["outputs"].attrs["names"]]
        status = f["status"][()]
    failed = int(np.count_nonzero(status == 1))
    assert summary["status"]["failed"] == failed, (summary["status"], failed)
    assert summary["status"]["ok"] == int(np.count_nonzero(status == 0))
    assert [o["name"] for o in summary["outputs"]] == names
    for j, o in enumerate(summary["outputs"]):
        v = outputs[:, j]
        v = v[np.isfinite(v)]
        assert o["used"] == v.size and o["left_out"] == outputs.shape[0] - v.size, (o["name"], o["used"], v.size)
        if v.size == 0:
            continue
        close = lambda a, b: abs(a - b) <= 1e-12 * max(1.0, abs(b)) + 1e-15 * np.max(np.abs(v))
        assert close(o["mean"], np.mean(v)), (o["name"], o["mean"], np.mean(v))
        assert close(o["sd"], np.std(v, ddof=1)), (o["name"], o["sd"], np.std(v, ddof=1))
        assert o["min"] == np.min(v) and o["max"] == np.max(v)
        for q in o["quantiles"]:
            expected = np.percentile(v, 100 * q["p"])  # NumPy's default is Hyndman-Fan 7 as well
            assert close(q["value"], expected), (o["name"], q, expected)
            low, high = q["ci"]
            assert low <= q["value"] <= high, (o["name"], q)
        low, high = o["mean_ci"]
        assert low < o["mean"] < high or np.ptp(v) == 0, (o["name"], o["mean_ci"], o["mean"])
        # The percentile interval of the mean is close to the normal one, +-1.96 sd/sqrt(n).
        half = 1.96 * np.std(v, ddof=1) / np.sqrt(v.size)
        assert abs((high - low) / 2 - half) <= 0.25 * half, (o["name"], high - low, 2 * half)
    print(f"summary of {len(names)} outputs agrees with NumPy")


if __name__ == "__main__":
    main(*sys.argv[1:])
