"""Exits 0 when two HDF5 files hold the same datasets, bit for bit (NaN equal to NaN), and
prints the ones that differ otherwise.

    /usr/bin/python3 same_datasets.py A.h5 B.h5
"""
import sys

import h5py
import numpy as np


def datasets(f):
    names = []
    f.visititems(lambda name, obj: names.append(name) if isinstance(obj, h5py.Dataset) else None)
    return sorted(names)


def same(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape or x.dtype != y.dtype:
        return False
    if x.dtype.kind == "f":  # bits, so that -0 and +0 or two NaN payloads differ
        return x.tobytes() == y.tobytes()
    return np.array_equal(x, y)


with h5py.File(sys.argv[1], "r") as a, h5py.File(sys.argv[2], "r") as b:
    names = datasets(a)
    if names != datasets(b):
        sys.exit(f"different datasets: {sorted(set(names) ^ set(datasets(b)))}")
    differ = [n for n in names if not same(a[n][()], b[n][()])]
    print(f"{len(names)} datasets, {len(differ)} differ" + (": " + ", ".join(differ) if differ else ""))
    sys.exit(1 if differ else 0)
