"""Post-processing of contactuq result files: the HDF5 files `contactuq run` writes.

    import contactuq
    e = contactuq.load("out/quickstart.h5")
    force = e.output("peak_insertion")[e.ok]  # N, the samples that succeeded
    curves = e.curve("Fx_total")              # samples x points
    df = e.to_dataframe()                     # pandas; units in df.attrs["units"]
    ds = e.to_xarray()                        # xarray; units as variable attributes
    r = contactuq.load("out/impact_models.h5")  # any other method's file: a ResultFile
    r["restitution"], r.units["restitution"], r.attrs["laws"]
    p = contactuq.load("out/r_minus_s.h5")      # a reliability file: a Reliability (a ResultFile)
    p.probability, p.ci95, p.beta, p.form["importance_factors"], p.subset["runs"][0]["threshold"]

The file layout is documented in docs/hdf5-schema.md; this module only reads it with h5py,
so anything it does can be done by hand as well.
"""

import os

import h5py
import numpy as np

# The compiled extension (_core, pybind11) sits beside this file when installed; a build tree
# names its folder in CONTACTUQ_CORE_DIR (make test sets it).
if os.environ.get("CONTACTUQ_CORE_DIR"):
    __path__.append(os.environ["CONTACTUQ_CORE_DIR"])
# Installed (<prefix>/lib/python3/dist-packages/contactuq), the library finds its data in
# <prefix>/share/contactuq/data: it cannot look beside the running executable, the interpreter.
_installed_data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "share",
                               "contactuq", "data")
if not os.environ.get("CONTACTUQ_DATA") and os.path.isdir(_installed_data):
    os.environ["CONTACTUQ_DATA"] = os.path.normpath(_installed_data)

from .api import Evaluation, Model, analyze, check, models, register_model, run, to_toml  # noqa: E402

__all__ = ["Ensemble", "ResultFile", "Reliability", "load", "file_format", "complete_rows", "STATUS_CODES", "STATUS_NOT_WRITTEN", "models", "register_model",
           "Model", "Evaluation", "run", "check", "analyze", "to_toml"]

#: Names of the codes in /status, indexed by code.
STATUS_CODES = ("ok", "failed", "not_run")
#: /status of rows a writer grew but never completed (only in interrupted files).
STATUS_NOT_WRITTEN = -1


