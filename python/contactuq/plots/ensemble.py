"""Figures of an ensemble (`contactuq run`): per scalar output a histogram and an empirical CDF,
per curve output the median over the samples with the 5-95 % band, per integer-coded output
(3 to 8 codes, e.g. outcome) the fraction of samples at each code. A nested study gets per
output the CDF of every epistemic case with their envelope (horsetail and p-box), P(1) of a 0/1
output per case and, with a pick-freeze design, bars of the Sobol indices per case. A single-case study also gets the
specification limits ([output.limits]) with P(violation) on its histograms and CDFs, 0/1 outputs
as a proportion with its interval and a map of P(1) over two inputs, and the input rankings (Spearman, PRCC, SRC) of every output,
all from `contactuq summarize --json --si`."""

import numpy as np

from .. import load
from . import attempt
from .morris import morris_figure
from .style import COLOURS, axis_label, display_unit, legend_outside, new_figure, save, series_colour, series_style
from .style import plt  # pyplot with the non-interactive backend that style selects


def _title(e):
    """The study's path, relative to the current folder when the study lies under it."""
    import os

    path = e.metadata.get("study_path", "")
    if os.path.isabs(path):
        relative = os.path.relpath(path)
        if not relative.startswith(".."):
            return relative
    return path


def _limit_lines(ax, limit, factor):
    """The specification limits as vertical lines, labelled with P(violation) and its interval."""
    if not limit:
        return
    p = limit["p_violation"]
    text = (f"limit: P(violation) = {_number(p['value']):.3g} "
            f"[{_number(p['ci'][0]):.3g}, {_number(p['ci'][1]):.3g}]")
    for side in ("low", "high"):
        v = limit.get(side)
        if v is not None and np.isfinite(v):
            ax.axvline(v * factor, color=COLOURS["limit"], linewidth=1.5, label=text)
            text = None  # one legend entry


def scalar_figures(e, name, outdir, fmt, limit=None):
    """Histogram and ECDF of output `name` over the samples that succeeded, with the study's
    specification limits ([output.limits]) and the probability of violating them."""
    unit = e.output_units[e.output_names.index(name)]
    _, factor = display_unit(unit, name)
    values = e.output(name)
    finite = values[np.isfinite(values)] * factor
    left_out = values.size - finite.size
    note = f"{finite.size} samples" + (f", {left_out} failed or not finite left out" if left_out else "")
    written = []

    fig, ax = new_figure()
    if finite.size:
        bins = min(60, max(10, int(np.sqrt(finite.size))))
        ax.hist(finite, bins=bins, color=COLOURS["primary"], alpha=0.8, edgecolor="white", linewidth=0.5)
        for p, style in ((5, ":"), (50, "--"), (95, ":")):
            q = np.percentile(finite, p)
            ax.axvline(q, color="k", linestyle=style, linewidth=1, label=f"{p} % quantile = {q:.4g}")
        _limit_lines(ax, limit, factor)
        legend_outside(ax, fontsize=8)
    ax.set_xlabel(axis_label(name, unit, name))
    ax.set_ylabel("samples")
    ax.set_title(f"{name}: histogram ({note})\n{_title(e)}", fontsize=9)
    written.append(save(fig, outdir, f"{name}_histogram", fmt))

    fig, ax = new_figure()
    if finite.size:
        x = np.sort(finite)
        f = np.arange(1, x.size + 1) / x.size
        ax.step(x, f, where="post", color=COLOURS["primary"], label="empirical CDF")
        # 95 % Dvoretzky-Kiefer-Wolfowitz band: sup |F_n - F| <= eps with probability 0.95.
        eps = np.sqrt(np.log(2 / 0.05) / (2 * x.size))
        ax.fill_between(x, np.clip(f - eps, 0, 1), np.clip(f + eps, 0, 1), step="post",
                        color=COLOURS["primary"], alpha=0.15, label="95 % DKW band")
        _limit_lines(ax, limit, factor)
        legend_outside(ax, fontsize=8)
    ax.set_xlabel(axis_label(name, unit, name))
    ax.set_ylabel("P(output <= x)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{name}: empirical CDF ({note})\n{_title(e)}", fontsize=9)
    written.append(save(fig, outdir, f"{name}_cdf", fmt))
    return written


