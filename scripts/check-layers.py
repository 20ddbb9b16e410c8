#!/usr/bin/env python3
"""Checks that contactuq's modules point one way: each module includes only modules of lower
layers (LAYERS below, lowest first), so no include cycle can form.

    scripts/check-layers.py [ROOT]      # ROOT: the project root, default the parent of scripts/

A module is the folder right below src/ or include/contactuq/; files directly there (error.hpp)
are the "(top)" layer, usable by all. `#include "contactuq/<module>/..."` lines count, and so do
the library's private headers of another module, `#include "<module>/..."` where src/<module>/
exists (SUNDIALS glue in src/ode/, kept out of the public headers).
Exit status 0 when every include points down, 1 with one line per offending include otherwise,
2 for a module that has no layer yet (add it to LAYERS where its includes put it)."""
import os
import re
import sys

# Lowest first. A module may include itself and any module listed before it.
LAYERS = [
    "(top)",      # error.hpp: the exception types every module throws
    "units",      # quantities with units, SI conversion
    "uq",         # distributions, designs, estimators
    "io",         # study-file reader, HDF5 wrapper, ensemble store: variables and cases, no models
    "contact",    # force laws and the receptacle–pin geometry
    "ode",        # the ODE toolbox: dopri5 with dense output, event location on it, the CVODE handle
    "dynamics",   # single impact, switch mechanism (ODE systems with events)
    "multibody",  # planar bodies, joints, the pin-slot set-up
    "threaded",   # bolt and nut geometry, the threaded-insertion dynamics
    "model",      # the type-erased model, the registry and each concrete model with its table
    "study",      # methods over a model: curve, impact, pinslot, ensembles (sample, nested)
    "opt",        # robust design: measures over a study's ensemble, optimisers, their store
    "calibrate",  # fitting model parameters to measured curves
    "engine",     # one entry point for every study: method dispatch and the methods
    "mpi",        # sampling studies over the ranks of an MPI job (an engine executor)
    "cli",        # the contactuq executable
    "python",     # the Python extension contactuq._core: the engine and models from Python
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"(contactuq/)?([^/"]+)/', re.M)


def includes(root):
    """(source module, target module, path, line) for every cross-module include."""
    src = os.path.join(root, "src")
    private = {d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d))}
    for base in ("src", os.path.join("include", "contactuq")):
        base_path = os.path.join(root, base)
        for folder, _, files in os.walk(base_path):
            for name in sorted(files):
                if not name.endswith((".cpp", ".hpp", ".h", ".cc", ".ipp")):
                    continue
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, base_path).split(os.sep)
                source = parts[0] if len(parts) > 1 else "(top)"
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or (not m.group(1) and m.group(2) not in private):
                            continue
                        if m.group(2) != source:
                            yield source, m.group(2), os.path.relpath(path, root), number


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    rank = {m: i for i, m in enumerate(LAYERS)}
    unknown, wrong = set(), []
    for source, target, path, line in includes(root):
        for m in (source, target):
            if m not in rank:
                unknown.add(m)
        if source in rank and target in rank and rank[target] > rank[source]:
            wrong.append(f"{path}:{line}: {source} includes {target}, a higher layer")
    if unknown:
        for m in sorted(unknown):
            print(f"module '{m}' has no layer: add it to LAYERS in scripts/check-layers.py")
        return 2
    for w in wrong:
        print(w)
    if wrong:
        print("layers, lowest first: " + ", ".join(LAYERS))
        return 1
    print("layers point one way: " + " <- ".join(LAYERS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
