"""Figures of a reliability study (the `reliability` method): how subset simulation walked its
levels down to the failure domain (threshold and conditional probability per level, and the
running product P with its interval against the model calls spent), FORM's importance factors
alpha_i^2 signed by alpha_i, beside the probability each approximation (FORM, SORM's three
formulas, importance sampling) gives; for plain Monte Carlo the estimate with its interval."""

import textwrap

import numpy as np

from .. import load
from . import attempt
from .style import COLOURS, axis_label, display_unit, legend_outside, new_figure, plt, save

# Replicates of subset simulation drawn beside the first (more only thicken the grey).
_MAX_REPLICATES_DRAWN = 30


def _title(r):
    return f"{r.event} by {r.algorithm.replace('_', ' ')}"


def _estimate_text(r):
    if not np.isfinite(r.probability) or (r.probability == 0 and np.isfinite(r.ci95[1])):
        if np.isfinite(r.ci95[1]):
            return f"P <= {r.ci95[1]:.3g} (upper bound)"
        return "no estimate"
    if r.ci95[0] == r.ci95[1]:  # an approximation (FORM, SORM): no sampling interval
        return f"P = {r.probability:.3g}"
    return f"P = {r.probability:.3g} [{r.ci95[0]:.3g}, {r.ci95[1]:.3g}]"


def subset_figure(r, outdir, fmt):
    """Threshold and conditional probability per level, and the running product P against
    the model calls, of every replicate (the first in colour)."""
    s = r.subset
    runs = s["runs"]
    label, factor = display_unit(r.output_unit, r.output)
    fig, axes = plt.subplots(1, 3, figsize=(13.5, 4.2), constrained_layout=True)
    for ax in axes:
        ax.grid(True, alpha=0.3)
    threshold_ax, p_ax, running_ax = axes
    drawn = runs[:_MAX_REPLICATES_DRAWN]
    for k, run in enumerate(drawn):
        first = k == 0
        colour = COLOURS["primary"] if first else COLOURS["context"]
        width, alpha = (1.6, 1.0) if first else (0.7, 0.5)
        z = 3 if first else 2
        levels = np.arange(run["threshold"].size)
        name = "replicate 0" if len(runs) > 1 else None
        other = "other replicates" if k == 1 else None
        threshold_ax.plot(levels, run["threshold"] * factor, "o-", color=colour, linewidth=width, alpha=alpha, zorder=z,
                          markersize=4 if first else 2, label=name if first else other)
        p_ax.plot(levels, run["probability"], "o-", color=colour, linewidth=width, alpha=alpha, zorder=z,
                  markersize=4 if first else 2, label=name if first else other)
        calls = run["model_calls"]
        running_ax.plot(calls, run["running_probability"], "o-", color=colour, linewidth=width, alpha=alpha, zorder=z,
                        markersize=4 if first else 2,
                        label=("P up to the level, replicate 0" if len(runs) > 1 else "P up to the level")
                        if first else other)
        if first:
            running_ax.fill_between(calls, run["running_low"], run["running_high"], color=COLOURS["band"], alpha=0.35,
                                    linewidth=0, label="its 95 % interval (lognormal, the CoV up to the level)")
    threshold_ax.axhline(0.0, color=COLOURS["limit"], linestyle="--", linewidth=1.0, label="failure: margin 0")
    threshold_ax.set_xlabel("level i [-]")
    threshold_ax.set_ylabel(axis_label(f"threshold b_i of the margin of {r.output}", r.output_unit, r.output))
    threshold_ax.set_title("intermediate thresholds, down to the failure domain", fontsize=9)
    p_ax.axhline(s["p0"], color=COLOURS["reference"], linestyle=":", linewidth=1.0, label=f"p0 = {s['p0']:g}")
    p_ax.set_yscale("log")
    smallest = min([s["p0"]] + [float(np.min(run["probability"])) for run in drawn if run["probability"].size])
    p_ax.set_ylim(max(smallest / 3.0, 1e-300), 1.0)
    p_ax.set_xlabel("level i [-]")
    p_ax.set_ylabel("conditional probability p_i [-]")
    p_ax.set_title("p_i = P(g <= b_i | g <= b_(i-1))", fontsize=9)
    for ax in (threshold_ax, p_ax):
        ax.xaxis.get_major_locator().set_params(integer=True)
    # The file's estimate: at the end of the one run, or over every replicate (their calls
    # together) as a band across the runs.
    end = r.model_calls
    low, high = r.ci95
    if np.isfinite(r.probability) and r.probability > 0 and len(runs) == 1:
        # The interval as given, around its own middle: it need not contain the estimate.
        running_ax.errorbar([end], [0.5 * (low + high)], yerr=[0.5 * abs(high - low)], fmt="none",
                            ecolor=COLOURS["limit"], capsize=4, zorder=4, label=f"95 % interval ({r.interval})")
        running_ax.plot([end], [r.probability], "s", color=COLOURS["limit"], zorder=5, label="estimate")
    elif np.isfinite(r.probability) and r.probability > 0:
        running_ax.axhspan(low, high, color=COLOURS["limit"], alpha=0.2, linewidth=0, zorder=1)
        running_ax.axhline(r.probability, color=COLOURS["limit"], linewidth=1.2, zorder=1,
                           label=f"estimate of the {len(runs)} replicates ({end} calls) and its 95 % interval "
                                 f"({r.interval})")
    elif np.isfinite(high):
        running_ax.axhline(high, color=COLOURS["limit"], linestyle="--", linewidth=1.2, zorder=1,
                           label="upper bound of P: the failure domain was not reached")
    running_ax.set_yscale("log")
    running_ax.set_xlabel("model calls of the run [-]" if len(runs) > 1 else "model calls [-]")
    running_ax.set_ylabel("P(failure) up to the level [-]")
    running_ax.set_title(_estimate_text(r), fontsize=9)
    fig.suptitle(f"Subset simulation of {r.event}: {s['samples_per_level']} samples per level, "
                 f"{len(runs)} replicate{'' if len(runs) == 1 else 's'}{'' if r.resolved else ' (not resolved)'}",
                 fontsize=10)
    for ax in (threshold_ax, p_ax):  # below the axes, never over the levels
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)
    legend_outside(running_ax, fontsize=7)
    return save(fig, outdir, f"{r.output}_subset", fmt)