def curve_figure(e, name, outdir, fmt):
    """Median over the successful samples with the 5-95 % band, against the curve's abscissa; a
    nested study gets one median and band per epistemic case (pooling them would mix model forms)."""
    info = e.curve_info[name]
    _, fy = display_unit(info["ordinate_unit"], name)
    _, fx = display_unit(info["abscissa_unit"], info["abscissa_name"])
    x = info["abscissa"] * fx
    all_values = e.curve(name)
    cases = e.metadata.get("epistemic_cases") or []
    per_case = int(e.metadata.get("aleatoric_samples", e.rows)) if cases else e.rows
    d = int(e.metadata.get("pick_freeze_inputs", 0))
    groups = []
    for c, label in enumerate(cases or [None]):
        rows = np.arange(c * per_case, min((c + 1) * per_case, e.rows))
        if d:
            rows = rows[:: d + 2]  # the A rows: a sample of the inputs' distribution
        rows = rows[e.ok[rows]]
        groups.append((label, all_values[rows]))
    fig, ax = new_figure(7.0 if cases else 6.4, 4.4)
    drawn = 0
    for k, (label, values) in enumerate(groups):
        if not values.shape[0] or not np.isfinite(values).any():
            continue  # e.g. a contact force under a restitution map, which has none
        colour, ls = series_style(k) if cases else (COLOURS["primary"], "-")
        if values.shape[0] == 1:  # one start per case (time histories): its curve, no band
            ax.plot(x, values[0] * fy, color=colour, ls=ls, linewidth=1.5, label=label or "sample")
            drawn += 1
            continue
        lo, med, hi = np.nanpercentile(values * fy, [5, 50, 95], axis=0)
        ax.fill_between(x, lo, hi, color=colour if cases else COLOURS["band"], alpha=0.2 if cases else 0.35,
                        linewidth=0, label=f"{label}: 5-95 % band" if cases else "5-95 % band")
        ax.plot(x, med, color=colour, ls=ls, linewidth=1.5, label=f"{label}: median" if cases else "median")
        drawn += values.shape[0]
    if drawn:
        legend_outside(ax, fontsize=7 if cases else 8)
    ax.set_xlabel(axis_label(info["abscissa_name"], info["abscissa_unit"], info["abscissa_name"]))
    ax.set_ylabel(axis_label(name, info["ordinate_unit"], name))
    what = f"per model ({len(cases)} epistemic cases)" if cases else "median and 5-95 % band"
    if drawn == len(groups) and all(v.shape[0] == 1 for _, v in groups):
        what = "one sample per case" if cases else "one sample"
    ax.set_title(f"{name}: {what} over {drawn} samples\n{_title(e)}", fontsize=9)
    return save(fig, outdir, f"{name}_band", fmt)


