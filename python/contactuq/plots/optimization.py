"""Figures of a robust-design run (`contactuq optimize`, format "contactuq-optimization"):
convergence histories (every evaluation and the best feasible objective so far, per model), the
regret matrix as a heat map, the designs evaluated in the design space, and for two objectives
the Pareto front. The layout is documented in docs/robust-design.md."""

import numpy as np

from .. import _texts, load
from .style import COLOURS, axis_label, display_unit, legend_outside, new_figure, save, series_colour, series_style

PHASES = ("global", "local", "cross", "models_global", "models_local")


def read(path):
    """The file as a dict of numpy arrays: history rows that are complete, and results if any."""
    r = load(path, "contactuq-optimization")
    history = r.children("history")
    rows = min(len(r[f"history/{name}"]) for name in history)
    status = r["history/status"][:rows]
    rows = int(np.argmax(status == -1)) if np.any(status == -1) else rows
    d = {
        "study_path": r.attr("metadata", "study_path", ""),
        "algorithm": r.attr("metadata", "algorithm", ""),
        "design_names": _texts(r.attr("design", "names")),
        "design_units": _texts(r.attr("design", "units")),
        "low": np.asarray(r.attr("design", "low")),
        "high": np.asarray(r.attr("design", "high")),
        "objectives": _texts(r.attr("objectives", "names")),
        "objective_units": _texts(r.attr("objectives", "units")),
        "senses": _texts(r.attr("objectives", "senses")),
        "constraints": _texts(r.attr("constraints", "names")),
        "models": _texts(r.attr("models", "names")),
        "model": r["history/model"][:rows],
        "phase": r["history/phase"][:rows],
        "x": r["history/x"][:rows],
        "f": r["history/objectives"][:rows],
        "violation": r["history/violation"][:rows],
        "results": None,
    }
    if "results" in r:
        res = {"best_x": r["results/best_x"], "best_objectives": r["results/best_objectives"],
               "feasible": r["results/feasible"]}
        for name in ("regret", "cross", "cross_feasible"):
            if f"results/{name}" in r:
                res[name] = r[f"results/{name}"]
        if "results/robust" in r:
            res["robust_x"] = r["results/robust/x"]
        if "results/pareto" in r:
            res["pareto"] = {int(k): r[f"results/pareto/{k}/objectives"] for k in r.children("results/pareto")}
        d["results"] = res
    return d


def _title(d, what):
    return f"{what}\n{d['study_path']} ({d['algorithm']})"


def convergence(d, outdir, fmt, tolerance=1e-6):
    """Objective of every evaluation (feasible dots, infeasible crosses) and the best feasible
    objective so far, per model, over the evaluation index of the whole run."""
    label, factor = display_unit(d["objective_units"][0])
    maximize = d["senses"][0] == "maximize"
    fig, ax = new_figure(7.2, 4.4)
    index = np.arange(d["f"].shape[0])
    own = np.isin(d["phase"], (0, 1))
    for m, name in enumerate(d["models"]):
        sel = own & (d["model"] == m)
        f = d["f"][sel, 0] * factor
        feasible = d["violation"][sel] <= tolerance
        color, ls = series_style(m)
        ax.plot(index[sel][feasible], f[feasible], ".", color=color, alpha=0.35, markersize=4,
                label=f"{name}: feasible evaluations")
        if np.any(~feasible & np.isfinite(f)):
            ax.plot(index[sel][~feasible], f[~feasible], "x", color=color, alpha=0.3, markersize=3,
                    label=f"{name}: infeasible")
        best = np.where(feasible, f, np.inf if not maximize else -np.inf)
        best = np.maximum.accumulate(best) if maximize else np.minimum.accumulate(best)
        ok = np.isfinite(best)
        ax.step(index[sel][ok], best[ok], where="post", color=color, ls=ls, linewidth=2,
                label=f"{name}: best feasible")
        local = sel & (d["phase"] == 1)
        if np.any(local) and np.any(sel & (d["phase"] == 0)):
            ax.axvline(index[local][0], color=color, linestyle=":", linewidth=1)
    ax.set_xlabel("evaluation (in order; dotted: start of the local polish)")
    ax.set_ylabel(axis_label(d["objectives"][0], d["objective_units"][0], d["objectives"][0]).replace(f"[{d['objective_units'][0]}]", f"[{label}]"))
    ax.set_title(_title(d, "Convergence"), fontsize=9)
    finite = d["f"][own, 0][np.isfinite(d["f"][own, 0])] * factor
    if finite.size > 4:  # keep the poor outliers of the first generations from squashing the rest
        lo, hi = np.percentile(finite, [10, 100] if maximize else [0, 90])
        pad = 0.05 * (hi - lo if hi > lo else abs(hi) + 1e-12)
        ax.set_ylim(lo - pad, hi + pad)
    legend_outside(ax, fontsize=7)
    return save(fig, outdir, "convergence", fmt)


_BEST_MARKERS = ["*", "D", "^", "s", "v", "p", "h", "<", ">"]