def _approximations(r):
    """(label, estimate, low, high) of every probability the file gives: FORM, SORM's three
    formulas, and the sampling estimate of importance sampling."""
    rows = []
    if r.form is not None and r.form["converged"]:
        rows.append((f"FORM, beta = {r.form['beta']:.4g}", r.form["probability"], np.nan, np.nan))
    if r.sorm is not None:
        for key, name in (("breitung", "SORM Breitung"), ("hohenbichler", "SORM Hohenbichler-Rackwitz"),
                          ("tvedt", "SORM Tvedt")):
            rows.append((name, float(r.sorm[key]), np.nan, np.nan))
    if r.algorithm == "importance":
        rows.append(("importance sampling", r.probability, r.ci95[0], r.ci95[1]))
    return rows


def _probability_axes(ax, rows):
    """Horizontal points on a log axis, one row per approximation, with intervals where given."""
    y = np.arange(len(rows))[::-1]
    for k, (name, p, low, high) in enumerate(rows):
        colour = COLOURS["limit"] if np.isfinite(low) else COLOURS["primary"]
        if not (np.isfinite(p) and p > 0) and np.isfinite(high) and high > 0:
            # No failure seen, or no level reached it: only an upper bound.
            ax.plot([high], [y[k]], "<", color=colour, markersize=8)
            ax.annotate(f"P < {high:.3g}", (high, y[k]), textcoords="offset points", xytext=(0, 7), ha="center",
                        fontsize=7)
            continue
        if not (np.isfinite(p) and p > 0):
            ax.text(0.5, y[k], "none", transform=ax.get_yaxis_transform(), va="center", ha="center", fontsize=8)
            continue
        if np.isfinite(low) and np.isfinite(high):
            # The interval as given (it need not contain p), its 0 end kept on the log axis.
            low = max(low, p * 1e-3)
            ax.errorbar([0.5 * (low + high)], [y[k]], xerr=[0.5 * abs(high - low)], fmt="none", ecolor=colour,
                        capsize=4)
            ax.plot([p], [y[k]], "s", color=colour)
        else:
            ax.plot([p], [y[k]], "o", color=colour)
        ax.annotate(f"{p:.4g}", (p, y[k]), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=7)
    ax.set_yticks(y)
    ax.set_yticklabels([row[0] for row in rows], fontsize=8)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xscale("log")
    finite = [v for row in rows for v in row[1:] if np.isfinite(v) and v > 0]  # a bound's 0 is no end
    if finite:
        # At least a decade, so that the log axis has labelled ticks and the rows read apart.
        low, high = min(finite) / 3.0, min(1.0, max(finite) * 3.0)
        ax.set_xlim(min(low, high / 10.0), high)
    ax.set_xlabel("P(failure) [-]")


