#!/usr/bin/env python3
"""Admissibility sweep of the impact laws through the CLI.

For every built-in material (data/materials.toml) a 10 mm sphere (--radius) is dropped on a flat of the same
material with every law of studies/impact_models.toml, at log-spaced approach speeds from 1e-3 to
10 m/s (`contactuq impact`). Reports, per law, the largest coefficient of restitution and the
most negative dissipated energy (relative to the kinetic energy), and for Etsion's law the yield
onset found by bracketing (the first impact that leaves a permanent set) against
delta_y = (pi K 2.8 sigma_y / (2 E))^2 R, K = 0.454 + 0.41 nu (Kogut & Etsion 2002).

  scripts/impact_law_sweep.py [--cli build/release/contactuq] [--points 40] [--radius 10]
                              [--out DIR] [--no-onset]

Exit status 1 when some e > 1 + tolerance or some dissipation < -tolerance, or an onset misses by
more than 1 %. Standard library only.
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RADIUS = 0.01  # sphere radius [m]
# Integrator noise allowed on e and on the dissipation: the studies run at rtol 1e-10.
TOLERANCE = 1e-6

SI = {"GPa": 1e9, "MPa": 1e6, "Pa": 1.0, "kg/m^3": 1.0}


def materials():
    out, name = {}, None
    with open(os.path.join(ROOT, "data", "materials.toml")) as f:
        for line in f:
            m = re.match(r"^\[(\w+)\]", line)
            if m:
                name = m.group(1)
                out[name] = {}
                continue
            m = re.match(r'^(\w+)\s*=\s*"?([0-9.eE+-]+)\s*([^"]*)"?\s*$', line)
            if name and m and m.group(1) in ("modulus", "poisson", "yield_strength", "density"):
                out[name][m.group(1)] = float(m.group(2)) * SI.get(m.group(3).strip(), 1.0)
    return out


def laws_block():
    with open(os.path.join(ROOT, "studies", "impact_models.toml")) as f:
        text = f.read()
    start = text.index("[[laws]]")
    end = text.index("[output]")
    return text[start:end]


def study(material, mass, speeds, laws):
    values = ", ".join(f"\"{v:.17g} m/s\"" for v in speeds)
    return f"""[study]
kind = "impact"
title = "sweep {material}"

[impact]
approach_velocity = [{values}]
relative_tolerance = 1e-10
absolute_tolerance = 1e-12

[impact.body_1]
material = "{material}"
radius = "{RADIUS * 1e3} mm"
mass = "{mass * 1e3:.17g} g"

[impact.body_2]
material = "{material}"
radius = "flat"
mass = "fixed"

{laws}
"""


def run(cli, text, workdir, stem):
    path = os.path.join(workdir, stem + ".toml")
    csv_path = os.path.join(workdir, stem + ".csv")
    with open(path, "w") as f:
        f.write(text)
    subprocess.run([cli, "impact", path, "-o", csv_path], check=True, stdout=subprocess.DEVNULL)
    with open(csv_path) as f:
        return list(csv.DictReader(f))


def onset(cli, name, m, mass, workdir):
    """Etsion's yield onset by bracketing: the peak overlaps of the last elastic and the first
    plastic impact, against the prediction."""
    e = m["modulus"] / (2 * (1 - m["poisson"] ** 2))  # effective modulus of two equal bodies
    k = 0.454 + 0.41 * m["poisson"]
    dy = (math.pi * k * 2.8 * m["yield_strength"] / (2 * e)) ** 2 * RADIUS
    kh = 4.0 / 3.0 * e * math.sqrt(RADIUS)
    vy = math.sqrt(2 * 0.4 * kh * dy ** 2.5 / mass)
    law = '[[laws]]\nname = "etsion"\n'
    lo, hi = 0.05 * vy, 20 * vy
    for n in (60, 60, 60):
        speeds = [lo * (hi / lo) ** (i / (n - 1)) for i in range(n)]
        rows = run(cli, study(name, mass, speeds, law), workdir, f"onset_{name}")
        plastic = [float(r["residual_overlap [m]"]) > 1e-7 * float(r["peak_overlap [m]"])
                   for r in rows]
        if not any(plastic) or plastic[0]:
            return dy, float("nan"), float("nan")
        i = plastic.index(True)
        lo, hi = speeds[i - 1], speeds[i]
        below, above = float(rows[i - 1]["peak_overlap [m]"]), float(rows[i]["peak_overlap [m]"])
    return dy, below, above


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "release", "contactuq"))
    ap.add_argument("--points", type=int, default=40)
    ap.add_argument("--out", help="keep the study files and CSVs here")
    ap.add_argument("--no-onset", action="store_true", help="skip the Etsion yield-onset check")
    ap.add_argument("--radius", type=float, default=10.0, help="sphere radius [mm] (default 10)")
    args = ap.parse_args()
    global RADIUS
    RADIUS = args.radius * 1e-3
    workdir = args.out or tempfile.mkdtemp(prefix="impact_sweep_")
    os.makedirs(workdir, exist_ok=True)
    n = args.points
    speeds = [1e-3 * 1e4 ** (i / (n - 1)) for i in range(n)]
    laws = laws_block()
    worst = {}  # law -> (e, material, v0)
    least = {}  # law -> (dissipated / kinetic, material, v0)
    failed = []
    mats = materials()
    for name, m in mats.items():
        mass = m["density"] * 4.0 / 3.0 * math.pi * RADIUS ** 3
        for r in run(args.cli, study(name, mass, speeds, laws), workdir, name):
            law, v0 = r["law"], float(r["approach_velocity [m/s]"])
            if r["status"] != "ok":
                failed.append((law, name, v0, r["message"]))
                continue
            e = float(r["restitution"])
            d = float(r["energy_dissipated [J]"]) / (0.5 * mass * v0 * v0)
            if law not in worst or e > worst[law][0]:
                worst[law] = (e, name, v0)
            if law not in least or d < least[law][0]:
                least[law] = (d, name, v0)
    bad = False
    print(f"{len(mats)} materials x {len(worst)} laws x {n} speeds (1e-3..10 m/s), "
          f"{len(failed)} failed")
    print(f"{'law':<22} {'max e':>10}  {'at':<40} {'min dissipated/KE':>18}")
    for law in worst:
        e, mat, v0 = worst[law]
        d, dmat, dv0 = least[law]
        flag = ""
        if e > 1 + TOLERANCE or d < -TOLERANCE:
            flag = "  <-- inadmissible"
            bad = True
        print(f"{law:<22} {e:>10.6f}  {mat + f' @ {v0:.3g} m/s':<40} {d:>18.3e}{flag}")
    for f in failed:
        print("failed:", *f)
    if not args.no_onset:
        print("\nEtsion yield onset: predicted delta_y = (pi K 2.8 sigma_y / 2E)^2 R vs bracket "
              "of the CLI's peak overlaps (last elastic, first plastic impact)")
        for name, m in mats.items():
            mass = m["density"] * 4.0 / 3.0 * math.pi * RADIUS ** 3
            dy, below, above = onset(args.cli, name, m, mass, workdir)
            ok = below / dy > 0.99 and above / dy < 1.01
            bad |= not ok
            print(f"  {name:<30} delta_y {dy:.4e} m   bracket [{below / dy:.4f}, {above / dy:.4f}]"
                  f" delta_y{'' if ok else '  <-- off by more than 1 %'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
