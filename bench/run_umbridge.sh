#!/usr/bin/env bash
# Per-evaluation overhead of the UM-Bridge bridge (docs/umbridge.md): the R - S expression study
# (studies/expression_r_minus_s.toml) sampled at -j 1 on the built-in model, then through
# `contactuq serve` of the same study and `[model] type = "umbridge"` (one HTTP request per
# evaluation over loopback). Best of REPS runs each; override with N=... REPS=...
#   RATIO umbridge_overhead_ms   (bridged - built-in wall time) / N, in ms per evaluation
#   RATIO umbridge_over_builtin  bridged wall time / built-in wall time
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/release}
/usr/bin/python3 - "$BUILD/contactuq" "${N:-5000}" "${REPS:-3}" <<'PY'
import os, sys, tempfile, time
sys.path.insert(0, os.path.join("tests", "cli"))
import umbridge_test as u  # the server and study helpers of the round-trip test

cli, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def best(text, tmp, name):
    walls = []
    for _ in range(reps):
        start = time.perf_counter()
        r, _ = u.run(cli, text, tmp, name, "-j", "1")
        walls.append(time.perf_counter() - start)
        if r.returncode != 0:
            sys.exit(f"{name}: {r.stderr}")
    return min(walls)


with tempfile.TemporaryDirectory() as tmp:
    direct = best(u.bridged_study(None, n), tmp, "direct")
    with u.server(cli, u.STUDY, "--concurrency", "1") as port:
        bridged = best(u.bridged_study(port, n), tmp, "bridged")
print(f"{n} evaluations at -j 1: built-in {direct:.3f} s, through UM-Bridge {bridged:.3f} s")
print(f"RATIO umbridge_overhead_ms {(bridged - direct) / n * 1e3:.4f}")
print(f"RATIO umbridge_over_builtin {bridged / direct:.2f}")
PY
