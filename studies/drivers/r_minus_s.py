#!/usr/bin/env python3
"""The limit state g = R - S of studies/external_r_minus_s.toml as a program of its own, the way a
user's simulator is driven (docs/external-models.md): read params.json in the current folder,
write results.json there. Standard library only."""
import json

with open("params.json") as f:
    params = json.load(f)
R = params["inputs"]["R"]  # in N, the units the study writes R in
S = params["inputs"]["S"]  # in N
with open("results.json", "w") as f:
    json.dump({"outputs": {"g": R - S, "safety_factor": R / S}}, f)
