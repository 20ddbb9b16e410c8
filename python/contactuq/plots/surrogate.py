"""Figures of a surrogate file (the `surrogate` method): per output, the K-fold predictions
against the model's values with the 1:1 line (each point predicted by the fit made without its
fold, so the scatter is the honest error), and for a PCE the first and total Sobol indices read
from the expansion."""

import numpy as np

from .. import load
from .style import COLOURS, plt, save


def _kfold_figure(name, unit, y, predicted, q2, loo, outdir, fmt):
    fig, ax = plt.subplots(figsize=(5.2, 4.8), constrained_layout=True)
    ax.grid(True, alpha=0.3)
    low, high = float(min(y.min(), predicted.min())), float(max(y.max(), predicted.max()))
    ax.plot([low, high], [low, high], "-", color=COLOURS["reference"], linewidth=0.8, label="1:1")
    ax.plot(y, predicted, "o", color=COLOURS["primary"], markersize=3, alpha=0.8,
            label=f"K-fold: Q2 = {q2:.6g}")
    suffix = f" [{unit}]" if unit else ""
    ax.set_xlabel(f"{name}, model{suffix}")
    ax.set_ylabel(f"{name}, surrogate without the point's fold{suffix}")
    ax.set_title(f"{name}: K-fold predictions (post-selection LOO* {loo:.3g}, optimistic)", fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    return save(fig, outdir, f"{name}_kfold", fmt)


def _sobol_figure(name, inputs, first, total, outdir, fmt):
    fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * len(inputs) + 2), 3.8), constrained_layout=True)
    ax.grid(True, axis="y", alpha=0.3)
    at = np.arange(len(inputs))
    ax.bar(at - 0.2, first, 0.4, color=COLOURS["primary"], label="first order")
    ax.bar(at + 0.2, total, 0.4, color=COLOURS["secondary"], label="total")
    ax.set_xticks(at)
    ax.set_xticklabels(inputs, rotation=30 if len(inputs) > 4 else 0, ha="right" if len(inputs) > 4 else "center")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("Sobol index")
    ax.set_title(f"{name}: Sobol indices from the expansion", fontsize=9)
    ax.legend(fontsize=8)
    return save(fig, outdir, f"{name}_sobol", fmt)


def plot(path, outdir, fmt, args):
    r = load(path, "contactuq-surrogate")
    inputs = list(r.attr("surrogate", "inputs"))
    names = list(r.attr("surrogate", "outputs"))
    units = list(r.attr("surrogate", "output_units"))
    y = r["surrogate/y"]
    chosen = args.outputs or names
    written = []
    for j, name in enumerate(names):
        if name not in chosen:
            continue
        g = f"surrogate/outputs/{name}"
        written.append(_kfold_figure(name, units[j], y[:, j], r[f"{g}/kfold_predictions"],
                                     float(r.attr(g, "q2_kfold")), float(r.attr(g, "corrected_loo_error")),
                                     outdir, fmt))
        if f"{g}/sobol_first" in r:
            written.append(_sobol_figure(name, inputs, r[f"{g}/sobol_first"], r[f"{g}/sobol_total"], outdir, fmt))
    return written
