"""Figures of a Bayesian calibration (`method = "bayesian"`, format "contactuq-posterior"):

- bayesian_trace: the draws of every population parameter (location, scale, noise sd, global
  parameters) against the iteration, one line per chain, warm-up shaded, with R-hat and bulk ESS;
- bayesian_marginals: the histogram of each such parameter's kept draws with its prior's density
  (where the study's prior is one of the closed forms below and its unit is known) and the truth
  (where the study gives one in a [bayesian.truth] table; the study reader does not accept one
  yet, so in practice none is drawn).

Part values (K[p]) are left out: they are many, and `contactuq summarize` lists them. Values are
stored in SI and shown in the display units of style.display_unit.

`plot(path, outdir, fmt, args)` returns the files it wrote; `contactuq plot FILE.h5` calls it.
"""

import math
import re
import tomllib

import numpy as np

from .. import _texts, load
from .style import COLOURS, axis_label, display_unit, plt, save

_POPULATION_KINDS = ("location", "scale", "noise", "global")

# Factors to SI of the units a prior's quantity may be written in (a product/quotient of these).
_UNIT = {"m": 1.0, "mm": 1e-3, "cm": 1e-2, "um": 1e-6, "in": 0.0254, "ft": 0.3048, "N": 1.0, "kN": 1e3,
         "mN": 1e-3, "lbf": 4.4482216152605, "ozf": 0.27801385095378125, "grf": 9.80665e-3, "gf": 9.80665e-3,
         "kgf": 9.80665, "rad": 1.0, "deg": math.pi / 180.0, "s": 1.0, "ms": 1e-3, "kg": 1.0, "g": 1e-3,
         "Pa": 1.0, "MPa": 1e6, "GPa": 1e9, "J": 1.0, "mJ": 1e-3}


def _to_si(value):
    """A prior's quantity (a number, or "0.01 lbf*in/deg") in SI; None for a unit not known here."""
    if isinstance(value, (int, float)):
        return float(value)
    m = re.fullmatch(r"\s*([-+0-9.eE]+)\s*(.*?)\s*", str(value))
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2)
    if not unit:
        return number
    factor, sign = 1.0, 1
    for token in re.split(r"([*/])", unit.replace(" ", "")):
        if token == "*":
            sign = 1
        elif token == "/":
            sign = -1
        else:
            base, _, power = token.partition("^")
            if base not in _UNIT:
                return None
            factor *= _UNIT[base] ** (sign * (float(power) if power else 1.0))
    return number * factor


def _prior_density(spec):
    """The density of a prior given as its study text ({ distribution = ..., ... }), a function
    of SI values; None where it is not a closed form known here or a unit is unknown."""
    try:
        p = tomllib.loads(f"p = {spec}")["p"]
    except (tomllib.TOMLDecodeError, TypeError):
        return None
    kind = p.get("distribution")
    q = {k: _to_si(v) for k, v in p.items() if k != "distribution"}
    if any(v is None for v in q.values()):
        return None

    def normal(x, mean, sd):
        return np.exp(-0.5 * ((x - mean) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))

    if kind == "normal" and {"mean", "sd"} <= q.keys():
        return lambda x: normal(x, q["mean"], q["sd"])
    if kind == "lognormal":
        if {"median", "sigma_log"} <= q.keys():
            mu, s = math.log(q["median"]), q["sigma_log"]
        elif {"mean", "sd"} <= q.keys():
            s = math.sqrt(math.log1p((q["sd"] / q["mean"]) ** 2))
            mu = math.log(q["mean"]) - 0.5 * s * s
        else:
            return None
        return lambda x: np.where(x > 0, normal(np.log(np.maximum(x, 1e-300)), mu, s) / np.maximum(x, 1e-300), 0.0)
    if kind == "uniform" and {"low", "high"} <= q.keys():
        lo, hi = q["low"], q["high"]
        return lambda x: np.where((x >= lo) & (x <= hi), 1.0 / (hi - lo), 0.0)
    if kind == "half_normal" and "scale" in q:
        return lambda x: np.where(x >= 0, 2.0 * normal(x, 0.0, q["scale"]), 0.0)
    if kind == "half_cauchy" and "scale" in q:
        s = q["scale"]
        return lambda x: np.where(x >= 0, 2.0 / (math.pi * s * (1.0 + (x / s) ** 2)), 0.0)
    return None


def _priors(texts):
    """name -> prior text, from /priors/texts ("K: location_prior = {...}", "sigma_y: prior = {...}")."""
    out = {}
    for t in texts:
        m = re.match(r"^\s*([^:]+):\s*(\w+)\s*=\s*(\{.*\})\s*$", t)
        if not m:
            continue
        name, key, spec = m.groups()
        if key == "location_prior":
            out[f"{name}_loc"] = spec
        elif key == "scale_prior":
            out[f"{name}_scale"] = spec
        else:
            out[name] = spec
    return out


def _truth(study):
    """The [bayesian.truth] table of the study text, SI values by parameter name ({} if none)."""
    try:
        table = tomllib.loads(study).get("bayesian", {}).get("truth", {})
    except tomllib.TOMLDecodeError:
        return {}
    return {k: v for k, v in ((k, _to_si(v)) for k, v in table.items()) if v is not None}


