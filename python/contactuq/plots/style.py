"""Shared look of contactuq figures and display units for SI values."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

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


def axis_label(name, unit):
    label, _ = display_unit(unit, name)
    return f"{name} [{label}]" if label else f"{name} [-]"


def new_figure(width=6.4, height=4.2):
    fig, ax = plt.subplots(figsize=(width, height), constrained_layout=True)
    ax.grid(True, alpha=0.3)
    return fig, ax


def legend_outside(ax, fontsize=8):
    """The legend beside the axes, never over the data."""
    ax.legend(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


def save(fig, outdir, stem, fmt):
    path = f"{outdir}/{stem}.{fmt}"
    # "tight" keeps a legend placed beside the axes inside the figure.
    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
    return path
