#!/usr/bin/env bash
# Cost of a Python function as a model (contactuq.register_model), per evaluation: the textbook
# limit state g = R - S sampled N times through the engine, as a Python function called once per
# case, as a vectorized one (one call per block), and as the same formula in the compiled
# `expression` model; the wall times of the runs (best of REPEATS, -j 2) give the overhead per
# evaluation over the compiled model. RATIO python_model_overhead_us and
# python_vectorized_overhead_us are those overheads in microseconds.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/release}
N=${N:-200000}
REPEATS=${REPEATS:-3}
PYTHONPATH=python CONTACTUQ_CORE_DIR="$BUILD/python/contactuq" /usr/bin/python3 - "$N" "$REPEATS" <<'PY'
import os, sys, tempfile, time, tomllib
import numpy as np
import contactuq

n, repeats = int(sys.argv[1]), int(sys.argv[2])
contactuq.register_model("bench_r_minus_s", lambda R, S: (R - S, R / S), inputs={"R": "200 N", "S": "150 N"},
                         outputs={"g": "N", "safety_factor": ""})
contactuq.register_model("bench_r_minus_s_vec", lambda x: np.column_stack([x[:, 0] - x[:, 1], x[:, 0] / x[:, 1]]),
                         inputs={"R": "200 N", "S": "150 N"}, outputs={"g": "N", "safety_factor": ""},
                         vectorized=True)
with open("studies/expression_r_minus_s.toml", "rb") as f:
    study = tomllib.load(f)
study["sampling"]["samples"] = n

def best(model):
    s = dict(study, model=model)
    times = []
    with tempfile.TemporaryDirectory() as d:
        for _ in range(repeats):
            t = time.perf_counter()
            r = contactuq.run(s, output=os.path.join(d, "out.h5"), force=True, threads=2)
            times.append(time.perf_counter() - t)
            assert r["exit_code"] == 0, r
    return min(times)

compiled = best(study["model"])
python = best({"type": "bench_r_minus_s"})
vectorized = best({"type": "bench_r_minus_s_vec"})
per = lambda t: (t - compiled) / n * 1e6
print(f"{n} evaluations at -j 2 (best of {repeats}): expression model {compiled:.3f} s, Python function "
      f"{python:.3f} s ({per(python):.2f} us per evaluation more), vectorized {vectorized:.3f} s "
      f"({per(vectorized):.3f} us more)")
print(f"RATIO python_model_overhead_us {per(python):.3f}")
print(f"RATIO python_vectorized_overhead_us {per(vectorized):.3f}")
PY
