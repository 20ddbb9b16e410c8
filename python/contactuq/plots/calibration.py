"""Figures of a calibration of any model to measured data (`contactuq fit` with `[calibrate]`,
format "contactuq-calibration"):

- calibration_outputs: every measured scalar output (points) with the calibrated model's value
  (line) against the input that varies from case to case (a preload, an approach velocity), one
  panel per output, and the calibrated parameters with their intervals in a box beside the panels;
- calibration_residuals: model - measured of every scalar output against the same input, with the
  residual scale (the measurement sd the study gives) as a band;
- calibration_curve_<name>: per measured curve, the measured points and the model curve of every
  case against the curve's abscissa, and the residuals along it;
- calibration_estimates: each calibrated parameter's estimate with its Jacobian, clustered and
  bootstrap intervals and the bootstrap replicates, one row per parameter.

The outputs are drawn against the input the measured data set per case (/cases/inputs, the
first of /cases@measured_inputs that varies), or against the case for files without /cases.

`plot(path, outdir, fmt, args)` returns the files it wrote; `contactuq plot FILE.h5` calls it.
`args.outputs` / `args.curves` may name outputs / curves (empty: all). Values are stored in SI
and shown in the display units of style.display_unit (the study's [output] units where it names
the variable).
"""

import numpy as np

from .. import _texts, load
from .style import COLOURS, axis_label, display_unit, legend_outside, plt, save, series_style

_ESTIMATE_COLUMNS = ("value", "standard_error", "low", "high", "bound_low", "bound_high", "start",
                     "clustered_low", "clustered_high", "bootstrap_low", "bootstrap_high")
# Interval kinds: (key prefix in /estimates, label, colour).
_INTERVALS = (("", "Jacobian", COLOURS["primary"]), ("clustered_", "clustered (sandwich)", COLOURS["secondary"]),
              ("bootstrap_", "bootstrap", COLOURS["tertiary"]))


def _read(path):
    r = load(path, "contactuq-calibration")
    missing = [k for k in ("estimates/names", "estimates/units", "estimates/value", "estimates/low",
                           "estimates/high", "residuals") if k not in r]
    if missing:
        raise ValueError(f"{path}: calibration file without {', '.join('/' + k for k in missing)}")
    d = dict(r.attrs)
    d["study"] = r.get("study", "")
    est = {"names": _texts(r["estimates/names"]), "units": _texts(r["estimates/units"])}
    for k in _ESTIMATE_COLUMNS:
        est[k] = r.get(f"estimates/{k}", np.full(len(est["names"]), np.nan))
    for k in ("correlation", "bootstrap"):
        est[k] = r.get(f"estimates/{k}")
    d["estimates"] = est
    d["cases"] = _texts(r.attr("residuals", "cases", []))
    d["residuals"] = {}
    for name in r.children("residuals"):
        g = f"residuals/{name}"
        res = {"kind": r.attr(g, "kind", "output"), "scale": float(r.attr(g, "scale", np.nan)),
               "rms": float(r.attr(g, "rms", np.nan)), "unit": r.unit(f"{g}/measured", ""),
               "case": r[f"{g}/case"].astype(int)}
        for k in ("measured", "fitted", "residual"):
            res[k] = r[f"{g}/{k}"]
        if res["kind"] == "curve":
            if f"{g}/x" not in r:
                raise ValueError(f"{path}: curve residuals /residuals/{name} without their abscissa x")
            res["x"] = r[f"{g}/x"]
            res["x_name"] = r.attr(f"{g}/x", "name", "abscissa")
            res["x_unit"] = r.unit(f"{g}/x", "")
        d["residuals"][name] = res
    if not d["residuals"]:
        raise ValueError(f"{path}: the calibration stored no residuals to draw")
    d["case_inputs"] = _case_inputs(r)
    return d


# --- the varied inputs ------------------------------------------------------------------------

def _case_inputs(r):
    """{input: (display unit, values per case)} of the inputs the measured data set per case
    (/cases, with /cases@measured_inputs), or {} for a file written before /cases existed."""
    if "cases/inputs" not in r:
        return {}
    names, units = _texts(r.attr("cases/inputs", "names")), _texts(r.attr("cases/inputs", "units"))
    measured = set(_texts(r.attr("cases", "measured_inputs", [])))
    values = r["cases/inputs"]
    out = {}
    for j, (name, unit) in enumerate(zip(names, units)):
        if name in measured:
            label, factor = display_unit(unit, name)
            out[name] = (label, values[:, j] * factor)
    return out