def plot(path, outdir, fmt, args):
    e = load(path)
    outputs = args.outputs or e.output_names
    curves = args.curves or list(e.curves)
    for name in outputs:
        if name not in e.output_names:
            raise KeyError(f"no output {name!r}; the outputs are: {', '.join(e.output_names)}")
    for name in curves:
        e.curve(name)  # raises KeyError listing the curves
    written = []

    def draw(figure, function, *a):
        # One figure (or None, or a list of them); one that fails is skipped (plots.attempt).
        chart = attempt(args, figure, function, *a)
        written.extend(chart if isinstance(chart, list) else [chart] if chart else [])

    nested = bool(e.metadata.get("epistemic_cases")) or int(e.metadata.get("pick_freeze_inputs", 0)) > 0
    full = _summary(path)
    summary = full.get("nested") if nested else None
    analysis = {o["name"]: o for o in full.get("outputs", [])}
    for name in outputs:
        if not nested:
            if "probability_of_1" in analysis.get(name, {}):
                draw(f"{name}_proportion", proportion_figure, e, name, outdir, fmt, analysis[name])
                draw(f"{name}_map", probability_map_figure, e, name, outdir, fmt, getattr(args, "map", None))
            else:
                draw(f"{name}_histogram and {name}_cdf", scalar_figures, e, name, outdir, fmt,
                     analysis.get(name, {}).get("limit"))
                draw(f"{name}_fractions", fractions_figure, e, name, outdir, fmt)
            continue
        by_case = {c["case"]: c for c in analysis.get(name, {}).get("by_case", [])}
        draw(f"{name}_horsetail", horsetail_figure, e, name, outdir, fmt, summary, by_case)
        if by_case and all("probability_of_1" in c for c in by_case.values()):
            draw(f"{name}_proportion_by_case", proportion_by_case_figure, e, name, by_case, outdir, fmt)
        draw(f"{name}_fractions", fractions_figure, e, name, outdir, fmt)
        ranked = {k: c for k, c in by_case.items() if "ranking" in c and "probability_of_1" not in c}
        if len(ranked) == len(by_case) > 1 and any(
                np.isfinite(_number(v["value"])) for c in ranked.values() for v in c["ranking"]["prcc"]):
            draw(f"{name}_prcc_by_model", prcc_by_model_figure, e, name, ranked, outdir, fmt)
        if int(e.metadata.get("pick_freeze_inputs", 0)) > 0 and _has_sobol_indices(summary, name):
            draw(f"{name}_sobol", sobol_figure, e, name, outdir, fmt, summary)
    if getattr(e, "morris", None):
        for n in outputs:
            if n in e.morris["outputs"]:
                draw(f"morris figure of {n}", morris_figure, e.morris, e.morris["outputs"].index(n), outdir, fmt)
    ranked = [n for n in outputs if "ranking" in analysis.get(n, {}) and "probability_of_1" not in analysis[n]]
    if not nested and ranked:
        draw("rankings", rankings_figure, e, ranked, analysis, outdir, fmt)
    for name in curves:
        draw(f"{name}_band", curve_figure, e, name, outdir, fmt)
    return written


def _interval_bars(ax, x, lo, hi, **kw):
    """Each 95 % interval [lo, hi] as drawn, at x, where both ends are finite. A percentile
    bootstrap interval need not contain its estimate (a skewed statistic of few samples): an
    error bar of estimate - lo, hi - estimate would then be negative."""
    ok = np.isfinite(lo) & np.isfinite(hi)
    if ok.any():
        ax.errorbar(np.asarray(x)[ok], 0.5 * (lo[ok] + hi[ok]), yerr=0.5 * np.abs(hi[ok] - lo[ok]), fmt="none",
                    ecolor="k", elinewidth=0.8, capsize=2, **kw)


