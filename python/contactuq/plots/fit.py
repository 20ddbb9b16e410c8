"""Figures of a calibration (`contactuq fit`, format "contactuq-fit"): the measured insertion
force of every insertion with the fitted model over it (Williams SAND2015-20731, Figure 26
style), and the residuals along the stroke, per insertion and direction.

`plot(path, outdir, fmt, args)` returns the files it wrote; `contactuq plot FILE.h5` calls it.
Values are stored in SI; the figures use the report units of the fit study (root attributes
length_unit/length_factor and force_unit/force_factor).
"""

import numpy as np

from .. import _texts, load
from .style import legend_outside, plt, save, series_colour


def _read(path):
    r = load(path, "contactuq-fit")
    d = dict(r.attrs)
    d["insertions"] = _texts(r["insertions"])
    for k in ("insertion", "direction", "x", "force", "fitted", "residual"):
        d[k] = r[f"data/{k}"]
    d["curve_x"] = r["model_curve/x"]
    d["curve_fwd"] = r["model_curve/forward"]
    d["curve_rev"] = r["model_curve/reverse"]
    d["names"] = _texts(r["parameters/names"])
    d["units"] = _texts(r["parameters/units"])
    for k in ("value", "low", "high", "clustered_low", "clustered_high", "bootstrap_low", "bootstrap_high"):
        d["p_" + k] = r[f"parameters/{k}"]
    return d


def _parameter_text(d):
    """One line per fitted parameter with its widest interval (Jacobian, clustered, bootstrap)."""
    lines = []
    for i, name in enumerate(d["names"]):
        if name.startswith("offset["):
            continue
        unit = d["units"][i]
        value, low, high = d["p_value"][i], d["p_low"][i], d["p_high"][i]
        kind = "Jacobian"
        for other in ("clustered", "bootstrap"):
            lo, hi = d[f"p_{other}_low"][i], d[f"p_{other}_high"][i]
            if np.isfinite(lo) and hi - lo > high - low:
                low, high, kind = lo, hi, other
        lines.append(f"{name} = {value:.5g} [{low:.5g}, {high:.5g}] {unit} ({kind})")
    return "\n".join(lines)


def plot(path, outdir, fmt, args=None):
    d = _read(path)
    lu, lf = d["length_unit"], float(d["length_factor"])
    fu, ff = d["force_unit"], float(d["force_factor"])
    title = d.get("title", "")
    conf = int(round(100 * float(d["confidence"])))
    written = []

    # Figure 26: measured insertions (points) and the fitted model (lines), forward and reverse.
    fig, ax = plt.subplots(figsize=(7.0, 4.6), constrained_layout=True)
    ax.grid(True, alpha=0.3)
    for k, label in enumerate(d["insertions"]):
        sel = d["insertion"] == k
        ax.plot(d["x"][sel] * lf, d["force"][sel] * ff, ".", ms=2.5, alpha=0.6, color=series_colour(k),
                label=f"measured, insertion {label}")
    ax.plot(d["curve_x"] * lf, d["curve_fwd"] * ff, "-", color="k", lw=1.6, label="fitted model, forward stroke")
    ax.plot(d["curve_x"] * lf, d["curve_rev"] * ff, "--", color="k", lw=1.6, label="fitted model, reverse stroke")
    ax.set_xlabel(f"displacement x [{lu}]")
    ax.set_ylabel(f"force on the receptacle F [{fu}]")
    ax.set_title(f"{title}\nmeasured and fitted insertion force", fontsize=9)
    # Beside the axes, under the legend: never over the data.
    ax.text(1.02, 0.0, _parameter_text(d) + f"\n({conf} % intervals, SI)", transform=ax.transAxes, fontsize=7,
            va="bottom", ha="left", bbox=dict(boxstyle="round", fc="white", alpha=0.8))
    legend_outside(ax, fontsize=7)
    written.append(save(fig, outdir, "fit_curves", fmt))

    # Residuals F_model - F along the stroke, forward and reverse panels.
    fig, axes = plt.subplots(2, 1, figsize=(7.0, 5.2), sharex=True, constrained_layout=True)
    for ax, direction, name in ((axes[0], 0, "forward"), (axes[1], 1, "reverse")):
        ax.grid(True, alpha=0.3)
        ax.axhline(0.0, color="k", lw=0.8)
        for k, label in enumerate(d["insertions"]):
            sel = (d["insertion"] == k) & (d["direction"] == direction)
            if not sel.any():
                continue
            r = d["residual"][sel] * ff
            ax.plot(d["x"][sel] * lf, r, ".", ms=2.5, color=series_colour(k),
                    label=f"insertion {label}: rms {np.sqrt(np.mean(r ** 2)):.3g}, bias {np.mean(r):+.2g} {fu}")
        ax.set_ylabel(f"F_model - F [{fu}]")
        ax.set_title(f"residuals, {name} stroke", fontsize=9)
        legend_outside(ax, fontsize=7)
    axes[1].set_xlabel(f"displacement x [{lu}]")
    fig.suptitle(f"{title}: rms {float(d['rms']) * ff:.3g} {fu} over {int(d['points'])} points", fontsize=9)
    written.append(save(fig, outdir, "fit_residuals", fmt))
    return written