def _abscissa(d, names, case_inputs):
    """(label, unit, values per case, tick labels or None, cases of the outputs `names`) for the
    outputs `names`: against the input varied over their cases, else against the case."""
    used = np.unique(np.concatenate([d["residuals"][n]["case"] for n in names]))
    varying = []
    for name, (unit, values) in case_inputs.items():
        v = values[used]
        if np.isfinite(v).all() and np.unique(v).size > 1:
            varying.append((name, unit, values))
    if varying:
        name, unit, values = varying[0]
        others = ", ".join(n for n, _, _ in varying[1:])
        text = name + (f" (also varied: {others})" if others else "")
        return text, unit, values, None, used
    n = max(len(d["cases"]), int(used.max()) + 1)
    ticks = d["cases"] if len(d["cases"]) == n else None
    return "case", None, np.arange(n, dtype=float), ticks, used


def _set_case_axis(ax, xname, xunit, ticks, used):
    """x label; against the case, the labels of the cases drawn (`used`) as ticks."""
    if xunit is None:
        ax.set_xlabel("case (row of the study's data)")
        if ticks is not None:
            ax.set_xticks(used)
            ax.set_xticklabels([ticks[c] for c in used], rotation=90 if len(used) > 12 else 0, fontsize=7)
    else:
        ax.set_xlabel(f"{xname} [{xunit or '-'}]")


# --- figures ----------------------------------------------------------------------------------

def _interval_text(est, i):
    """"name = value unit" and, below it, the widest interval stored and its kind."""
    name, unit = est["names"][i], est["units"][i]
    label, factor = display_unit(unit, name)
    value, low, high, kind = est["value"][i], est["low"][i], est["high"][i], "Jacobian"
    for prefix, text, _ in _INTERVALS[1:]:
        lo, hi = est[prefix + "low"][i], est[prefix + "high"][i]
        if np.isfinite(lo) and np.isfinite(hi) and hi - lo > high - low:
            low, high, kind = lo, hi, text.split(" ")[0]
    return f"{name} = {value * factor:.5g} {label}\n  [{low * factor:.5g}, {high * factor:.5g}] {kind}"


def _estimates_box(d):
    conf = int(round(100 * float(d.get("confidence", 0.95))))
    lines = [f"calibrated, {conf} % intervals\n(the widest of those stored):"]
    lines += [_interval_text(d["estimates"], i) for i in range(len(d["estimates"]["names"]))]
    lines.append(f"s = {float(d.get('sigma', np.nan)):.3g}, {int(d.get('dof', 0))} dof\n"
                 f"{int(d.get('points', 0))} measured values")
    return "\n".join(lines)


def _fitted_line(x, fitted):
    """The model's value at each distinct x (cases at one x differ only in noise)."""
    ok = np.isfinite(x) & np.isfinite(fitted)
    xs = np.unique(x[ok])
    return xs, np.array([np.mean(fitted[ok & (x == v)]) for v in xs])


