#!/usr/bin/python3
"""A Python function as a contactuq model: the limit state g = R - S of
studies/expression_r_minus_s.toml, written in Python instead of as a formula, sampled by the same
study. P(g < 0) = Phi(-50 / sqrt(20^2 + 10^2)) = 0.0127 (docs/python.md, "Your own Python
function as a model").

    PYTHONPATH=python CONTACTUQ_CORE_DIR=build/release/python/contactuq \
        /usr/bin/python3 studies/python_r_minus_s.py out/python_r_minus_s.h5
"""
import os
import sys
import tomllib

import contactuq


def limit_state(R, S):  # forces in N, as declared below
    return {"g": R - S, "safety_factor": R / S}


contactuq.register_model("python_r_minus_s", limit_state, inputs={"R": "200 N", "S": "150 N"},
                         outputs={"g": "N", "safety_factor": ""})

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "expression_r_minus_s.toml"), "rb") as f:
    study = tomllib.load(f)
study["model"] = {"type": "python_r_minus_s"}
output = sys.argv[1] if len(sys.argv) > 1 else "python_r_minus_s.h5"
result = contactuq.run(study, output=output, force=True)
limit = contactuq.analyze(output)["outputs"][0]["limit"]
print(f"{result['planned']} cases, {result['failed']} failed; P(g < 0 N) = {limit}")
sys.exit(result["exit_code"])