def _text(value):
    """h5py gives str or bytes depending on the string type; always return str."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _texts(values):
    return [_text(v) for v in np.asarray(values).ravel()]


class Ensemble:
    """The complete samples of an ensemble file, as NumPy arrays.

    Attributes:
        inputs: (rows, d) array of input values, SI units.
        input_names, input_units, input_roles: lists of d strings.
        input_attributes: dict key -> list of d strings (e.g. "distribution"; "" where unset).
        outputs: (rows, m) array of scalar outputs, NaN where a sample did not succeed.
        output_names, output_units: lists of m strings.
        curves: dict name -> (rows, points) array.
        curve_info: dict name -> dict(abscissa_name, abscissa_unit, ordinate_unit, abscissa).
        status: (rows,) int array of codes, see STATUS_CODES.
        messages: list of rows strings.
        metadata: dict of the /metadata attributes (seed, design, samples, start_time, ...)
            and "resume_log", the list of lines of /metadata/resume_log.
        study: the study file, verbatim.
        rows: number of complete samples; rows < metadata["samples"] for an unfinished run.
        morris: for a file of the `morris` method, dict of its /morris group (inputs, outputs,
            units, trajectories, levels, confidence, and the outputs x inputs arrays mu,
            mu_star, sigma, mu_star_low, mu_star_high, used); None otherwise.
    """

    def __init__(self, **fields):
        self.__dict__.update(fields)

    @property
    def ok(self):
        """Boolean mask of the samples whose model returned every output."""
        return self.status == 0

    @property
    def failures(self):
        """Number of complete samples that did not succeed."""
        return int(np.count_nonzero(self.status != 0))

    @property
    def finished(self):
        return self.rows == self.metadata["samples"] and self.metadata["end_time"] != ""

    def input(self, name):
        """Column of input `name`."""
        return self.inputs[:, self._index(self.input_names, name, "input")]

    def output(self, name):
        """Column of scalar output `name`."""
        return self.outputs[:, self._index(self.output_names, name, "output")]

    def curve(self, name):
        """(rows, points) values of curve output `name`."""
        if name not in self.curves:
            raise KeyError(f"no curve {name!r}; the curves are: {', '.join(self.curves)}")
        return self.curves[name]

    @staticmethod
    def _index(names, name, what):
        try:
            return names.index(name)
        except ValueError:
            raise KeyError(f"no {what} {name!r}; the {what}s are: {', '.join(names)}") from None

    def to_dataframe(self):
        """A pandas DataFrame: one row per sample (index "sample"), a column per input and scalar
        output, and "status" and "message". Values are SI; df.attrs["units"] maps each column to
        its unit and df.attrs["roles"] each input to its role."""
        import pandas as pd

        columns = {}
        for j, name in enumerate(self.input_names):
            columns[name] = self.inputs[:, j]
        for j, name in enumerate(self.output_names):
            columns[name] = self.outputs[:, j]
        columns["status"] = self.status
        columns["message"] = self.messages
        df = pd.DataFrame(columns, index=pd.RangeIndex(self.rows, name="sample"))
        df.attrs["units"] = dict(zip(self.input_names + self.output_names, self.input_units + self.output_units))
        df.attrs["roles"] = dict(zip(self.input_names, self.input_roles))
        df.attrs["study"] = self.metadata.get("study_path", "")
        return df

    def to_xarray(self):
        """An xarray Dataset over the dimension "sample": every input and scalar output, "status",
        and each curve over ("sample", "<curve>_point") with its abscissa as a coordinate. Units
        (SI) and roles are variable attributes."""
        import xarray as xr

        data = {}
        for j, name in enumerate(self.input_names):
            data[name] = ("sample", self.inputs[:, j], {"units": self.input_units[j], "role": self.input_roles[j]})
        for j, name in enumerate(self.output_names):
            data[name] = ("sample", self.outputs[:, j], {"units": self.output_units[j]})
        data["status"] = ("sample", self.status, {"codes": ", ".join(STATUS_CODES)})
        coords = {"sample": np.arange(self.rows)}
        for name, values in self.curves.items():
            info = self.curve_info[name]
            point = f"{name}_point"
            data[name] = (("sample", point), values, {"units": info["ordinate_unit"]})
            coords[f"{name}_{info['abscissa_name']}"] = (point, info["abscissa"], {"units": info["abscissa_unit"]})
        return xr.Dataset(data, coords=coords, attrs={"study": self.study, "format": "contactuq-ensemble"})

    def __repr__(self):
        return (f"<contactuq.Ensemble {self.rows} of {self.metadata['samples']} samples, "
                f"{len(self.input_names)} inputs, {len(self.output_names)} outputs, "
                f"{len(self.curves)} curves, {self.failures} not ok>")


def _open(path):
    try:
        return h5py.File(path, "r")
    except OSError:
        # A file whose writer still runs or was killed opens only as a SWMR reader.
        return h5py.File(path, "r", swmr=True)


def complete_rows(f):
    """Leading samples of an open ensemble file whose every row is written."""
    datasets = [f["inputs"], f["outputs"], f["status"], f["messages"]]
    datasets += [f["curves"][name] for name in _texts(f["curves"].attrs["names"])]
    rows = min(d.shape[0] for d in datasets)
    status = f["status"][:rows]
    unwritten = np.flatnonzero(status == STATUS_NOT_WRITTEN)
    return int(unwritten[0]) if unwritten.size else rows


# A default that tells "no default given" from None.
_REQUIRED = object()


def _path(path):
    """A path inside a file as ResultFile keys it: no leading or trailing "/" ("" the root)."""
    return str(path).strip("/")


class ResultFile:
    """Any other contactuq result file (curve, impact, evaluate, pin-slot, optimisation,
    calibration, fit): its root attributes and every dataset as NumPy arrays (strings as str), by
    path, with the attributes of every group and dataset.

    Attributes:
        attrs: dict of the root attributes (format, format_version, method, model, ...).
        datasets: dict "group/name" -> array (or str for a scalar string).
        units: dict "group/name" -> the dataset's `units` attribute, where it has one.
        attributes: dict "group/name" -> dict of the attributes of that group or dataset, where
            it has any (the root's are `attrs`).
        members: dict group path ("" for the root) -> the names in that group, in the order
            h5py lists them.
        path: the file it was read from.

    Paths may start with "/" or not: r["/trace/t"] is r["trace/t"].
    """

    def __init__(self, attrs, datasets, units, attributes=None, members=None, path=""):
        self.attrs, self.datasets, self.units = attrs, datasets, units
        self.attributes = attributes if attributes is not None else {}
        self.members = members if members is not None else {}
        self.path = path

    @property
    def format(self):
        return self.attrs.get("format", "")

    @property
    def method(self):
        return self.attrs.get("method", "")

    def __contains__(self, path):
        path = _path(path)
        return path in self.datasets or path in self.members

    def __getitem__(self, path):
        path = _path(path)
        if path not in self.datasets:
            raise KeyError(f"no dataset {path!r}; the file has: {', '.join(self.datasets)}")
        return self.datasets[path]

    def get(self, path, default=None):
        """The dataset at `path`, or `default` where the file has none."""
        return self.datasets.get(_path(path), default)

    def children(self, path=""):
        """Names in the group at `path` ("" the root), in the order h5py lists them."""
        path = _path(path)
        if path not in self.members:
            raise KeyError(f"no group {path!r} in {self.path}")
        return list(self.members[path])

    def attr(self, path, key, default=_REQUIRED):
        """Attribute `key` of the group or dataset at `path` ("" the root); `default` where it has
        none (none given: KeyError)."""
        path = _path(path)
        attrs = self.attrs if path == "" else self.attributes.get(path, {})
        if key in attrs:
            return attrs[key]
        if default is _REQUIRED:
            raise KeyError(f"{self.path}: /{path} has no attribute {key!r}")
        return default

    def draws(self, warmup=False):
        """A contactuq-posterior file's MCMC draws as an xarray.Dataset (contactuq.api.posterior_draws)."""
        from .api import posterior_draws
        return posterior_draws(self, warmup)

    def unit(self, path, default=_REQUIRED):
        """The `units` attribute of the dataset at `path`; `default` where it has none (none
        given: ValueError, a dataset of a value without units is an error of the writer)."""
        path = _path(path)
        if path in self.units:
            return self.units[path]
        if default is _REQUIRED:
            self[path]  # KeyError for a dataset that is not there
            raise ValueError(f"{self.path}: dataset /{path} has no units attribute")
        return default

    def quantity(self, path, default_unit=_REQUIRED):
        """(values, units) of the dataset at `path`."""
        return self[path], self.unit(path, default_unit)

    def curves(self, group="curves"):
        """The curves of the file's /curves group (an evaluate file of a model with curves), as
        Ensemble.curve_info plus the values: {name: {"values", "ordinate_unit", "abscissa_name",
        "abscissa_unit", "abscissa"}}, in the order of the group's attribute `names`; {} when the
        file has no such group."""
        if _path(group) not in self.members:
            return {}
        out = {}
        for name in _texts(self.attr(group, "names")):
            path = f"{_path(group)}/{name}"
            values, attrs = self[path], self.attributes.get(path, {})
            out[name] = {
                "values": values,
                # An ensemble's curves name it ordinate_unit, an evaluate file's units.
                "ordinate_unit": attrs["ordinate_unit"] if "ordinate_unit" in attrs else self.unit(path),
                "abscissa_name": self.attr(path, "abscissa_name"),
                "abscissa_unit": self.attr(path, "abscissa_unit"),
                "abscissa": (np.asarray(attrs["abscissa"]) if "abscissa" in attrs
                             else np.arange(np.shape(values)[-1], dtype=float)),
            }
        return out

    def __repr__(self):
        return f"<contactuq.ResultFile {self.format} ({self.method}), {len(self.datasets)} datasets>"


class Reliability(ResultFile):
    """A reliability file (method "reliability", format "contactuq-reliability"): everything a
    ResultFile has, and the /reliability group read into fields. Values are SI.

    Attributes:
        algorithm: "form", "sorm", "importance", "subset" or "monte_carlo".
        output, output_unit: the limited output and its SI unit ("" where the file does not say).
        event: the failure event, e.g. "g < 0 N".
        inputs: names of the aleatoric inputs (the columns of u, x_star, alpha).
        probability: P(failure), NaN where the algorithm gives none (see resolved, note).
        ci95: (low, high), the algorithm's nominal 95 % interval; interval says how it was made
            (for an upper bound: (0, bound)).
        cov: coefficient of variation of the estimate (NaN for FORM and SORM).
        beta: -Phi^-1(probability), NaN where there is no probability in (0, 1).
        model_calls, failed_calls: evaluations of the model, and those that failed.
        resolved: False when the estimate is not a probability to report; note says why (or
            what limits the estimate when it is resolved).
        seed: the study's seed.
        effective_sample_size: of importance sampling, or None.
        form: dict of /reliability/form or None: converged (bool), message, search, beta,
            probability (Phi(-beta)), g_at_design, g_at_origin, other_design_points, and the
            arrays u_star, x_star (SI), alpha, importance_factors (alpha^2), history_beta,
            history_g.
        sorm: dict of /reliability/sorm or None: curvatures, breitung, hohenbichler, tvedt.
        subset: dict of /reliability/subset or None: samples_per_level, p0, replicates,
            run_estimates, run_cov, and runs: one dict per replicate with reached_failure and the
            per-level arrays threshold (of the margin, output_unit), probability (conditional
            p_i), samples, acceptance, gamma, cov (delta_i), cumulative_cov, and
            running_probability, running_low, running_high, model_calls (P up to each level with
            its lognormal 95 % interval from cumulative_cov, and the model calls up to it).
    """

    GROUP = "reliability"

    def __init__(self, base):
        super().__init__(base.attrs, base.datasets, base.units, base.attributes, base.members, base.path)
        a = self.attributes.get(self.GROUP)
        if a is None:
            raise ValueError(f"{self.path}: a reliability file without its /reliability group")
        nan = float("nan")
        self.algorithm = a.get("algorithm", "")
        self.output = a.get("output", "")
        self.event = a.get("event", "")
        self.output_unit = a.get("output_unit", _event_unit(self.event))
        self.inputs = list(np.atleast_1d(a.get("inputs", [])))
        self.probability = float(a.get("probability", nan))
        self.ci95 = (float(a.get("ci95_low", nan)), float(a.get("ci95_high", nan)))
        self.cov = float(a.get("cov", nan))
        self.interval = a.get("interval", "")
        self.beta = float(a.get("beta", nan))
        self.model_calls = int(a.get("model_calls", 0))
        self.failed_calls = int(a.get("failed_calls", 0))
        self.resolved = bool(a.get("resolved", 1))
        self.note = a.get("note", "")
        self.seed = int(a.get("seed", 0))
        ess = a.get("effective_sample_size")
        self.effective_sample_size = None if ess is None else float(ess)
        self.form = self._form()
        self.sorm = self._group("sorm", ("curvatures",), ("breitung", "hohenbichler", "tvedt"))
        self.subset = self._subset()

    def _group(self, name, arrays, attributes):
        path = f"{self.GROUP}/{name}"
        if path not in self.members:
            return None
        found = {k: v for k, v in self.attributes.get(path, {}).items()}
        for k in attributes:
            found.setdefault(k, float("nan"))
        for k in arrays:
            found[k] = np.atleast_1d(np.asarray(self.get(f"{path}/{k}", np.empty(0)), dtype=float))
        return found

    def _form(self):
        f = self._group("form", ("u_star", "x_star", "alpha", "importance_factors", "history_beta", "history_g"),
                        ("beta", "g_at_design", "g_at_origin"))
        if f is None:
            return None
        f["converged"] = bool(f.get("converged", 0))
        f["other_design_points"] = int(f.get("other_design_points", 0))
        f["probability"] = _normal_tail(f["beta"]) if f["converged"] else float("nan")
        return f

    def _subset(self):
        s = self._group("subset", ("run_estimates", "run_cov"), ("p0",))
        if s is None:
            return None
        runs = []
        k = 0
        while f"{self.GROUP}/subset/run_{k}" in self.members:
            path = f"{self.GROUP}/subset/run_{k}"
            run = {"reached_failure": bool(self.attr(path, "reached_failure", 1))}
            for key in ("threshold", "probability", "samples", "acceptance", "gamma", "cov"):
                run[key] = np.atleast_1d(np.asarray(self.get(f"{path}/{key}", np.empty(0)), dtype=float))
            if f"{path}/cumulative_cov" in self.members:
                run["cumulative_cov"] = np.atleast_1d(np.asarray(self.get(f"{path}/cumulative_cov"), dtype=float))
            run.update(_running_product(run))
            runs.append(run)
            k += 1
        s["runs"] = runs
        s["replicates"] = int(s.get("replicates", len(runs)))
        s["samples_per_level"] = int(s.get("samples_per_level", 0))
        return s

    def __repr__(self):
        return (f"<contactuq.Reliability {self.event} by {self.algorithm}: P = {self.probability:.4g} "
                f"[{self.ci95[0]:.4g}, {self.ci95[1]:.4g}], {self.model_calls} model calls"
                f"{'' if self.resolved else ', not resolved'}>")


def _normal_tail(beta):
    """Phi(-beta)."""
    import math

    return 0.5 * math.erfc(float(beta) / math.sqrt(2.0))


def _event_unit(event):
    """The unit at the end of an event text ("g < 0 N", "g > 1.5 mm", "g outside [0, 1] N")."""
    import re

    m = re.match(r"^\S+ (?:[<>] \S+|outside \[[^\]]*\])(?: (.+))?$", event)
    return (m.group(1) or "") if m else ""


def _running_product(run):
    """P up to each level of a subset run (the product of its p_i), the lognormal 95 % interval
    from the run's CoV up to that level (cumulative_cov; sqrt(sum delta_i^2) in files written
    before it was stored), and the model calls up to each level: N_0 on level 0, then N_i less
    the p_{i-1} N_{i-1} seeds evaluated on the level before."""
    p, cov, n = run["probability"], run["cov"], run["samples"]
    product = np.cumprod(p)
    cumulative = run.get("cumulative_cov")
    s = np.sqrt(np.log1p(cumulative**2 if cumulative is not None else np.cumsum(cov * cov)))
    z = 1.959963984540054
    calls = n.copy()
    calls[1:] = n[1:] - np.round(p[:-1] * n[:-1])
    return {"running_probability": product, "running_low": product * np.exp(-z * s),
            "running_high": product * np.exp(z * s), "model_calls": np.cumsum(calls)}


def _value(v):
    if isinstance(v, (bytes, str)):
        return _text(v)
    if isinstance(v, np.ndarray) and v.dtype.kind in "OSU":
        return _texts(v)
    return v.item() if hasattr(v, "item") and np.ndim(v) == 0 else v


def _load_other(f, path):
    datasets, units, attributes, members = {}, {}, {}, {}

    def walk(group, prefix):
        members[prefix] = list(group)
        for name in members[prefix]:
            obj = group[name]
            where = f"{prefix}/{name}" if prefix else name
            if obj.attrs:
                attributes[where] = {k: _value(v) for k, v in obj.attrs.items()}
            if isinstance(obj, h5py.Group):
                walk(obj, where)
            elif isinstance(obj, h5py.Dataset):
                datasets[where] = _value(obj[()])
                if "units" in obj.attrs:
                    units[where] = attributes[where]["units"]

    walk(f, "")
    return ResultFile({k: _value(v) for k, v in f.attrs.items()}, datasets, units, attributes, members, str(path))


def _format(f, path):
    """The format attribute of an open file; ValueError unless contactuq wrote it."""
    fmt = _text(f.attrs.get("format", ""))
    if not fmt.startswith("contactuq-"):
        raise ValueError(f"{path}: not a contactuq result file (format attribute {fmt!r})")
    return fmt


def file_format(path):
    """The format of the result file at `path` ("contactuq-ensemble", "contactuq-curve", ...),
    read without loading its data; ValueError for a file contactuq did not write."""
    with _open(path) as f:
        return _format(f, path)


def load(path, format=None, version=1):
    """Reads the result file at `path`: an ensemble (`sample`, `nested` studies) as an Ensemble
    of its complete samples, a reliability file as a Reliability, any other contactuq file as a
    ResultFile. With `format` (e.g. "contactuq-curve"), a file of another format or of a
    format_version other than `version` is refused with ValueError before its data are read."""
    with _open(path) as f:
        fmt = _format(f, path)
        if format is not None:
            if fmt != format:
                raise ValueError(f"{path}: not a {format} file (format attribute {fmt!r})")
            found = int(f.attrs.get("format_version", -1))
            if found != version:
                raise ValueError(f"{path}: {format[len('contactuq-'):]} file format version {found}, "
                                 f"this reader knows {version}")
        if fmt == "contactuq-reliability":
            return Reliability(_load_other(f, path))
        if fmt != "contactuq-ensemble":
            return _load_other(f, path)
        rows = complete_rows(f)
        inputs = f["inputs"]
        keys = _texts(inputs.attrs["column_attributes"])
        curves, curve_info = {}, {}
        for name in _texts(f["curves"].attrs["names"]):
            d = f["curves"][name]
            curves[name] = d[:rows]
            curve_info[name] = {
                "abscissa_name": _text(d.attrs["abscissa_name"]),
                "abscissa_unit": _text(d.attrs["abscissa_unit"]),
                "ordinate_unit": _text(d.attrs["ordinate_unit"]),
                "abscissa": (np.asarray(d.attrs["abscissa"]) if "abscissa" in d.attrs
                             else np.arange(d.shape[1], dtype=float)),
            }
        metadata = {}
        for key, value in f["metadata"].attrs.items():
            if isinstance(value, np.ndarray) and value.dtype.kind in "OSU":
                metadata[key] = _texts(value)
            elif isinstance(value, (bytes, str)):
                metadata[key] = _text(value)
            else:
                metadata[key] = value.item() if hasattr(value, "item") else value
        metadata["resume_log"] = _texts(f["metadata/resume_log"][()])
        return Ensemble(
            rows=rows,
            inputs=inputs[:rows],
            input_names=_texts(inputs.attrs["names"]),
            input_units=_texts(inputs.attrs["units"]),
            input_roles=_texts(inputs.attrs["roles"]),
            input_attributes={key: _texts(inputs.attrs[key]) for key in keys},
            outputs=f["outputs"][:rows],
            output_names=_texts(f["outputs"].attrs["names"]),
            output_units=_texts(f["outputs"].attrs["units"]),
            curves=curves,
            curve_info=curve_info,
            status=f["status"][:rows].astype(np.int32),
            messages=_texts(f["messages"][:rows]),
            metadata=metadata,
            study=_text(f["study"][()]),
            morris=_morris(f),
        )


def _morris(f):
    """The /morris group of a morris study's ensemble file as a dict, or None."""
    if "morris" not in f:
        return None
    g = f["morris"]
    found = {key: _texts(g.attrs[key]) for key in ("inputs", "outputs", "units")}
    found.update({key: _value(g.attrs[key]) for key in ("trajectories", "levels", "confidence")})
    found.update({key: g[key][()] for key in ("mu", "mu_star", "sigma", "mu_star_low", "mu_star_high", "used")})
    return found
