"""Figures of an evaluate study (format "contactuq-evaluate"): every series of the trace against
its abscissa at full resolution (every accepted step of the integrator, the peaks inside steps),
with the located events marked, one figure per series; a model without traces gets its curves.

`plot(path, outdir, fmt, args)` returns the files it wrote; `contactuq plot FILE.h5` calls it.
`args.outputs` may name series (empty: all).
"""

import numpy as np

from .. import _texts, load
from .style import COLOURS, OKABE_ITO, axis_label, display_unit, legend_outside, new_figure, save


def _read(path):
    r = load(path, "contactuq-evaluate")
    d = {"title": r.attrs.get("title", ""), "model": r.attrs["model"], "status": r.attrs["status"],
         "message": r.attrs["message"], "series": {}, "curves": {}}
    if "trace" in r:
        name = r.attr("trace", "abscissa")
        d["abscissa"] = (name, r.unit(f"trace/{name}"), r[f"trace/{name}"])
        for s in _texts(r.attr("trace", "series")):
            d["series"][s] = (r.unit(f"trace/{s}"), r[f"trace/{s}"])
        d["events"] = list(zip(_texts(r["trace/event_names"]), r["trace/event_at"]))
    for c, curve in r.curves().items():
        d["curves"][c] = (curve["ordinate_unit"], curve["abscissa_name"], curve["abscissa_unit"], curve["abscissa"],
                          curve["values"])
    return d


# One marker and colour per kind of event, in the order they are first met; the series itself is
# drawn in the primary colour (blue), which no event uses.
_EVENT_MARKERS = (("v", OKABE_ITO["vermillion"]), ("^", OKABE_ITO["bluish green"]),
                  ("o", OKABE_ITO["reddish purple"]), ("s", OKABE_ITO["orange"]), ("D", OKABE_ITO["black"]),
                  ("x", OKABE_ITO["sky blue"]))


def _mark_events(ax, events, x, values, x_factor, factor):
    """Each event as a marker on the series where it happened (many events stay readable)."""
    kinds = {}
    for name, at in events:
        kinds.setdefault(name, []).append(at)
    for k, (name, times) in enumerate(kinds.items()):
        marker, colour = _EVENT_MARKERS[k % len(_EVENT_MARKERS)]
        t = np.asarray(times)
        ax.plot(t * x_factor, np.interp(t, x, values) * factor, linestyle="none", marker=marker, ms=4,
                mfc="none", color=colour, label=f"{name} ({len(t)})")


def plot(path, outdir, fmt, args):
    d = _read(path)
    if d["status"] != "ok":
        raise ValueError(f"{path}: the evaluation failed ({d['message']}); there is nothing to draw")
    wanted = set(getattr(args, "outputs", []) or [])
    written = []
    if d["series"]:
        x_name, x_unit, x = d["abscissa"]
        x_label, x_factor = display_unit(x_unit)
        for name, (unit, values) in d["series"].items():
            if wanted and name not in wanted:
                continue
            _, factor = display_unit(unit)
            fig, ax = new_figure(7.5, 4.2)
            ax.plot(x * x_factor, values * factor, lw=0.9, color=COLOURS["primary"],
                    label=f"{name} ({len(x)} points)")
            ax.plot(x * x_factor, values * factor, ".", ms=1.5, color=COLOURS["primary"])
            _mark_events(ax, d["events"], x, values, x_factor, factor)
            ax.set_xlabel(axis_label(x_name, x_unit, x_name))
            ax.set_ylabel(axis_label(name, unit, name))
            ax.set_title(f"{d['title'] or d['model']}: {name}", fontsize=9)
            legend_outside(ax)
            written.append(save(fig, outdir, f"trace_{name}", fmt))
    for name, (unit, a_name, a_unit, a, values) in d["curves"].items():
        if wanted and name not in wanted:
            continue
        _, factor = display_unit(unit)
        _, a_factor = display_unit(a_unit)
        fig, ax = new_figure()
        ax.plot(a * a_factor, values * factor, lw=1.0)
        ax.set_xlabel(axis_label(a_name, a_unit, a_name))
        ax.set_ylabel(axis_label(name, unit, name))
        ax.set_title(f"{d['title'] or d['model']}: {name}", fontsize=9)
        written.append(save(fig, outdir, f"curve_{name}", fmt))
    if not written:
        raise ValueError(f"{path}: the evaluation stored no series or curves to draw")
    return written