def _read(path):
    r = load(path, "contactuq-posterior")
    names = _texts(r["posterior/names"])
    d = {"names": names, "units": _texts(r["posterior/units"]), "kinds": _texts(r["posterior/kinds"]),
         "title": str(r.attrs.get("title", ""))}
    chains, iterations, dim = (int(v) for v in r.attr("posterior/draws", "shape"))
    d["draws"] = np.asarray(r["posterior/draws"], dtype=float).reshape(chains, iterations, dim)
    d["warmup"] = int(r.attr("posterior/draws", "warmup", r.attrs.get("warmup", 0)))
    diag = {}
    if "diagnostics/names" in r:
        for k in ("rhat", "ess_bulk"):
            if f"diagnostics/{k}" in r:
                diag[k] = dict(zip(_texts(r["diagnostics/names"]), np.atleast_1d(r[f"diagnostics/{k}"])))
    d["diagnostics"] = diag
    d["priors"] = _priors(_texts(r["priors/texts"])) if "priors/texts" in r else {}
    study = r.get("study", "")
    d["truth"] = _truth(study if isinstance(study, str) else "")
    return d


def _shown(d):
    return [j for j, k in enumerate(d["kinds"]) if k in _POPULATION_KINDS]


def _display(d, j):
    """(label, factor) of parameter j's display unit."""
    name = d["names"][j]
    base = name.removeprefix("sigma_")
    for suffix in ("_loc", "_scale"):
        base = base.removesuffix(suffix)
    return display_unit(d["units"][j], base)


def _trace(d, shown, outdir, fmt):
    draws, warmup = d["draws"], d["warmup"]
    n = len(shown)
    fig, axes = plt.subplots(n, 1, figsize=(8.0, 1.7 * n + 0.6), sharex=True, constrained_layout=True, squeeze=False)
    steps = np.arange(draws.shape[1])
    for ax, j in zip(axes[:, 0], shown):
        name = d["names"][j]
        _, factor = _display(d, j)
        alpha = max(0.15, min(0.8, 4.0 / draws.shape[0]))
        for c in range(draws.shape[0]):
            ax.plot(steps, draws[c, :, j] * factor, lw=0.4, alpha=alpha)
        if warmup > 0:
            ax.axvspan(0, warmup - 0.5, color="0.85", zorder=0)
        ax.set_ylabel(axis_label(name, d["units"][j], name), fontsize=8)
        ax.grid(True, alpha=0.3)
        rhat = d["diagnostics"].get("rhat", {}).get(name)
        ess = d["diagnostics"].get("ess_bulk", {}).get(name)
        if rhat is not None and ess is not None:
            # Above the panel, so the text never hides a trace.
            ax.set_title(f"R-hat {rhat:.3f}, bulk ESS {ess:.0f}", fontsize=8, loc="right")
    axes[-1, 0].set_xlabel("iteration (shaded: warm-up, not kept)")
    fig.suptitle(f"{d['title']}: traces of the {draws.shape[0]} chains", fontsize=10)
    return save(fig, outdir, "bayesian_trace", fmt)


def _marginals(d, shown, outdir, fmt):
    kept = d["draws"][:, d["warmup"]:, :]
    n = len(shown)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.9 * rows + 0.8), constrained_layout=True,
                             squeeze=False)
    handles = {}
    for ax, j in zip(axes.flat, shown):
        name = d["names"][j]
        label, factor = _display(d, j)
        x = kept[:, :, j].ravel()
        h = ax.hist(x * factor, bins=60, density=True, color=COLOURS["primary"], alpha=0.6)
        handles.setdefault("posterior (kept draws)", h[2][0])
        lo, hi = np.quantile(x, [0.001, 0.999])
        width = hi - lo
        grid = np.linspace(max(lo - 0.25 * width, 0.0) if x.min() >= 0 else lo - 0.25 * width, hi + 0.25 * width,
                           400)
        spec = d["priors"].get(name)
        density = _prior_density(spec) if spec else None
        if density is not None:
            (line,) = ax.plot(grid * factor, density(grid) / factor, color=COLOURS["secondary"], lw=1.5)
            handles.setdefault("prior density", line)
        if name in d["truth"]:
            line = ax.axvline(d["truth"][name] * factor, color="k", ls="--", lw=1.2)
            handles.setdefault("truth", line)
        ax.set_xlabel(axis_label(name, d["units"][j], name), fontsize=8)
        ax.set_yticks([])
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    # One legend for all panels, below them, so it covers no data.
    fig.legend(list(handles.values()), list(handles.keys()), loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=len(handles), fontsize=8)
    fig.suptitle(f"{d['title']}: marginal posteriors", fontsize=10)
    return save(fig, outdir, "bayesian_marginals", fmt)


def plot(path, outdir, fmt, args):
    d = _read(path)
    shown = _shown(d)
    if not shown:
        shown = list(range(len(d["names"])))[:12]
    return [_trace(d, shown, outdir, fmt), _marginals(d, shown, outdir, fmt)]
