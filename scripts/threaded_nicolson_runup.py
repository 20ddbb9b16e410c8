#!/usr/bin/env python3
"""Outcome table of scripts/threaded_nicolson_runup.toml: Nicolson's rows 5.1-1..3
over run-up (ramp, thesis) x grasp damping (0, 0.2) x Pi = (p/v) sqrt(k_t/m).

    contactuq run scripts/threaded_nicolson_runup.toml -o out/threaded_nicolson_runup.h5 -j 2
    /usr/bin/python3 scripts/threaded_nicolson_runup.py out/threaded_nicolson_runup.h5

Prints one line per (row, run-up, damping) with the outcome at each Pi (E engaged, X cross-threaded,
J jammed, T tipped, N no start, I inconclusive, F failed sample) and the final tilt and phase
error of each start, the table of docs/threaded-insertion.md ("Run-up: the ramp against the thesis").
"""
import math
import re
import sys
from collections import defaultdict

import h5py
import numpy as np

CODES = "EXJTNI"
PI = [1, 3, 10, 30, 100, 300]


def as_str(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def main(path):
    with h5py.File(path, "r") as f:
        cases = [as_str(c) for c in f["metadata"].attrs["epistemic_cases"]]
        names = [as_str(n) for n in f["outputs"].attrs["names"]]
        out = f["outputs"][...]
        status = f["status"][...]
    per = len(out) // len(cases)
    col = {n: names.index(n) for n in ("outcome", "final_tilt", "max_tilt", "phase_error", "time_to_engage")}
    table = defaultdict(dict)
    for c, label in enumerate(cases):
        key = dict(kv.split("=", 1) for kv in label.split(", ") if "=" in kv)
        feed = float(re.match(r"[-+0-9.eE]+", key["feed"]).group(0))
        for i in range(c * per, (c + 1) * per):
            o = out[i]
            code = "F" if status[i] != 0 or not math.isfinite(o[col["outcome"]]) else CODES[int(o[col["outcome"]])]
            table[(key["row"], key["runup"], key["damping_ratio"])][feed] = (
                code, math.degrees(o[col["max_tilt"]]), math.degrees(o[col["final_tilt"]]), o[col["phase_error"]])
    feeds = sorted({f for v in table.values() for f in v}, reverse=True)
    print("row    runup  zeta  " + " ".join(f"Pi={p:<4}" for p in PI[: len(feeds)]) + "   (max tilt deg / final tilt deg / phase rad)")
    for (row, runup, zeta), v in sorted(table.items()):
        codes = " ".join(f"{v[f][0]:<7}" for f in feeds)
        detail = "; ".join(f"{v[f][1]:.1f}/{v[f][2]:.1f}/{v[f][3]:+.2f}" for f in feeds)
        print(f"{row:6} {runup:6} {float(zeta):<5g} {codes}  {detail}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/threaded_nicolson_runup.h5")
