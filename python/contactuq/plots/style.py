"""Shared look of contactuq figures and display units for SI values."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from cycler import cycler  # noqa: E402

# The one qualitative palette of every figure: Okabe & Ito, "Color Universal Design" (2008), whose
# colours stay apart under protanopia, deuteranopia and tritanopia (tests/python/test_palette.py
# measures it). Sequential data use viridis/cividis, reference lines black and greys.
OKABE_ITO = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "bluish green": "#009E73",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "sky blue": "#56B4E9",
    "yellow": "#F0E442",
    "black": "#000000",
}

# Colours of series (cases, models, laws, ...), in the order they are used: the palette without
# yellow, too light for a line on white, and black, kept for reference lines.
SERIES = tuple(OKABE_ITO[k] for k in ("blue", "orange", "bluish green", "vermillion", "reddish purple",
                                      "sky blue"))

# Named roles, so that a colour means the same thing in every figure.
COLOURS = {
    "primary": OKABE_ITO["blue"],              # the data: histograms, CDFs, measured points, traces
    "secondary": OKABE_ITO["orange"],          # a second kind of the same thing (PRCC, clustered)
    "tertiary": OKABE_ITO["bluish green"],     # a third (SRC, bootstrap)
    "quaternary": OKABE_ITO["reddish purple"],
    "limit": OKABE_ITO["vermillion"],          # specification limits, critical displacements
    "model": OKABE_ITO["vermillion"],          # a model drawn over the measured data
    "band": OKABE_ITO["sky blue"],             # shaded ranges: 5-95 % bands, residual scales
    "reference": OKABE_ITO["black"],           # zero lines, e = 1, quantiles
    "context": "0.6",                          # what stays in the background (infeasible, raw)
}

matplotlib.rcParams["axes.prop_cycle"] = cycler(color=SERIES)


# Line styles of series beyond the colours: each round through SERIES takes the next one.
LINE_STYLES = ("-", "--", ":", "-.")


def series_colour(k):
    """Colour of the k-th series (case, model, ...); after len(SERIES) they repeat, so figures
    with more series tell them apart by line style (series_style) or marker too."""
    return SERIES[k % len(SERIES)]


def series_style(k):
    """(colour, line style) of the k-th series: the first len(SERIES) solid, the next ones dashed,
    ..., so that no two of the first len(SERIES) * len(LINE_STYLES) look alike."""
    return series_colour(k), LINE_STYLES[(k // len(SERIES)) % len(LINE_STYLES)]

# SI unit -> (display unit, factor): values are stored in SI; reports read better in these.
_DISPLAY = {
    "m": ("mm", 1e3),
    "rad": ("deg", 180.0 / np.pi),
    "s": ("ms", 1e3),
    "m/s": ("m/s", 1.0),
    "J": ("mJ", 1e3),
    "N*m/rad": ("N*mm/deg", 1e3 * np.pi / 180.0),
}


# A study's [output] units, set by `contactuq plot --display-units` (plot.py): by variable name
# and by SI unit, each (label, factor). They take precedence over _DISPLAY.
_STUDY_UNITS = {"by_name": {}, "by_si": {}}


def set_display_units(units):
    """Use a study's [output] units: {"by_name": {name: [unit, factor]}, "by_si": {...}}."""
    _STUDY_UNITS["by_name"] = {k: (v[0], float(v[1])) for k, v in units.get("by_name", {}).items()}
    _STUDY_UNITS["by_si"] = {k: (v[0], float(v[1])) for k, v in units.get("by_si", {}).items()}


def display_unit(unit, name=None):
    """(label, factor) to show values stored in SI `unit` (of the variable `name`, if known)."""
    if name is not None and name in _STUDY_UNITS["by_name"]:
        return _STUDY_UNITS["by_name"][name]
    if unit in _STUDY_UNITS["by_si"]:
        return _STUDY_UNITS["by_si"][unit]
    return _DISPLAY.get(unit, (unit, 1.0))


def axis_label(text, unit, name=None):
    """Axis label "text [unit]" in the unit values stored in SI `unit` are shown in ("-":
    dimensionless). `name` is the variable whose display unit it is (a study's [output] units
    name variables); None looks the unit up by unit only, for values already in display units."""
    label, _ = display_unit(unit, name)
    return f"{text} [{label or '-'}]"


def new_figure(width=6.4, height=4.2):
    fig, ax = plt.subplots(figsize=(width, height), constrained_layout=True)
    ax.grid(True, alpha=0.3)
    return fig, ax


def legend_outside(ax, fontsize=8):
    """The legend beside the axes, never over the data."""
    ax.legend(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


def save(fig, outdir, stem, fmt, dpi=150):
    """Writes the figure to outdir/stem.fmt, closes it and returns the path."""
    path = f"{outdir}/{stem}.{fmt}"
    # "tight" keeps a legend placed beside the axes inside the figure.
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return path
