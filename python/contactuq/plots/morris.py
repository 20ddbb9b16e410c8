"""Figures of a Morris screening (the `morris` method): for each output, every screened input's
mean absolute elementary effect mu* against the spread sigma of its effects, mu* with its
bootstrap interval. Inputs far right matter; high above the diagonal they act through
interactions or non-linearly."""

import numpy as np

from .style import axis_label, display_unit, legend_outside, new_figure, save, series_colour


def morris_figure(m, j, outdir, fmt):
    """The mu*-sigma figure of output j of the Morris results `m` (Ensemble.morris)."""
    name, unit = m["outputs"][j], m["units"][j]
    _, factor = display_unit(unit, name)
    mu_star = np.asarray(m["mu_star"][j], dtype=float) * factor
    sigma = np.asarray(m["sigma"][j], dtype=float) * factor
    low = np.asarray(m["mu_star_low"][j], dtype=float) * factor
    high = np.asarray(m["mu_star_high"][j], dtype=float) * factor
    fig, ax = new_figure()
    for k, inp in enumerate(m["inputs"]):
        if not np.isfinite(mu_star[k]):
            continue
        ax.errorbar([mu_star[k]], [sigma[k]], xerr=[[mu_star[k] - low[k]], [high[k] - mu_star[k]]], fmt="o",
                    color=series_colour(k), capsize=3, label=inp)
    top = np.nanmax(np.concatenate([high, sigma, [0.0]]))
    if top > 0:
        ax.plot([0, top], [0, top], color="0.6", linestyle="--", linewidth=0.8, label="sigma = mu*")
    ax.set_xlim(left=0)
    spread = np.nanmax(np.concatenate([sigma, [0.0]]))
    # The diagonal may leave the axes: sigma's range decides the height, so the points stay apart.
    ax.set_ylim(0, 1.25 * spread if spread > 0 else (top if top > 0 else 1.0))
    ax.set_xlabel(axis_label(f"mu* of {name}", unit, name))
    ax.set_ylabel(axis_label(f"sigma of {name}", unit, name))
    ax.set_title(f"Morris screening of {name}: {m['trajectories']} trajectories, {m['levels']} levels",
                 fontsize=9)
    legend_outside(ax, fontsize=8)
    return save(fig, outdir, f"{name}_morris", fmt)
