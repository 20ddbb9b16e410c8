"""Figures of a receptacle-pin curve study (`contactuq curve` / `contactuq sweep`, format
"contactuq-curve"): the insertion force along the stroke, forward (inserting) and reverse
(withdrawing) strokes told apart by line style, with the peak insertion and withdrawal forces
marked; per arm group its forces, angles and lever arms with the first-contact and critical
displacements x_c, x_cr,1..4 (Williams SAND2015-20731 eq. 1.80) as vertical lines.

A sweep (method "sweep") draws one curve per swept value (the value in the legend, or a colour
bar when there are many), and the scalar results (peak forces, their positions, the contact
displacements that change) against the swept value.

`plot(path, outdir, fmt, args)` returns the files it wrote; `contactuq plot FILE.h5` calls it.
Every dataset carries its `units`: the writer has already converted to the study's [output]
units (e.g. in, grf, deg), which are shown as they are; SI values (no [output] units) are shown
in the display units of style.display_unit. Units are looked up by unit only, never by variable
name, so that values already in the study's units are not converted twice.
"""

import matplotlib
import numpy as np

from .. import load
from .style import COLOURS, OKABE_ITO, axis_label, display_unit, legend_outside, plt, save

# Arm-state fields stored per group, by panel of the group figure.
_GROUP_PANELS = (("forces on one arm", ("Fx", "Fy", "Fn", "Ft")),
                 ("angles", ("theta", "alpha")),
                 ("lever arms", ("Lmn", "Lmt")))
_SUMMARY = ("peak_insertion", "peak_insertion_x", "peak_withdrawal", "peak_withdrawal_x")
# Sweeps with more values than this get a colour bar instead of one legend entry per value.
_MAX_LEGEND_VALUES = 8
# Arm-state fields of the group figure, by their place in a panel.
_GROUP_COLOURS = (COLOURS["primary"], COLOURS["secondary"], COLOURS["tertiary"], COLOURS["quaternary"])
# Contact displacements x_c, x_cr,1..4 against the swept value: (colour, line style) each, so that
# they differ in more than colour; the marker tells the group.
_CRITICAL_STYLES = ((COLOURS["limit"], ":"), (OKABE_ITO["bluish green"], "--"),
                    (OKABE_ITO["reddish purple"], "-."), (OKABE_ITO["sky blue"], (0, (3, 1, 1, 1, 1, 1))),
                    (OKABE_ITO["black"], (0, (6, 1.5, 1, 1.5))))


def _read(path):
    r = load(path, "contactuq-curve")
    missing = [k for k in ("x", "v_norm", "Fx_total", "Fy_total", "groups") if k not in r]
    if missing:
        raise ValueError(f"{path}: curve file without {', '.join('/' + k for k in missing)}")
    title = r.attrs.get("title", "")
    if not title and "study" in r:
        title = r.attr("study", "title", "")
    d = {"title": title or r.attrs.get("model", ""), "method": r.attrs.get("method", "evaluate")}
    d["x"] = r.quantity("x")
    d["v_norm"] = r["v_norm"]
    for k in ("Fx_total", "Fy_total"):
        d[k] = r.quantity(k)
    d["groups"] = []
    for name in sorted(r.children("groups"), key=lambda g: (0, int(g[1:]), g) if g[1:].isdigit() else (1, 0, g)):
        g = f"groups/{name}"
        d0 = r.attr(g, "d0", None)
        group = {"name": name, "direction": r.attr(g, "direction", ""), "count": int(r.attr(g, "count", 1)),
                 "d0": (float(d0), r.attr(g, "d0_units", "")) if d0 is not None else None}
        for k in r.children(g):
            group[k] = r.quantity(f"{g}/{k}")
        d["groups"].append(group)
    d["summary"] = {k: r.quantity(f"summary/{k}") for k in _SUMMARY if f"summary/{k}" in r}
    if "sweep" in r:
        values, unit = r.quantity("sweep")
        d["sweep"] = (r.attr("sweep", "parameter", "swept value"), unit, values)
    rows = d["Fx_total"][0].shape[0]
    if rows == 0:
        raise ValueError(f"{path}: the curve file holds no curves")
    if d["method"] == "sweep" and ("sweep" not in d or len(d["sweep"][2]) != rows):
        raise ValueError(f"{path}: a sweep without a /sweep dataset of {rows} values")
    return d


