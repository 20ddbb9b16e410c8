"""Figures of a sweep study (format "contactuq-sweep"): each scalar output against the swept
input, one figure per output, and each curve output with one line per sweep point.

`plot(path, outdir, fmt, args)` returns the files it wrote; `contactuq plot FILE.h5` calls it.
`args.outputs` may name outputs and curves (empty: all).
"""

import numpy as np

from .. import _texts, load
from .style import axis_label, display_unit, legend_outside, new_figure, save, series_style


def plot(path, outdir, fmt, args):
    r = load(path, "contactuq-sweep")
    title = r.attrs.get("title", "") or r.attrs["model"]
    parameter = r.attr("sweep", "parameter")
    values, unit = r.quantity("sweep")
    x_label, x_factor = display_unit(unit, parameter)
    outputs = r["outputs"]
    wanted = set(getattr(args, "outputs", []) or [])
    written = []
    for j, (name, y_unit) in enumerate(zip(_texts(r.attr("outputs", "names")), _texts(r.attr("outputs", "units")))):
        if wanted and name not in wanted:
            continue
        _, factor = display_unit(y_unit, name)
        fig, ax = new_figure()
        ax.plot(values * x_factor, outputs[:, j] * factor, marker="o", ms=3, lw=1.0)
        ax.set_xlabel(axis_label(parameter, unit, parameter))
        ax.set_ylabel(axis_label(name, y_unit, name))
        ax.set_title(f"{title}: {name} over {parameter}", fontsize=9)
        written.append(save(fig, outdir, f"sweep_{name}", fmt))
    for name, curve in r.curves().items():
        if wanted and name not in wanted:
            continue
        _, factor = display_unit(curve["ordinate_unit"], name)
        _, a_factor = display_unit(curve["abscissa_unit"], curve["abscissa_name"])
        fig, ax = new_figure(7.5, 4.2)
        for k, row in enumerate(np.atleast_2d(curve["values"])):
            colour, style = series_style(k)
            ax.plot(curve["abscissa"] * a_factor, row * factor, lw=1.0, color=colour, linestyle=style,
                    label=f"{parameter} = {values[k] * x_factor:g} {x_label}"
                    + (" (failed)" if np.all(np.isnan(row)) else ""))
        ax.set_xlabel(axis_label(curve["abscissa_name"], curve["abscissa_unit"], curve["abscissa_name"]))
        ax.set_ylabel(axis_label(name, curve["ordinate_unit"], name))
        ax.set_title(f"{title}: {name}", fontsize=9)
        legend_outside(ax)
        written.append(save(fig, outdir, f"sweep_curve_{name}", fmt))
    if not written:
        raise ValueError(f"{path}: the sweep stored no outputs or curves to draw")
    return written