def _summary(path):
    """`contactuq summarize --json --si` of the file: statistics, rankings, limits, proportions and,
    for nested studies, per-case statistics, decomposition and Sobol indices; SI, like the file."""
    import json
    import os
    import subprocess

    exe = os.environ.get("CONTACTUQ_EXE", "contactuq")
    out = subprocess.run([exe, "summarize", path, "--json", "--si", "--bootstrap", "300"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def _number(v):
    return np.nan if v is None else float(v)


def proportion_figure(e, name, outdir, fmt, analysis):
    """A 0/1 output (chatter, success): the proportion of 1 with its interval, not a histogram."""
    p = analysis["probability_of_1"]
    value, lo, hi = _number(p["value"]), _number(p["ci"][0]), _number(p["ci"][1])
    fig, ax = new_figure(5.0, 2.4)
    ax.barh([0], [value], color=COLOURS["primary"], height=0.5, label=f"P({name} = 1) = {value:.3g}")
    ax.errorbar([value], [0], xerr=[[max(0.0, value - lo)], [max(0.0, hi - value)]], color="k", capsize=6,
                label=f"95 % Wilson interval [{lo:.3g}, {hi:.3g}]")
    ax.set_xlim(0, 1)
    ax.set_yticks([])
    ax.set_xlabel(f"P({name} = 1) [-]")
    legend_outside(ax, fontsize=8)
    ax.set_title(f"{name}: {p['events']} of {p['trials']} samples are 1\n{_title(e)}", fontsize=9)
    return save(fig, outdir, f"{name}_proportion", fmt)


def proportion_by_case_figure(e, name, by_case, outdir, fmt):
    """A 0/1 output of a nested study: P(1) of every case with its 95 % Wilson interval, one bar per
    case on the same parts, so the cases compare side by side."""
    labels = list(by_case)
    p = [by_case[c]["probability_of_1"] for c in labels]
    value = np.array([_number(q["value"]) for q in p])
    lo = np.array([_number(q["ci"][0]) for q in p])
    hi = np.array([_number(q["ci"][1]) for q in p])
    y = np.arange(len(labels))[::-1]
    fig, ax = new_figure(6.4, 0.9 + 0.32 * len(labels))
    ax.barh(y, value, color=COLOURS["primary"], height=0.6)
    ax.errorbar(value, y, xerr=[np.maximum(0.0, value - lo), np.maximum(0.0, hi - value)], fmt="none",
                color="k", capsize=4)
    for yi, q in zip(y, p):
        ax.text(1.01, yi, f"{q['events']}/{q['trials']}", va="center", fontsize=7, transform=ax.get_yaxis_transform())
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"P({name} = 1) [-]")
    ax.set_title(f"{name}: P(1) per case, 95 % Wilson intervals\n{_title(e)}", fontsize=9)
    return save(fig, outdir, f"{name}_proportion_by_case", fmt)


def _codes(values):
    """The distinct values of an integer-coded output (outcome codes) with 3 to 8 of them; else None."""
    v = values[np.isfinite(values)]
    if not v.size or np.any(v != np.round(v)) or v.min() < 0:
        return None
    codes = np.unique(v)
    return codes if 3 <= codes.size <= 8 else None


def fractions_figure(e, name, outdir, fmt):
    """An integer-coded output (e.g. outcome codes): the fraction of samples at each value, stacked,
    one bar per epistemic case (one bar for a single-case study). None if the output is not coded."""
    values = e.output(name)
    codes = _codes(values)
    if codes is None:
        return None
    cases = e.metadata.get("epistemic_cases") or []
    per_case = int(e.metadata.get("aleatoric_samples", e.rows)) if cases else e.rows
    d = int(e.metadata.get("pick_freeze_inputs", 0))
    labels, shares = [], []
    for c, label in enumerate(cases or ["all samples"]):
        rows = np.arange(c * per_case, min((c + 1) * per_case, e.rows))
        if d:
            rows = rows[:: d + 2]
        v = values[rows]
        v = v[np.isfinite(v)]
        labels.append(f"{label} ({v.size})")
        shares.append([np.mean(v == k) if v.size else 0.0 for k in codes])
    shares = np.array(shares)
    y = np.arange(len(labels))[::-1]
    fig, ax = new_figure(6.4, 1.2 + 0.32 * len(labels))
    left = np.zeros(len(labels))
    for j, k in enumerate(codes):
        ax.barh(y, shares[:, j], left=left, height=0.6, color=series_colour(j), label=f"{name} = {k:g}")
        left += shares[:, j]
    ax.set_yticks(y, labels, fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of samples [-]")
    legend_outside(ax, fontsize=8)
    ax.set_title(f"{name}: fraction of samples at each value\n{_title(e)}", fontsize=9)
    return save(fig, outdir, f"{name}_fractions", fmt)


def _ranks(v):
    """Ranks 0..n-1 of v, ties given their mean rank."""
    order = np.argsort(v, kind="stable")
    ranks = np.empty(v.size)
    ranks[order] = np.arange(v.size)
    for value in np.unique(v[np.isfinite(v)]):
        tied = v == value
        if tied.sum() > 1:
            ranks[tied] = ranks[tied].mean()
    return ranks


def _map_axes(e, name, chosen):
    """The two inputs of the map: `chosen` ("X,Y"), else the two aleatoric inputs whose rank
    correlation with the output is largest in magnitude."""
    if chosen:
        axes = [a.strip() for a in chosen.split(",")]
        if len(axes) != 2:
            raise ValueError(f"--map {chosen!r}: give two inputs, X,Y")
        for a in axes:
            if a not in e.input_names:
                raise KeyError(f"--map: no input {a!r}; the inputs are: {', '.join(e.input_names)}")
        return axes
    y = e.output(name)
    ok = np.isfinite(y)
    scores = {}
    for j, a in enumerate(e.input_names):
        x = e.inputs[ok, j]
        if e.input_roles[j] != "aleatoric" or np.ptp(x) == 0 or np.ptp(y[ok]) == 0:
            continue
        scores[a] = abs(np.corrcoef(_ranks(x), _ranks(y[ok]))[0, 1])
    return sorted(scores, key=lambda a: -scores[a])[:2] if len(scores) >= 2 else None


def probability_grid(x, y, values, cells):
    """Equal-width cells over the ranges of x and y: their edges, and per cell (row: y, column: x)
    the sum of the 0/1 values and the number of samples."""
    edges = [np.linspace(v.min(), v.max(), cells + 1) for v in (x, y)]
    index = [np.clip(np.searchsorted(ed, v, side="right") - 1, 0, cells - 1) for ed, v in zip(edges, (x, y))]
    ones, count = np.zeros((cells, cells)), np.zeros((cells, cells))
    np.add.at(count, (index[1], index[0]), 1)
    np.add.at(ones, (index[1], index[0]), values)
    return edges, ones, count


def probability_map_figure(e, name, outdir, fmt, chosen=None):
    """A 0/1 output over two inputs: P(1) in each cell of a grid (equal widths over the sampled
    range; about 8 samples per cell, 2 to 8 cells per axis), the count in the cell written in it.
    None when there are too few samples (fewer than 16) or inputs to map over."""
    y = e.output(name)
    ok = np.isfinite(y)
    axes = _map_axes(e, name, chosen)
    if ok.sum() < 16 or not axes:
        return None
    cells = int(np.clip(np.floor(np.sqrt(ok.sum() / 8)), 2, 8))
    units = [e.input_units[e.input_names.index(a)] for a in axes]
    factors = [display_unit(u, a)[1] for a, u in zip(axes, units)]
    edges, ones, count = probability_grid(*(e.input(a)[ok] * f for a, f in zip(axes, factors)), y[ok], cells)
    p = np.where(count > 0, ones / np.maximum(count, 1), np.nan)
    fig, ax = plt.subplots(figsize=(6.4, 4.8), constrained_layout=True)
    cmap = plt.get_cmap("RdYlGn").copy()
    cmap.set_bad("#dddddd")
    mesh = ax.pcolormesh(edges[0], edges[1], np.ma.masked_invalid(p), cmap=cmap, vmin=0, vmax=1)
    for i in range(cells):
        for k in range(cells):
            cx, cy = 0.5 * (edges[0][k] + edges[0][k + 1]), 0.5 * (edges[1][i] + edges[1][i + 1])
            text = "no\nsamples" if count[i, k] == 0 else f"{p[i, k]:.2f}\n{int(ones[i, k])}/{int(count[i, k])}"
            ax.text(cx, cy, text, ha="center", va="center", fontsize=7)
    fig.colorbar(mesh, ax=ax, label=f"P({name} = 1)")
    ax.set_xlabel(axis_label(axes[0], units[0], axes[0]))
    ax.set_ylabel(axis_label(axes[1], units[1], axes[1]))
    how = "" if chosen else " (the two inputs most rank-correlated with it)"
    ax.set_title(f"{name}: P(1) over {axes[0]} x {axes[1]}{how}, {int(ok.sum())} samples; "
                 f"cell text: P, ones/samples\n{_title(e)}", fontsize=9)
    return save(fig, outdir, f"{name}_map", fmt)


def rankings_figure(e, names, analysis, outdir, fmt):
    """Spearman, PRCC and SRC of each aleatoric input, one panel per output, with intervals."""
    inputs = analysis[names[0]]["ranking"]["inputs"]
    fig, axes = plt.subplots(len(names), 1, figsize=(min(10.0, max(6.4, 2.5 + 0.9 * len(inputs))),
                                                     1.0 + 1.7 * len(names)),
                             sharex=True, squeeze=False, constrained_layout=True)
    x = np.arange(len(inputs))
    width = 0.26
    for ax, name in zip(axes[:, 0], names):
        r = analysis[name]["ranking"]
        for k, (key, label, colour) in enumerate((("spearman", "Spearman", COLOURS["primary"]),
                                                  ("prcc", "PRCC", COLOURS["secondary"]),
                                                  ("src", "SRC", COLOURS["tertiary"]))):
            vals = np.array([_number(c["value"]) for c in r[key]])
            lo = np.array([_number(c["ci"][0]) for c in r[key]])
            hi = np.array([_number(c["ci"][1]) for c in r[key]])
            # An undefined coefficient (e.g. PRCC of an output that is a function of one input) is
            # marked, not drawn as zero.
            ax.bar(x + (k - 1) * width, np.where(np.isfinite(vals), vals, 0.0), width, color=colour, label=label)
            _interval_bars(ax, x + (k - 1) * width, lo, hi)
            for i in np.flatnonzero(~np.isfinite(vals)):
                ax.text(x[i] + (k - 1) * width, 0.05, "n/a", rotation=90, ha="center", va="bottom", fontsize=6)
        ax.axhline(0, color="k", linewidth=0.6)
        ax.set_ylim(-1.05, 1.05)
        ax.grid(True, axis="y", alpha=0.3)
        r2 = _number(r["r2"]["value"])
        ax.set_ylabel(f"{name}\n(R\u00b2 {r2:.2f})", fontsize=8)
    axes[-1, 0].set_xticks(x, inputs, rotation=25, ha="right")
    legend_outside(axes[0, 0], fontsize=8)
    axes[0, 0].set_title(f"Which inputs drive each output (95 % bootstrap intervals; SRC apply where R\u00b2 is "
                         f"near 1)\n{_title(e)}", fontsize=9)
    return save(fig, outdir, "rankings", fmt)


def prcc_by_model_figure(e, name, by_case, outdir, fmt):
    """The PRCC of each aleatoric input with the output under each epistemic case: a matrix
    (inputs x models) on a diverging scale, values written in the cells; whether the models
    agree on what drives the output."""
    labels = list(by_case)
    inputs = by_case[labels[0]]["ranking"]["inputs"]
    prcc = np.array([[_number(v["value"]) for v in by_case[c]["ranking"]["prcc"]] for c in labels]).T
    fig, ax = plt.subplots(figsize=(min(10.0, 2.8 + 1.1 * len(labels)), 1.4 + 0.42 * len(inputs)),
                           constrained_layout=True)
    im = ax.imshow(np.where(np.isfinite(prcc), prcc, 0.0), cmap="PuOr_r", vmin=-1, vmax=1, aspect="auto")
    for i in range(len(inputs)):
        for k in range(len(labels)):
            v = prcc[i, k]
            ax.text(k, i, "n/a" if not np.isfinite(v) else f"{v:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if np.isfinite(v) and abs(v) > 0.6 else "black")
    ax.set_xticks(np.arange(len(labels)), labels, rotation=25, ha="right", fontsize=8)
    ax.set_yticks(np.arange(len(inputs)), inputs, fontsize=8)
    fig.colorbar(im, ax=ax, label="partial rank correlation (PRCC)")
    samples = by_case[labels[0]].get("samples")
    ax.set_title(f"{name}: which inputs drive it under each model"
                 f"{f' ({samples} samples each)' if samples else ''}\n{_title(e)}", fontsize=9)
    return save(fig, outdir, f"{name}_prcc_by_model", fmt)


def _case_values(e, j, c):
    """Distribution samples of output j under case c (A rows of a pick-freeze design)."""
    per_case = int(e.metadata.get("aleatoric_samples", e.rows))
    d = int(e.metadata.get("pick_freeze_inputs", 0))
    rows = np.arange(c * per_case, min((c + 1) * per_case, e.rows))
    if d:
        rows = rows[:: d + 2]
    return e.outputs[rows, j]


def horsetail_figure(e, name, outdir, fmt, summary, by_case=None):
    """Family of empirical CDFs, one per epistemic case, with their envelope (the p-box); with
    specification limits, the limits as lines and each model's P(violation) in its label."""
    j = e.output_names.index(name)
    unit = e.output_units[j]
    _, factor = display_unit(unit, name)
    cases = e.metadata.get("epistemic_cases") or ["nominal"]
    fig, ax = new_figure(7.0, 4.6)
    grid_values = []
    curves = []
    for c, label in enumerate(cases):
        v = _case_values(e, j, c) * factor
        v = np.sort(v[np.isfinite(v)])
        if v.size == 0:
            continue
        f = np.arange(1, v.size + 1) / v.size
        colour, ls = series_style(c)
        p = ((by_case or {}).get(label, {}).get("limit") or {}).get("p_violation")
        text = label if not p else f"{label}: P(violation) {_number(p['value']):.3g} [{_number(p['ci'][0]):.3g}, {_number(p['ci'][1]):.3g}]"
        ax.step(v, f, where="post", linewidth=1.2, color=colour, ls=ls, label=text)
        grid_values.append(v)
        curves.append(v)
    limit = next((c["limit"] for c in (by_case or {}).values() if c.get("limit")), None)
    for side in ("low", "high"):
        v = (limit or {}).get(side)
        if v is not None and np.isfinite(_number(v)):
            # Black: the models' lines already use every series colour, the limit's included.
            ax.axvline(_number(v) * factor, color=COLOURS["reference"], linewidth=1.5, ls=(0, (5, 2)),
                       label=f"specification limit ({side})")
    grid = np.unique(np.concatenate(grid_values)) if grid_values else np.array([])
    if len(curves) > 1 and grid.size > 1:  # one value everywhere (a constant output): no band to draw
        cdfs = np.array([np.searchsorted(v, grid, side="right") / v.size for v in curves])
        ax.fill_between(grid, cdfs.min(axis=0), cdfs.max(axis=0), step="post", color="0.6", alpha=0.25,
                        label="p-box (envelope over models)")
    note = ""
    if summary:
        for o in summary["outputs"]:
            if o["name"] == name and "decomposition" in o:
                share = o["decomposition"]["epistemic_share_percent"]
                if share["value"] is None:  # no variance at all: the share is undefined
                    note = "; no variance, epistemic share undefined"
                elif None in share["ci"]:
                    note = f"; epistemic share of the variance {share['value']:.1f} %"
                else:
                    note = (f"; epistemic share of the variance {share['value']:.1f} % "
                            f"[{share['ci'][0]:.1f}, {share['ci'][1]:.1f}]")
    ax.set_xlabel(axis_label(name, unit, name))
    ax.set_ylabel("P(output <= x)")
    ax.set_ylim(0, 1)
    legend_outside(ax, fontsize=7)
    ax.set_title(f"{name}: CDF per model (horsetail){note}\n{_title(e)}", fontsize=9)
    return save(fig, outdir, f"{name}_horsetail", fmt)


def _has_sobol_indices(summary, name):
    """Whether any case has a defined index (an output without variance has none)."""
    o = next((o for o in summary["outputs"] if o["name"] == name), {})
    return any(s["value"] is not None for c in o.get("cases", []) if "sobol" in c
               for order in ("first_order", "total_order") for s in c["sobol"][order])


def sobol_figure(e, name, outdir, fmt, summary):
    """Bars of first- and total-order Sobol indices per aleatoric input, one group per case."""
    o = next(o for o in summary["outputs"] if o["name"] == name)
    inputs = summary["aleatoric_inputs"]
    cases = [c for c in o["cases"] if "sobol" in c]
    # A report page wide at most: more cases make thinner bars, not a wider figure.
    fig, ax = new_figure(min(10.0, max(6.4, 2.0 + 1.0 * len(inputs))), 4.4)
    width = 0.8 / (2 * len(cases))
    x = np.arange(len(inputs))
    for k, c in enumerate(cases):
        for order, hatch in (("first_order", ""), ("total_order", "//")):
            vals = np.array([s["value"] if s["value"] is not None else np.nan for s in c["sobol"][order]])
            lo = np.array([s["ci"][0] if s["ci"][0] is not None else np.nan for s in c["sobol"][order]])
            hi = np.array([s["ci"][1] if s["ci"][1] is not None else np.nan for s in c["sobol"][order]])
            pos = x - 0.4 + width * (2 * k + (order == "total_order") + 0.5)
            ax.bar(pos, np.where(np.isfinite(vals), vals, 0.0), width, hatch=hatch,
                   color=series_colour(k), edgecolor="k", linewidth=0.4,
                   label=f"{c['label']}: {'first' if order == 'first_order' else 'total'} order")
            _interval_bars(ax, pos, lo, hi)
    ax.axhline(0, color="k", linewidth=0.6)
    ax.set_xticks(x, inputs, rotation=25, ha="right")  # long input names must not overlap
    ax.set_ylabel("Sobol index [-]")
    legend_outside(ax, fontsize=7)
    ax.set_title(f"{name}: Sobol indices of the aleatoric inputs (95 % bootstrap intervals)\n{_title(e)}",
                 fontsize=9)
    return save(fig, outdir, f"{name}_sobol", fmt)