def _strokes(v_norm):
    """Index arrays of the forward (inserting, v > 0) and reverse strokes."""
    forward = np.flatnonzero(v_norm > 0)
    reverse = np.flatnonzero(v_norm < 0)
    return (("forward", forward, "-"), ("reverse", reverse, "--"))


def _value_text(sweep, value):
    name, unit, _ = sweep
    label, factor = display_unit(unit)
    return f"{name} = {value * factor:.4g}" + (f" {label}" if label else "")


def _case_styles(d):
    """(colour, label) per curve; a colour map over the swept value for a sweep."""
    rows = d["Fx_total"][0].shape[0]
    if "sweep" not in d:
        return [(COLOURS["primary"], None)] * rows, None
    values = d["sweep"][2]
    if rows <= 1 or np.ptp(values) == 0:
        norm = matplotlib.colors.Normalize(vmin=values.min() - 0.5, vmax=values.max() + 0.5)
    else:
        norm = matplotlib.colors.Normalize(vmin=values.min(), vmax=values.max())
    cmap = plt.get_cmap("viridis")
    # Keep the bright end of viridis off the white background (up to 0.8: 1.9:1 contrast; 0.9 was 1.5:1).
    colours = [cmap(_VIRIDIS_TOP * norm(v)) for v in values]
    return list(zip(colours, [_value_text(d["sweep"], v) for v in values])), (cmap, norm)


_VIRIDIS_TOP = 0.8


def _colour_bar(fig, ax, d, scale):
    cmap, norm = scale
    name, unit, _ = d["sweep"]
    _, factor = display_unit(unit)
    mapped = matplotlib.colors.Normalize(vmin=norm.vmin * factor, vmax=norm.vmax * factor)
    shown = matplotlib.colors.ListedColormap(cmap(np.linspace(0, _VIRIDIS_TOP, 256)))
    sm = matplotlib.cm.ScalarMappable(norm=mapped, cmap=shown)
    fig.colorbar(sm, ax=ax, pad=0.02, label=axis_label(name, unit))


def _stroke_legend(ax):
    """Legend entries for the two line styles (colours stand for the swept value)."""
    ax.plot([], [], "-", color="0.3", label="forward stroke (inserting)")
    ax.plot([], [], "--", color="0.3", label="reverse stroke (withdrawing)")


def _mark_peaks(ax, d, case, colour, x_factor, f_factor, labelled):
    s = d["summary"]
    for key, marker, text in (("peak_insertion", "v", "peak insertion"), ("peak_withdrawal", "^", "peak withdrawal")):
        if key not in s or key + "_x" not in s:
            continue
        x, force = s[key + "_x"][0][case], s[key][0][case]
        if not (np.isfinite(x) and np.isfinite(force)):
            continue
        # The summary stores magnitudes; the marker goes on the curve at that displacement.
        stroke = d["v_norm"] > 0 if key == "peak_insertion" else d["v_norm"] < 0
        xs, ys = d["x"][0][stroke], d["Fx_total"][0][case][stroke]
        y = ys[np.argmin(np.abs(xs - x))]
        ax.plot(x * x_factor, y * f_factor, marker, ms=6, mfc="none", mew=1.3, color=colour if not labelled else "k",
                label=f"{text}: {force * f_factor:.4g} at x = {x * x_factor:.4g}" if labelled else None)


def _force_figure(d, outdir, fmt):
    """Fx_total (and Fy_total) of all arms along the stroke."""
    x, x_unit = d["x"]
    _, x_factor = display_unit(x_unit)
    styles, scale = _case_styles(d)
    many = scale is not None and len(styles) > _MAX_LEGEND_VALUES
    fig, axes = plt.subplots(2, 1, figsize=(7.5, 6.4), sharex=True, constrained_layout=True,
                             gridspec_kw={"height_ratios": (2.0, 1.0)})
    for ax, key, name in ((axes[0], "Fx_total", "Fx_total, pin on receptacle along +x"),
                          (axes[1], "Fy_total", "Fy_total, across the stroke")):
        values, unit = d[key]
        _, factor = display_unit(unit)
        ax.grid(True, alpha=0.3)
        ax.axhline(0.0, color="k", lw=0.6)
        for case, (colour, label) in enumerate(styles):
            for stroke, idx, ls in _strokes(d["v_norm"]):
                text = None
                if scale is None:
                    text = f"{stroke} stroke"
                elif stroke == "forward" and not many:
                    text = label
                ax.plot(x[idx] * x_factor, values[case][idx] * factor, ls, lw=1.3, color=colour, label=text)
            if key == "Fx_total":
                _mark_peaks(ax, d, case, colour, x_factor, factor, labelled=scale is None)
        if scale is not None:
            _stroke_legend(ax)
            if key == "Fx_total":
                ax.plot([], [], "v", mfc="none", color="0.3", label="peak insertion")
                ax.plot([], [], "^", mfc="none", color="0.3", label="peak withdrawal")
        ax.set_ylabel(axis_label(name, unit))
        if many:
            _colour_bar(fig, ax, d, scale)
        legend_outside(ax)
    axes[1].set_xlabel(axis_label("displacement x", x_unit))
    arms = ", ".join(f"{g['count']} x {g['direction'] or g['name']}" for g in d["groups"])
    axes[0].set_title(f"{d['title']}\nforce along the stroke ({arms} arms)", fontsize=9)
    return save(fig, outdir, "curve_force", fmt)