def designs(d, outdir, fmt, tolerance=1e-6):
    """Evaluated designs in the plane of the first two design variables (or over the one), coloured
    by objective; the best design per model marked."""
    names, units = d["design_names"], d["design_units"]
    fig, ax = new_figure(6.4, 5.0)
    x = d["x"]
    feasible = d["violation"] <= tolerance
    _, f0 = display_unit(units[0])
    # The objective in the unit the convergence figure uses, on the colour bar and the axis.
    objective_label = axis_label(d["objectives"][0], d["objective_units"][0], d["objectives"][0])
    _, objective_factor = display_unit(d["objective_units"][0])
    objective = d["f"][:, 0] * objective_factor
    if len(names) >= 2:
        _, f1 = display_unit(units[1])
        xs, ys = x[:, 0] * f0, x[:, 1] * f1
        ylabel = axis_label(names[1], units[1])
    else:
        xs, ys = x[:, 0] * f0, objective
        ylabel = objective_label
    sc = ax.scatter(xs[feasible], ys[feasible], c=objective[feasible], s=10, cmap="viridis",
                    label="feasible")
    ax.scatter(xs[~feasible], ys[~feasible], marker="x", color=COLOURS["context"], s=8, label="infeasible")
    fig.colorbar(sc, ax=ax, label=objective_label)
    if d["results"] is not None:
        bx = d["results"]["best_x"]
        for m, name in enumerate(d["models"]):
            by = bx[m, 1] * f1 if len(names) >= 2 else d["results"]["best_objectives"][m, 0] * objective_factor
            # Marker and colour per model: optima that coincide stay apart, and colour is not the only cue.
            ax.plot(bx[m, 0] * f0, by, _BEST_MARKERS[m % len(_BEST_MARKERS)], markersize=13 - 2 * (m % 3),
                    markeredgecolor="k", color=series_colour(m), label=f"best for {name}")
        if "robust_x" in d["results"] and len(names) >= 2:
            rx = d["results"]["robust_x"]
            ax.plot(rx[0] * f0, rx[1] * f1, "P", markersize=12, markeredgecolor="k", color="w",
                    label="best over all models")
    ax.set_xlabel(axis_label(names[0], units[0]))
    ax.set_ylabel(ylabel)
    ax.set_title(_title(d, "Designs evaluated"), fontsize=9)
    # Below the axes: beside them it would push the colour bar away from the data it scales.
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, borderaxespad=0.0)
    return save(fig, outdir, "designs", fmt)


def regret(d, outdir, fmt):
    """Heat map of the regret matrix: design optimal for model i (row) under model j (column)."""
    r = d["results"]["regret"]
    label, factor = display_unit(d["objective_units"][0])
    # Wide enough for the two-line title and the colour bar's label at any number of models.
    fig, ax = new_figure(max(6.0, 2.6 + 1.1 * r.shape[1]), max(3.6, 1.8 + 0.9 * r.shape[0]))
    ax.grid(False)
    im = ax.imshow(r * factor, cmap="magma_r")
    for i in range(r.shape[0]):
        for j in range(r.shape[1]):
            star = "" if d["results"]["cross_feasible"][i, j] else "*"
            ax.text(j, i, f"{r[i, j] * factor:.3g}{star}", ha="center", va="center", fontsize=8,
                    color="k" if r[i, j] <= 0.5 * max(r.max(), 1e-300) else "w")
    ax.set_xticks(range(r.shape[1]), d["models"], rotation=30, ha="right")
    ax.set_yticks(range(r.shape[0]), d["models"])
    ax.set_xlabel("evaluated under model")
    ax.set_ylabel("design optimal for model")
    fig.colorbar(im, ax=ax, label=f"regret of {d['objectives'][0]} [{label}]")
    ax.set_title(_title(d, "Regret matrix (* infeasible)"), fontsize=9)
    return save(fig, outdir, "regret", fmt)


def pareto(d, outdir, fmt, tolerance=1e-6):
    """Every feasible evaluation in the plane of the two objectives, and the Pareto front."""
    f0, f1 = (display_unit(unit)[1] for unit in d["objective_units"][:2])
    fig, ax = new_figure()
    feasible = d["violation"] <= tolerance
    ax.plot(d["f"][feasible, 0] * f0, d["f"][feasible, 1] * f1, ".", color="0.7", markersize=3,
            label="feasible evaluations")
    for m, front in d["results"]["pareto"].items():
        order = np.argsort(front[:, 0])
        colour, ls = series_style(m)
        ax.plot(front[order, 0] * f0, front[order, 1] * f1, marker="o", ls=ls, color=colour, markersize=4,
                label=f"Pareto front, {d['models'][m]}")
    ax.set_xlabel(axis_label(d["objectives"][0], d["objective_units"][0]))
    ax.set_ylabel(axis_label(d["objectives"][1], d["objective_units"][1]))
    ax.set_title(_title(d, "Pareto front"), fontsize=9)
    legend_outside(ax, fontsize=8)
    return save(fig, outdir, "pareto", fmt)


def plot(path, outdir, fmt, args=None):
    d = read(path)
    written = []
    if d["f"].shape[0] == 0:
        return written
    written.append(convergence(d, outdir, fmt))
    written.append(designs(d, outdir, fmt))
    res = d["results"]
    # Regret compares the models' optima: with one model there is nothing to compare.
    if res is not None and "regret" in res and res["regret"].shape[0] > 1:
        written.append(regret(d, outdir, fmt))
    if res is not None and "pareto" in res:
        written.append(pareto(d, outdir, fmt))
    return written