def _outputs_figure(d, names, axis, outdir, fmt):
    xname, xunit, xcase, ticks, used = axis
    fig, axes = plt.subplots(len(names), 1, figsize=(7.5, 2.6 * len(names) + 0.6), sharex=True,
                             constrained_layout=True, squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        r = d["residuals"][name]
        _, factor = display_unit(r["unit"], name)
        x = xcase[r["case"]]
        ax.grid(True, alpha=0.3)
        ax.plot(x, r["measured"] * factor, "o", ms=4, mfc="none", color=COLOURS["primary"],
                label=f"measured ({len(x)})")
        if xunit is None:
            ax.plot(x, r["fitted"] * factor, "_", ms=12, mew=1.8, color=COLOURS["model"], label="calibrated model")
        else:
            xs, ys = _fitted_line(x, r["fitted"])
            ax.plot(xs, ys * factor, "-", lw=1.2, marker="x", ms=5, color=COLOURS["model"],
                    label="calibrated model\n(at the measured inputs)")
        ax.set_ylabel(axis_label(name, r["unit"], name))
        ax.set_title(f"{name}: rms of model - measured {r['rms'] * factor:.3g} {display_unit(r['unit'], name)[0]}",
                     fontsize=9)
        legend_outside(ax)
    _set_case_axis(axes[-1, 0], xname, xunit, ticks, used)
    axes[-1, 0].text(1.02, 0.0, _estimates_box(d), transform=axes[-1, 0].transAxes, fontsize=7, va="bottom",
                     ha="left", family="monospace", bbox=dict(boxstyle="round", fc="white", ec="0.6"))
    fig.suptitle(f"{d.get('title') or d.get('model', '')}\nmeasured and calibrated model ({d.get('model', '')})",
                 fontsize=9)
    return save(fig, outdir, "calibration_outputs", fmt)


def _residuals_figure(d, names, axis, outdir, fmt):
    xname, xunit, xcase, ticks, used = axis
    fig, axes = plt.subplots(len(names), 1, figsize=(7.0, 2.3 * len(names) + 0.6), sharex=True,
                             constrained_layout=True, squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        r = d["residuals"][name]
        label, factor = display_unit(r["unit"], name)
        x = xcase[r["case"]]
        ax.grid(True, alpha=0.3)
        ax.axhline(0.0, color="k", lw=0.8)
        if np.isfinite(r["scale"]):
            ax.axhspan(-r["scale"] * factor, r["scale"] * factor, color=COLOURS["band"], alpha=0.2,
                       label=f"\u00b1 scale {r['scale'] * factor:.3g} {label}")
        res = r["residual"] * factor
        ax.plot(x, res, "o", ms=4, color=COLOURS["primary"],
                label=f"rms {r['rms'] * factor:.3g}, bias {np.nanmean(res):+.2g} {label}")
        ax.set_ylabel(axis_label(f"{name}\nmodel - measured", r["unit"], name))
        legend_outside(ax)
    _set_case_axis(axes[-1, 0], xname, xunit, ticks, used)
    fig.suptitle(f"{d.get('title') or d.get('model', '')}\nresiduals of the calibrated model "
                 f"(loss {d.get('loss', '?')}, s = {float(d.get('sigma', np.nan)):.3g})", fontsize=9)
    return save(fig, outdir, "calibration_residuals", fmt)


def _curve_figure(d, name, outdir, fmt):
    """Measured points and the model curve of every case, and the residuals along the curve."""
    r = d["residuals"][name]
    label, factor = display_unit(r["unit"], name)
    _, x_factor = display_unit(r["x_unit"], r["x_name"])
    fig, axes = plt.subplots(2, 1, figsize=(7.0, 6.0), sharex=True, constrained_layout=True,
                             gridspec_kw={"height_ratios": (2.0, 1.0)})
    for ax in axes:
        ax.grid(True, alpha=0.3)
    axes[1].axhline(0.0, color="k", lw=0.8)
    for k, case in enumerate(np.unique(r["case"])):
        sel = r["case"] == case
        order = np.argsort(r["x"][sel])
        x = r["x"][sel][order] * x_factor
        colour, ls = series_style(k)
        text = d["cases"][case] if case < len(d["cases"]) else f"case {case}"
        axes[0].plot(x, r["measured"][sel][order] * factor, ".", ms=3, color=colour, label=f"{text}, measured")
        axes[0].plot(x, r["fitted"][sel][order] * factor, ls=ls, lw=1.2, color=colour, label=f"{text}, model")
        axes[1].plot(x, r["residual"][sel][order] * factor, ".", ms=3, color=colour)
    if np.isfinite(r["scale"]):
        axes[1].axhspan(-r["scale"] * factor, r["scale"] * factor, color=COLOURS["band"], alpha=0.2,
                        label=f"\u00b1 scale {r['scale'] * factor:.3g} {label}")
        legend_outside(axes[1])
    axes[0].set_ylabel(axis_label(name, r["unit"], name))
    axes[1].set_ylabel(axis_label("model - measured", r["unit"], name))
    axes[1].set_xlabel(axis_label(r["x_name"], r["x_unit"], r["x_name"]))
    axes[0].set_title(f"{d.get('title') or d.get('model', '')}\n{name}: rms {r['rms'] * factor:.3g} {label}",
                      fontsize=9)
    legend_outside(axes[0], fontsize=7)
    axes[1].text(1.02, 0.0, _estimates_box(d), transform=axes[1].transAxes, fontsize=7, va="bottom", ha="left",
                 family="monospace", bbox=dict(boxstyle="round", fc="white", ec="0.6"))
    return save(fig, outdir, f"calibration_curve_{name}", fmt)


def _estimates_figure(d, outdir, fmt):
    """Each parameter on its own axis: the estimate, its intervals and the bootstrap replicates."""
    est = d["estimates"]
    n = len(est["names"])
    conf = int(round(100 * float(d.get("confidence", 0.95))))
    fig, axes = plt.subplots(n, 1, figsize=(7.0, 1.5 * n + 0.9), constrained_layout=True, squeeze=False)
    for i, ax in enumerate(axes[:, 0]):
        name, unit = est["names"][i], est["units"][i]
        _, factor = display_unit(unit, name)
        ax.grid(True, axis="x", alpha=0.3)
        value = est["value"][i] * factor
        ax.axvline(value, color="k", lw=1.0, label=f"estimate {value:.5g}")
        # Top to bottom as in the legend: the intervals, then the bootstrap replicates.
        for row, (prefix, text, colour) in enumerate(_INTERVALS):
            lo, hi = est[prefix + "low"][i] * factor, est[prefix + "high"][i] * factor
            if np.isfinite(lo) and np.isfinite(hi):
                y = len(_INTERVALS) - row
                ax.plot([lo, hi], [y, y], "-", lw=4, color=colour, solid_capstyle="butt",
                        label=f"{text} [{lo:.5g}, {hi:.5g}]")
        if est["bootstrap"] is not None and est["bootstrap"].ndim == 2 and est["bootstrap"].shape[1] == n:
            reps = est["bootstrap"][:, i] * factor
            jitter = np.linspace(-0.25, 0.25, reps.size)
            ax.plot(reps, jitter, ".", ms=3, color="0.45", label=f"bootstrap replicates ({reps.size})")
        ax.set_yticks([])
        ax.set_ylim(-0.8, len(_INTERVALS) + 0.8)
        ax.set_xlabel(axis_label(name, unit, name))
        start, lo_b, hi_b = (est[k][i] * factor for k in ("start", "bound_low", "bound_high"))
        ax.set_title(f"{name}: bounds [{lo_b:.4g}, {hi_b:.4g}], start {start:.4g}", fontsize=8)
        legend_outside(ax, fontsize=7)
    if est["correlation"] is not None and n > 1:
        c = est["correlation"]
        pairs = [f"{est['names'][a]}-{est['names'][b]} {c[a, b]:+.3f}" for a in range(n) for b in range(a + 1, n)]
        corr = "; correlation " + ", ".join(pairs[:6]) + (" ..." if len(pairs) > 6 else "")
    else:
        corr = ""
    fig.suptitle(f"{d.get('title') or d.get('model', '')}\ncalibrated parameters, {conf} % intervals{corr}",
                 fontsize=9)
    return save(fig, outdir, "calibration_estimates", fmt)


def plot(path, outdir, fmt, args=None):
    d = _read(path)
    wanted_outputs = set(getattr(args, "outputs", []) or [])
    wanted_curves = set(getattr(args, "curves", []) or [])
    outputs = [n for n, r in d["residuals"].items() if r["kind"] != "curve"
               and (not wanted_outputs or n in wanted_outputs)]
    curves = [n for n, r in d["residuals"].items() if r["kind"] == "curve"
              and (not wanted_curves or n in wanted_curves)]
    unknown = (wanted_outputs | wanted_curves) - set(d["residuals"])
    if unknown:
        raise ValueError(f"{path}: no measured output or curve {', '.join(sorted(unknown))}; "
                         f"the file has {', '.join(d['residuals'])}")
    written = []
    if outputs:
        axis = _abscissa(d, outputs, d["case_inputs"])
        written.append(_outputs_figure(d, outputs, axis, outdir, fmt))
        written.append(_residuals_figure(d, outputs, axis, outdir, fmt))
    for name in curves:
        written.append(_curve_figure(d, name, outdir, fmt))
    written.append(_estimates_figure(d, outdir, fmt))
    return written