def _critical_lines(ax, group, case, x_factor, labelled):
    """First contact x_c and critical displacements x_cr,1..4 as vertical lines."""
    if "x_c" in group:
        xc = group["x_c"][0][case]
        if np.isfinite(xc):
            ax.axvline(xc * x_factor, color=COLOURS["limit"], lw=0.9, ls=":",
                       label=f"first contact x_c = {xc * x_factor:.4g}" if labelled else None)
    if "x_cr" in group:
        for k, xk in enumerate(np.atleast_2d(group["x_cr"][0])[case]):
            if np.isfinite(xk):
                ax.axvline(xk * x_factor, color="0.45", lw=0.8, ls=(0, (1, 2)))
                ax.text(xk * x_factor, 1.0, f"{k + 1}", transform=ax.get_xaxis_transform(), ha="center",
                        va="bottom", fontsize=7, color="0.35")
        if labelled:
            ax.plot([], [], color="0.45", lw=0.8, ls=(0, (1, 2)), label="x_cr,1..4 (numbered above)")


def _group_figure(d, group, outdir, fmt):
    """One arm of a group: forces, angles and lever arms along the stroke (first case only)."""
    x, x_unit = d["x"]
    _, x_factor = display_unit(x_unit)
    panels = [(t, [k for k in keys if k in group]) for t, keys in _GROUP_PANELS]
    panels = [(t, keys) for t, keys in panels if keys]
    fig, axes = plt.subplots(len(panels), 1, figsize=(7.5, 2.5 * len(panels) + 0.6), sharex=True,
                             constrained_layout=True, squeeze=False)
    for ax, (title, keys) in zip(axes[:, 0], panels):
        ax.grid(True, alpha=0.3)
        units = sorted({group[k][1] for k in keys})
        for k, colour in zip(keys, _GROUP_COLOURS):
            values, unit = group[k]
            _, factor = display_unit(unit)
            for stroke, idx, ls in _strokes(d["v_norm"]):
                ax.plot(x[idx] * x_factor, values[0][idx] * factor, ls, lw=1.2, color=colour,
                        label=k if stroke == "forward" else None)
        _critical_lines(ax, group, 0, x_factor, labelled=ax is axes[0, 0])
        _stroke_legend(ax)
        shown = sorted({display_unit(u)[0] or "-" for u in units})
        ax.set_ylabel(f"{title} [{', '.join(shown)}]")
        legend_outside(ax, fontsize=7)
    axes[-1, 0].set_xlabel(axis_label("displacement x", x_unit))
    about = f"group {group['name']}: {group['direction']} arm"
    if group["d0"]:
        d0, d0_unit = group["d0"]
        label, factor = display_unit(d0_unit)
        about += f", d0 = {d0 * factor:.4g} {label}"
    about += f", {group['count']} in the group (values per arm)"
    if "sweep" in d:
        about += f"; {_value_text(d['sweep'], d['sweep'][2][0])}"
    axes[0, 0].set_title(f"{d['title']}\n{about}", fontsize=9, pad=12)
    return save(fig, outdir, f"curve_{group['name']}", fmt)


