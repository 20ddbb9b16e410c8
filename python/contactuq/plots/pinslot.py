"""Plots of a `contactuq pinslot` file (format "contactuq-pinslot", docs/pinslot.md).

Figures in the style of Skrinjar et al. (seeds/003_...), Figures 8-13: the x and y components of
the contact force on body 1 (the pin) against time, filtered by the 301-point centred moving
average, one line per case; the raw force of each case behind its filtered one; and the path of
body 0's centre of mass.

    plot(path, outdir, fmt, args) -> list of files written

`args.outputs` may name any of "fx", "fy", "raw", "trajectory" (empty: all); `args.curves` may name
case labels (empty: all cases). Standalone:

    PYTHONPATH=python /usr/bin/python3 -m contactuq.plots.pinslot FILE.h5 --outdir DIR
"""

import argparse
import os

import numpy as np

from .. import _texts
from .. import load as load_result
from .style import COLOURS, legend_outside, plt, save, series_style

FIGURES = ("fx", "fy", "raw", "trajectory")


def load(path):
    """Cases of a pinslot file: list of dicts (label, joint, law, arrays, summary)."""
    r = load_result(path, "contactuq-pinslot")
    cases = []
    for label in _texts(r.attr("cases", "labels")):
        g = f"cases/{label}"
        case = {"label": label, "joint": r.attr(g, "joint"), "law": r.attr(g, "law"), "status": r.attr(g, "status")}
        for name in ("time", "fx", "fy", "fx_filtered", "fy_filtered", "x0", "y0", "theta0"):
            case[name] = r[f"{g}/{name}"]
        case["summary"] = {k: float(r[f"{g}/summary/{k}"][0]) for k in r.children(f"{g}/summary")}
        cases.append(case)
    return r.attrs.get("title", ""), cases


# The pin-slot figures are saved at matplotlib's default 100 dpi (the others at style.save's 150).
_DPI = 100


def _component(cases, key, ylabel, title, outdir, stem, fmt):
    fig, ax = plt.subplots(figsize=(7, 4))
    for k, c in enumerate(cases):
        colour, ls = series_style(k)
        ax.plot(c["time"] * 1e3, c[key], color=colour, ls=ls, lw=1.2,
                label=f"{c['label']} ({c['joint'].upper()}, {c['law']})")
    ax.set_xlabel("time t [ms]")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    legend_outside(ax, fontsize=8)
    fig.tight_layout()
    return save(fig, outdir, stem, fmt, dpi=_DPI)


def _raw(cases, title, outdir, stem, fmt):
    fig, axes = plt.subplots(len(cases), 2, figsize=(9, 2.2 * len(cases) + 0.6), squeeze=False, sharex=True)
    for row, c in zip(axes, cases):
        for ax, (raw, filt, name) in zip(row, (("fx", "fx_filtered", "$F_x^1$"), ("fy", "fy_filtered", "$F_y^1$"))):
            ax.plot(c["time"] * 1e3, c[raw], color="0.7", lw=0.6, label="raw")
            ax.plot(c["time"] * 1e3, c[filt], color=COLOURS["primary"], lw=1.3, label="301-point average")
            ax.set_ylabel(f"{name} [N]")
            ax.set_title(f"{c['label']}: {name}", fontsize=9)
            ax.grid(True, alpha=0.3)
            # The raw impacts reach far beyond the filtered force; clip the view to show both.
            lim = 3 * max(np.max(np.abs(c[filt])), 1e-9)
            ax.set_ylim(-lim, lim)
    for ax in axes[-1]:
        ax.set_xlabel("time t [ms]")
    legend_outside(axes[0][-1], fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return save(fig, outdir, stem, fmt, dpi=_DPI)


def _trajectory(cases, title, outdir, stem, fmt):
    fig, ax = plt.subplots(figsize=(6, 4))
    for k, c in enumerate(cases):
        colour, ls = series_style(k)
        ax.plot((c["x0"] - c["x0"][0]) * 1e3, (c["y0"] - c["y0"][0]) * 1e3, color=colour, ls=ls, label=c["label"])
    ax.set_xlabel("body 0 centre of mass: x - x(0) [mm]")
    ax.set_ylabel("y - y(0) [mm]")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    legend_outside(ax, fontsize=8)
    fig.tight_layout()
    return save(fig, outdir, stem, fmt, dpi=_DPI)


def plot(path, outdir, fmt, args):
    title, cases = load(path)
    wanted = list(getattr(args, "curves", None) or [])
    if wanted:
        known = [c["label"] for c in cases]
        missing = [w for w in wanted if w not in known]
        if missing:
            raise ValueError(f"unknown case(s) {missing}; known: {known}")
        cases = [c for c in cases if c["label"] in wanted]
    figures = list(getattr(args, "outputs", None) or FIGURES)
    for name in figures:
        if name not in FIGURES:
            raise ValueError(f"unknown figure '{name}'; known: {list(FIGURES)}")
    os.makedirs(outdir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(path))[0]
    written = []
    for name in figures:
        out = (outdir, f"{stem}_{name}", fmt)
        if name == "fx":
            written.append(_component(cases, "fx_filtered", "$F_x^1$ [N] (301-point average)",
                                      f"{title}\nx component of the contact force on body 1", *out))
        elif name == "fy":
            written.append(_component(cases, "fy_filtered", "$F_y^1$ [N] (301-point average)",
                                      f"{title}\ny component of the contact force on body 1", *out))
        elif name == "raw":
            written.append(_raw(cases, title, *out))
        else:
            written.append(_trajectory(cases, f"{title}\npath of body 0", *out))
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--outdir", default=".")
    parser.add_argument("--format", default="png", choices=("png", "svg"))
    parser.add_argument("--output", dest="outputs", action="append", default=[])
    parser.add_argument("--curve", dest="curves", action="append", default=[])
    args = parser.parse_args()
    for f in plot(args.file, args.outdir, args.format, args):
        print(f)


if __name__ == "__main__":
    main()
