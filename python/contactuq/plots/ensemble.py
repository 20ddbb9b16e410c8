"""Figures of an ensemble (`contactuq run`): per scalar output a histogram and an empirical CDF,
per curve output the median over the samples with the 5-95 % band."""

import numpy as np

from .. import load
from .style import axis_label, display_unit, new_figure, save


def _title(e):
    return e.metadata.get("study_path", "")


def scalar_figures(e, name, outdir, fmt):
    """Histogram and ECDF of output `name` over the samples that succeeded."""
    unit = e.output_units[e.output_names.index(name)]
    _, factor = display_unit(unit)
    values = e.output(name)
    finite = values[np.isfinite(values)] * factor
    left_out = values.size - finite.size
    note = f"{finite.size} samples" + (f", {left_out} failed or not finite left out" if left_out else "")
    written = []

    fig, ax = new_figure()
    if finite.size:
        bins = min(60, max(10, int(np.sqrt(finite.size))))
        ax.hist(finite, bins=bins, color="tab:blue", alpha=0.8, edgecolor="white", linewidth=0.5)
        for p, style in ((5, ":"), (50, "--"), (95, ":")):
            q = np.percentile(finite, p)
            ax.axvline(q, color="k", linestyle=style, linewidth=1, label=f"{p} % quantile = {q:.4g}")
        ax.legend(fontsize=8)
    ax.set_xlabel(axis_label(name, unit))
    ax.set_ylabel("samples")
    ax.set_title(f"{name}: histogram ({note})\n{_title(e)}", fontsize=9)
    written.append(save(fig, outdir, f"{name}_histogram", fmt))

    fig, ax = new_figure()
    if finite.size:
        x = np.sort(finite)
        f = np.arange(1, x.size + 1) / x.size
        ax.step(x, f, where="post", color="tab:blue", label="empirical CDF")
        # 95 % Dvoretzky-Kiefer-Wolfowitz band: sup |F_n - F| <= eps with probability 0.95.
        eps = np.sqrt(np.log(2 / 0.05) / (2 * x.size))
        ax.fill_between(x, np.clip(f - eps, 0, 1), np.clip(f + eps, 0, 1), step="post",
                        color="tab:blue", alpha=0.15, label="95 % DKW band")
        ax.legend(fontsize=8, loc="lower right")
    ax.set_xlabel(axis_label(name, unit))
    ax.set_ylabel("P(output <= x)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{name}: empirical CDF ({note})\n{_title(e)}", fontsize=9)
    written.append(save(fig, outdir, f"{name}_cdf", fmt))
    return written


def curve_figure(e, name, outdir, fmt):
    """Median over the successful samples with the 5-95 % band, against the curve's abscissa."""
    info = e.curve_info[name]
    values = e.curve(name)[e.ok]
    _, fy = display_unit(info["ordinate_unit"])
    _, fx = display_unit(info["abscissa_unit"])
    x = info["abscissa"] * fx
    fig, ax = new_figure()
    if values.shape[0]:
        lo, med, hi = np.nanpercentile(values * fy, [5, 50, 95], axis=0)
        ax.fill_between(x, lo, hi, color="tab:orange", alpha=0.3, linewidth=0, label="5-95 % band")
        ax.plot(x, med, color="tab:red", linewidth=1.5, label="median")
        ax.legend(fontsize=8)
    ax.set_xlabel(axis_label(info["abscissa_name"], info["abscissa_unit"]))
    ax.set_ylabel(axis_label(name, info["ordinate_unit"]))
    ax.set_title(f"{name}: median and 5-95 % band over {values.shape[0]} samples\n{_title(e)}", fontsize=9)
    return save(fig, outdir, f"{name}_band", fmt)


def plot(path, outdir, fmt, args):
    e = load(path)
    outputs = args.outputs or e.output_names
    curves = args.curves or list(e.curves)
    for name in outputs:
        if name not in e.output_names:
            raise KeyError(f"no output {name!r}; the outputs are: {', '.join(e.output_names)}")
    written = []
    for name in outputs:
        written += scalar_figures(e, name, outdir, fmt)
    for name in curves:
        e.curve(name)  # raises KeyError listing the curves
        written.append(curve_figure(e, name, outdir, fmt))
    return written