def _group_sweep_figure(d, outdir, fmt):
    """Fx of one arm of every group, one curve per swept value."""
    x, x_unit = d["x"]
    _, x_factor = display_unit(x_unit)
    styles, scale = _case_styles(d)
    many = len(styles) > _MAX_LEGEND_VALUES
    groups = [g for g in d["groups"] if "Fx" in g]
    fig, axes = plt.subplots(len(groups), 1, figsize=(7.5, 2.8 * len(groups) + 0.6), sharex=True,
                             constrained_layout=True, squeeze=False)
    for ax, group in zip(axes[:, 0], groups):
        values, unit = group["Fx"]
        _, factor = display_unit(unit)
        ax.grid(True, alpha=0.3)
        ax.axhline(0.0, color="k", lw=0.6)
        for case, (colour, label) in enumerate(styles):
            for stroke, idx, ls in _strokes(d["v_norm"]):
                ax.plot(x[idx] * x_factor, values[case][idx] * factor, ls, lw=1.2, color=colour,
                        label=label if stroke == "forward" and not many else None)
        # Contact displacements are drawn when they do not change with the swept value.
        fixed = all(np.allclose(group[k][0], group[k][0][0], equal_nan=True) for k in ("x_c", "x_cr") if k in group)
        if fixed:
            _critical_lines(ax, group, 0, x_factor, labelled=True)
        _stroke_legend(ax)
        ax.set_ylabel(axis_label("Fx", unit))
        ax.set_title(f"group {group['name']}: one {group['direction']} arm ({group['count']} in the group)",
                     fontsize=9, pad=12)
        if many:
            _colour_bar(fig, ax, d, scale)
        legend_outside(ax, fontsize=7)
    axes[-1, 0].set_xlabel(axis_label("displacement x", x_unit))
    fig.suptitle(d["title"], fontsize=9)
    return save(fig, outdir, "curve_groups", fmt)


def _summary_figure(d, outdir, fmt):
    """Scalar results against the swept value: peak forces and the displacements that change."""
    name, unit, values = d["sweep"]
    _, v_factor = display_unit(unit)
    order = np.argsort(values)
    v = values[order] * v_factor
    s = d["summary"]
    fig, axes = plt.subplots(2, 1, figsize=(7.5, 6.0), sharex=True, constrained_layout=True)
    ax = axes[0]
    ax.grid(True, alpha=0.3)
    force_unit = None
    for key, marker, text in (("peak_insertion", "v-", "peak insertion force"),
                              ("peak_withdrawal", "^--", "peak withdrawal force")):
        if key in s:
            y, force_unit = s[key]
            _, factor = display_unit(force_unit)
            ax.plot(v, y[order] * factor, marker, ms=5, mfc="none", label=text)
    ax.set_ylabel(axis_label("|Fx_total| peak", force_unit or ""))
    legend_outside(ax)
    ax = axes[1]
    ax.grid(True, alpha=0.3)
    length_unit = d["x"][1]
    for key, marker, text in (("peak_insertion_x", "v-", "x at peak insertion"),
                              ("peak_withdrawal_x", "^--", "x at peak withdrawal")):
        if key in s:
            y, length_unit = s[key]
            _, factor = display_unit(length_unit)
            ax.plot(v, y[order] * factor, marker, ms=5, mfc="none", label=text)
    # Colour and line style: which contact displacement; marker: which group.
    for g, group in enumerate(d["groups"]):
        marker = ("o", "s", "D", "P", "X")[g % 5]
        for key in ("x_c", "x_cr"):
            if key not in group:
                continue
            y, unit_k = group[key]
            _, factor = display_unit(unit_k)
            cols = np.atleast_2d(y.T).T if y.ndim == 1 else y
            for j in range(cols.shape[1]):
                col = cols[:, j][order]
                if not np.isfinite(col).any() or np.allclose(col, col[0], equal_nan=True):
                    continue  # unchanged by the sweep: nothing to see here
                tag = key if key == "x_c" else f"x_cr,{j + 1}"
                colour, ls = _CRITICAL_STYLES[0 if key == "x_c" else j + 1]
                ax.plot(v, col * factor, ls=ls, marker=marker, ms=3.5, lw=0.9, color=colour,
                        label=f"{group['name']} {tag}")
    ax.set_ylabel(axis_label("displacement x", length_unit))
    ax.set_xlabel(axis_label(name, unit))
    legend_outside(ax)
    axes[0].set_title(f"{d['title']}\nresults against {name}", fontsize=9)
    return save(fig, outdir, "curve_summary", fmt)


def plot(path, outdir, fmt, args=None):
    d = _read(path)
    written = [_force_figure(d, outdir, fmt)]
    if "sweep" in d:
        written.append(_group_sweep_figure(d, outdir, fmt))
        if d["summary"]:
            written.append(_summary_figure(d, outdir, fmt))
    else:
        for group in d["groups"]:
            written.append(_group_figure(d, group, outdir, fmt))
    return written