def form_figure(r, outdir, fmt):
    """FORM's importance factors alpha_i^2 signed by alpha_i (largest on top); beside them the
    probability of each approximation the file holds (FORM, SORM, importance sampling)."""
    f = r.form
    alpha = f["alpha"]
    order = np.argsort(-alpha * alpha, kind="stable")
    rows = _approximations(r)
    beside = r.sorm is not None or r.algorithm == "importance"
    height = max(3.0, 1.2 + 0.35 * len(order))
    if beside:
        fig, (ax, p_ax) = plt.subplots(1, 2, figsize=(11.5, height), constrained_layout=True,
                                       gridspec_kw={"width_ratios": [1.1, 1.0]})
        ax.grid(True, alpha=0.3)
        p_ax.grid(True, alpha=0.3)
    else:
        fig, ax = new_figure(width=6.4, height=height)
    y = np.arange(order.size)[::-1]
    signed = np.sign(alpha[order]) * alpha[order] ** 2
    colours = [COLOURS["limit"] if a > 0 else COLOURS["primary"] for a in alpha[order]]
    ax.barh(y, signed, color=colours, height=0.6)
    for k, v in enumerate(signed):
        ax.annotate(f"{abs(v):.3f}", (v, y[k]), textcoords="offset points", xytext=(4 if v >= 0 else -4, 0),
                    ha="left" if v >= 0 else "right", va="center", fontsize=7)
    ax.set_yticks(y)
    ax.set_yticklabels([r.inputs[i] for i in order], fontsize=8)
    ax.axvline(0.0, color=COLOURS["reference"], linewidth=0.8)
    ax.set_xlim(-1.15, 1.15)
    ax.set_xlabel("importance factor alpha_i^2, signed by alpha_i [-]")
    # Proxy artists: the colours say which way each input pushes toward failure.
    ax.barh([np.nan], [np.nan], color=COLOURS["limit"], label="alpha_i > 0: larger values fail sooner")
    ax.barh([np.nan], [np.nan], color=COLOURS["primary"], label="alpha_i < 0: smaller values fail sooner")
    others = f"; {f['other_design_points']} other design point(s)" if f["other_design_points"] else ""
    ax.set_title(f"FORM design point of {r.event}: beta = {f['beta']:.4g}, P = {f['probability']:.3g}{others}",
                 fontsize=9)
    if beside:
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=1, frameon=False)
        _probability_axes(p_ax, rows)
        p_ax.set_title(f"P(failure) by each approximation; reported: {_estimate_text(r)}", fontsize=9)
    else:
        legend_outside(ax, fontsize=7)
    return save(fig, outdir, f"{r.output}_form", fmt)


def probability_figure(r, outdir, fmt):
    """The file's estimate with its interval (plain Monte Carlo, or any file without the
    figures above)."""
    fig, ax = new_figure(width=6.4, height=2.6)
    _probability_axes(ax, [(r.algorithm.replace("_", " "), r.probability, *r.ci95)])
    title = f"{_title(r)}: {_estimate_text(r)}, {r.model_calls} model calls"
    if not r.resolved:
        title += "\n" + textwrap.fill(f"not resolved: {r.note}" if r.note else "not resolved", 100)
    ax.set_title(title, fontsize=8)
    return save(fig, outdir, f"{r.output}_probability", fmt)


def plot(path, outdir, fmt, args):
    r = load(path, "contactuq-reliability")
    written = []
    if r.subset is not None and r.subset["runs"]:
        written.append(attempt(args, f"{r.output}_subset", subset_figure, r, outdir, fmt))
    if r.form is not None and r.form["alpha"].size == len(r.inputs) and r.form["alpha"].size > 0:
        written.append(attempt(args, f"{r.output}_form", form_figure, r, outdir, fmt))
    if not any(written):
        written.append(attempt(args, f"{r.output}_probability", probability_figure, r, outdir, fmt))
    return [w for w in written if w]
