"""Figures of an impact-law comparison (`contactuq impact`, format "contactuq-impact"): every
result of one normal impact — coefficient of restitution, peak force, peak and residual
overlap, contact duration, dissipated energy — against the approach velocity (log axis: the
velocities span decades), one line per contact law, one figure per quantity.

Each law has its own colour, line style and marker, so that 14 or more laws stay apart and none
is told by its colour alone (the colours are the colour-blind-safe style.SERIES). Failed
impacts (status != 0) and NaN entries are left out; on a log axis so are values <= 0 (an
impulsive law has no overlap, an elastic one dissipates nothing), which the legend says.
The restitution figure draws e = 1 (no loss) as a reference.

`plot(path, outdir, fmt, args)` returns the files it wrote; `contactuq plot FILE.h5` calls it.
`args.outputs` may name quantities (empty: all). Values are stored in SI and shown in the
display units of style.display_unit (the study's [output] units where it names them).
"""

import numpy as np

from .. import _texts, load
from .style import SERIES, axis_label, display_unit, legend_outside, new_figure, save

# Quantity -> (axis name, log y axis where the values span decades). The order is the order of the figures.
_QUANTITIES = {
    "restitution": ("coefficient of restitution e", False),
    "peak_force": ("peak contact force", True),
    "peak_overlap": ("peak overlap", True),
    "contact_duration": ("contact duration", True),
    "residual_overlap": ("residual (plastic) overlap", True),
    "energy_dissipated": ("energy dissipated", True),
}
# Five line styles: with the six colours of SERIES, 30 laws before a colour and style repeat.
_LINE_STYLES = ("-", "--", ":", "-.", (0, (3, 1, 1, 1, 1, 1)))
_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h", "*")


def _read(path):
    r = load(path, "contactuq-impact")
    if "laws" not in r.attrs or "approach_velocity" not in r:
        raise ValueError(f"{path}: impact file without the laws attribute or /approach_velocity")
    laws = _texts(r.attrs["laws"])
    d = {"title": r.attrs.get("title", ""), "laws": laws, "velocity": r.quantity("approach_velocity", "m/s"),
         "quantities": {}}
    shape = (len(laws), len(d["velocity"][0]))
    status = r["status"] if "status" in r else np.zeros(shape)
    if status.shape != shape:
        raise ValueError(f"{path}: /status is {status.shape}, expected laws x velocities {shape}")
    d["failed"] = status != 0
    messages = _texts(r.get("messages", []))
    d["messages"] = np.array(messages, dtype=object).reshape(shape) if len(messages) == status.size else None
    for name in _QUANTITIES:
        if name not in r:
            continue
        values, unit = r.quantity(name, "")
        values = np.array(values, dtype=float)
        if values.shape != shape:
            raise ValueError(f"{path}: /{name} is {values.shape}, expected laws x velocities {shape}")
        values[d["failed"]] = np.nan
        d["quantities"][name] = (values, unit)
    if not d["quantities"]:
        raise ValueError(f"{path}: the impact file holds no results to draw")
    return d


def _law_styles(n):
    """(colour, line style, marker) per law: 6 colours, 5 line styles and 11 markers cycle
    together, so that no two of the first 30 laws share colour and line style, and no two of
    the first 330 share all three."""
    return [(SERIES[i % len(SERIES)], _LINE_STYLES[i % len(_LINE_STYLES)], _MARKERS[i % len(_MARKERS)])
            for i in range(n)]


def _spans_decades(values):
    """Whether the positive values span more than a decade and a half (worth a log axis)."""
    positive = values[np.isfinite(values) & (values > 0)]
    return positive.size > 1 and positive.max() > 30.0 * positive.min()


def _quantity_figure(d, name, outdir, fmt):
    values, unit = d["quantities"][name]
    axis_name, log_y = _QUANTITIES[name]
    v, v_unit = d["velocity"]
    _, v_factor = display_unit(v_unit, "approach_velocity")
    _, factor = display_unit(unit, name)
    fig, ax = new_figure(7.5, 4.8)
    ax.set_xscale("log")
    log_y = log_y and _spans_decades(values[~d["failed"]])
    if log_y:
        ax.set_yscale("log")
    every = max(1, len(v) // 8)  # markers on about 8 points a line: readable, not a smear
    drawn = 0
    for i, (law, (colour, ls, marker)) in enumerate(zip(d["laws"], _law_styles(len(d["laws"])))):
        y = values[i] * factor
        ok = np.isfinite(y) & ~d["failed"][i]
        shown = ok & (y > 0) if log_y else ok
        notes = []
        if d["failed"][i].any():
            notes.append(f"{int(d['failed'][i].sum())} failed")
        if not shown.any():
            notes.append("none > 0" if ok.any() else "no values")
        elif log_y and (ok & ~shown).any():
            notes.append(f"{int((ok & ~shown).sum())} <= 0 left out")
        label = law + (f" ({', '.join(notes)})" if notes else "")
        # NaN breaks the line where a point is missing rather than joining across it.
        yy = np.where(shown, y, np.nan)
        ax.plot(v * v_factor, yy, ls=ls, color=colour, lw=1.3, marker=marker, ms=4.5, mfc="none",
                markevery=(i % every, every), label=label)
        drawn += int(shown.any())
    if name == "restitution":
        ax.axhline(1.0, color="k", lw=0.9, ls=(0, (4, 2)), label="e = 1 (no loss)")
        top = np.nanmax(np.where(d["failed"], np.nan, values)) if np.isfinite(values).any() else 1.0
        ax.set_ylim(top=max(1.05, top + 0.02))
    ax.set_xlabel(axis_label("approach velocity", v_unit, "approach_velocity"))
    ax.set_ylabel(axis_label(axis_name, unit, name))
    ax.set_title(f"{d['title']}\n{axis_name} of {drawn} of {len(d['laws'])} laws", fontsize=9)
    legend_outside(ax, fontsize=7)
    return save(fig, outdir, f"impact_{name}", fmt)


def plot(path, outdir, fmt, args=None):
    d = _read(path)
    wanted = set(getattr(args, "outputs", []) or [])
    unknown = wanted - set(d["quantities"])
    if unknown:
        raise ValueError(f"{path}: no quantity {', '.join(sorted(unknown))}; "
                         f"the file has {', '.join(d['quantities'])}")
    written = []
    for name in d["quantities"]:
        if not wanted or name in wanted:
            written.append(_quantity_figure(d, name, outdir, fmt))
    return written
