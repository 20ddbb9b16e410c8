#!/usr/bin/env python3
"""Test driver of the external model: y = 3 x + 2 and the curve c(s) = x s over s in [0, 4], with
x as params.json gives it (declared units). argv[1] picks a fault, made when x >= 1:
exit1, sleep, garbage, nan, rename, stderr10mb, child; "none" makes none; "mixed" makes each in
turn over x in [1, 1.875), one per eighth (x in [1.875, 2) and below 1: none)."""
import json
import math
import subprocess
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "none"
with open("params.json") as f:
    x = json.load(f)["inputs"]["x"]
result = {"outputs": {"y": 3 * x + 2}, "curves": {"c": {"x": [0, 2, 4], "y": [0, 2 * x, 4 * x]}}}
FAULTS = ["exit1", "sleep", "garbage", "nan", "rename", "stderr10mb", "child", "none"]
if mode == "mixed":
    mode = FAULTS[min(int((x - 1) * 8), 7)] if x >= 1 else "none"
if x >= 1:
    if mode == "exit1":
        print("driver: x = %g is out of range" % x, file=sys.stderr)
        sys.exit(1)
    if mode == "sleep":
        print("driver: sleeping", file=sys.stderr, flush=True)
        time.sleep(60)
    if mode == "garbage":
        with open("results.json", "w") as f:
            f.write("this is {not json")
        sys.exit(0)
    if mode == "nan":
        result["outputs"]["y"] = math.nan
    if mode == "rename":
        result["outputs"] = {"why": 3 * x + 2}
    if mode == "stderr10mb":
        line = "e" * 99 + "\n"
        for _ in range(100000):
            sys.stderr.write(line)
        print("driver: the last line", file=sys.stderr)
        sys.exit(3)
    if mode == "child":
        child = subprocess.Popen(["sleep", "300"])
        with open("child.pid", "w") as f:
            f.write(str(child.pid))
with open("results.json", "w") as f:
    json.dump(result, f)
