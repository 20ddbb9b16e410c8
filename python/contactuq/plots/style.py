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


def display_unit(unit):
    """(label, factor) to show values stored in SI `unit`."""
    return _DISPLAY.get(unit, (unit, 1.0))


def axis_label(name, unit):
    label, _ = display_unit(unit)
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
