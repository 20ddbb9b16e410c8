"""Driving contactuq from Python: registered models evaluated on NumPy arrays, and studies run from
a file or a dict, through the compiled extension contactuq._core (pybind11).

    import numpy as np, contactuq
    contactuq.models()                                   # names, inputs, outputs, units
    m = contactuq.Model.from_study("studies/quickstart.toml")
    x = np.tile(m.nominal, (100000, 1)); x[:, m.input_index("mu")] = np.linspace(0.02, 0.2, 100000)
    r = m.evaluate(x)                                    # parallel, GIL released
    r.output("peak_insertion")[r.ok]
    contactuq.run({"model": {...}, "parameters": {...}, "sampling": {...}}, output="out.h5")

Dicts are written as TOML and read by the same reader as study files, so a mistake gives the
command line's message (as ValueError). Values are SI unless a string gives units ("0.3 in").
"""

import json
import math
import os
import re
import tomllib

import numpy as np

__all__ = ["models", "Model", "Evaluation", "register_model", "run", "check", "analyze", "to_toml"]


def _core():
    try:
        from . import _core as core
    except ImportError as e:
        raise ImportError(
            "contactuq's compiled extension (_core) was not found: build it (cmake --build --preset release) "
            "and set CONTACTUQ_CORE_DIR to build/release/python/contactuq, or install contactuq") from e
    return core


# --- dict -> TOML -------------------------------------------------------------------------------

def _key(k):
    k = str(k)
    return k if k and all(c.isalnum() or c in "_-" for c in k) else '"' + k.replace('"', '\\"') + '"'


def _scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_scalar(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} {v!r} to a study")


def _is_table_list(v):
    return isinstance(v, (list, tuple)) and v and all(isinstance(x, dict) for x in v)


def to_toml(study, prefix=""):
    """A study dict as TOML text: scalars and inline values first, then tables and arrays of tables."""
    lines = []
    for k, v in study.items():
        if not isinstance(v, dict) and not _is_table_list(v):
            lines.append(f"{_key(k)} = {_scalar(v)}")
    for k, v in study.items():
        name = f"{prefix}.{_key(k)}" if prefix else _key(k)
        if isinstance(v, dict):
            lines += ["", f"[{name}]", to_toml(v, name)]
        elif _is_table_list(v):
            for item in v:
                lines += ["", f"[[{name}]]", to_toml(item, name)]
    return "\n".join(line for line in lines if line is not None).strip("\n") + "\n"


# --- models -------------------------------------------------------------------------------------

_python_models = set()


def _declared(name, spec, is_input):
    """(name, unit, nominal, low, high) of one input or output as register_model takes it."""
    nan, inf = float("nan"), float("inf")
    if isinstance(spec, (int, float)) and not isinstance(spec, bool):
        return (name, "", float(spec), -inf, inf)
    if isinstance(spec, str):
        match = re.fullmatch(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*", spec)
        if match and is_input:
            return (name, match.group(2), float(match.group(1)), -inf, inf)
        return (name, spec.strip(), nan, -inf, inf)
    if isinstance(spec, dict):
        allowed = {"unit", "nominal", "low", "high"} if is_input else {"unit"}
        unknown = set(spec) - allowed
        if unknown:
            raise ValueError(f"{'input' if is_input else 'output'} {name!r}: unknown key(s) {sorted(unknown)}; "
                             f"allowed: {sorted(allowed)}")
        return (name, str(spec.get("unit", "")), float(spec.get("nominal", nan)), float(spec.get("low", -inf)),
                float(spec.get("high", inf)))
    raise TypeError(f"{'input' if is_input else 'output'} {name!r}: expected a unit (\"mm\"), a value with units "
                    f"(\"2.5 mm\"), a number or a dict {{unit, nominal, low, high}}, not {spec!r}")


def register_model(name, function, inputs, outputs, vectorized=False, replace=False):
    """Makes a Python function a contactuq model named `name`: a study run from this process with
    [model] type = name runs it under any method (sample, nested, optimize, calibrate, reliability).

    inputs: {name: spec}, in the order the function takes them; spec is a unit ("mm"), a nominal
    value with its unit ("2.5 mm"), a number (dimensionless nominal) or {"unit", "nominal", "low",
    "high"} (the valid range, checked against a study's values and distributions). outputs: {name:
    unit} or a list of dimensionless names. Values cross in these units, not SI.

    Not vectorized: function(**inputs) is called once per case and returns a number (one output), a
    sequence in output order or a dict by output name. Vectorized: function(X) gets an (n, inputs)
    array and returns (n, outputs). An exception, a wrong shape or a non-finite value is a failed
    case with the message; the study goes on. Calls hold the GIL, so they run one at a time: use a
    vectorized NumPy function for speed, or an external model for process parallelism."""
    if isinstance(outputs, (list, tuple)):
        outputs = {o: "" for o in outputs}
    _core().register_model(str(name), function, [_declared(k, v, True) for k, v in inputs.items()],
                           [_declared(k, v, False) for k, v in outputs.items()], bool(vectorized), bool(replace))
    _python_models.add(str(name))

def _studies_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.environ.get("CONTACTUQ_STUDIES", ""),
              os.path.join(here, "..", "..", "studies"),                    # source tree
              os.path.join(here, "..", "..", "..", "..", "share", "contactuq", "studies")):  # install
        if d and os.path.isdir(d):
            return os.path.normpath(d)
    return None


def _example_studies():
    """{model type: paths of the shipped studies whose [model] uses it}. Hidden files (an editor's
    or a checker's temporary study) are not shipped studies."""
    found = {}
    d = _studies_dir()
    for name in sorted(os.listdir(d)) if d else []:
        if name.endswith(".toml") and not name.startswith("."):
            try:
                with open(os.path.join(d, name), "rb") as f:
                    kind = tomllib.load(f).get("model", {}).get("type")
            except (OSError, tomllib.TOMLDecodeError):
                continue
            if kind:
                found.setdefault(kind, []).append(os.path.join(d, name))
    return found


def models():
    """Every registered model: name, and for those a shipped study builds, its inputs (name, SI unit,
    nominal value), outputs and curves, and that study's path."""
    examples = _example_studies()
    out = []
    for name in _core().registered_models():
        entry = {"name": name}
        for path in examples.get(name, []):
            try:
                m = Model.from_study(path)
            except ValueError:
                continue  # a study whose [model] table is read by its method (e.g. a fit)
            except OSError:
                continue  # removed since the folder was listed
            entry.update(inputs=m.inputs, outputs=m.outputs, curves=m.curves, example=path)
            break
        if name in _python_models:
            m = Model({"type": name})
            entry.update(inputs=m.inputs, outputs=m.outputs, curves=m.curves, python=True)
        out.append(entry)
    return out


class Evaluation:
    """Outputs of a batch: outputs (n, m) with NaN where a row failed, status (n,) 0 ok / 1 failed,
    messages (n,): a failed row's error or a valid row's note, curves {name: (n, points)}."""

    def __init__(self, model, result):
        self.output_names = [o["name"] for o in model.outputs]
        self.outputs = result["outputs"]
        self.status = result["status"]
        self.messages = result["messages"]
        self.curves = result["curves"]

    @property
    def ok(self):
        return self.status == 0

    def output(self, name):
        return self.outputs[:, self.output_names.index(name)]


class Model:
    """A registered model with the settings of a [model] table (a dict, as in a study file)."""

    def __init__(self, table, name="<model>"):
        self._model = _core().Model(to_toml({"model": table}), name)

    @classmethod
    def from_study(cls, path):
        """The model of a study file's [model] table."""
        m = cls.__new__(cls)
        with open(path) as f:
            text = f.read()
        m._model = _core().Model(text, str(path))
        return m

    name = property(lambda self: self._model.name)
    inputs = property(lambda self: self._model.inputs)
    outputs = property(lambda self: self._model.outputs)
    curves = property(lambda self: self._model.curves)

    @property
    def input_names(self):
        return [v["name"] for v in self.inputs]

    @property
    def nominal(self):
        """The nominal value of every input (NaN where a study must set it)."""
        return np.array([v["nominal"] for v in self.inputs], dtype=float)

    def input_index(self, name):
        try:
            return self.input_names.index(name)
        except ValueError:
            raise KeyError(f"no input {name!r}; the inputs are: {', '.join(self.input_names)}") from None

    def evaluate(self, points, threads=0):
        """Evaluates every row of `points`: an (n, inputs) array of SI values in the order of
        `inputs`, or a dict {input name: (n,) array} with every other input at its nominal value.
        Runs on `threads` threads (0: all cores) with the GIL released."""
        if isinstance(points, dict):
            n = len(next(iter(points.values())))
            x = np.tile(self.nominal, (n, 1))
            for name, values in points.items():
                x[:, self.input_index(name)] = values
            points = x
        return Evaluation(self, self._model.evaluate(np.ascontiguousarray(points, dtype=float), threads))


def _study_text(study):
    if isinstance(study, dict):
        return to_toml(study), "<dict>"
    with open(study) as f:
        return f.read(), str(study)


def run(study, output=None, threads=0, force=False, resume=False, progress=None, time_limit=0):
    """Runs a study, as `contactuq run` does: `study` is a file path or a dict (a study file's
    tables). Returns {method, output, planned, failed, exit_code}; exit code 0 done, 1 no result,
    130 interrupted (Ctrl-C, or time_limit seconds reached by a sample, nested or optimize study;
    resume=True continues). progress(done, total) is called as cases finish. A bad study raises
    ValueError with the command line's message."""
    if isinstance(study, dict) and output is None:
        raise ValueError("a study given as a dict needs output= (the result file)")
    text, name = _study_text(study)
    return _core().run(text, name, "" if output is None else str(output), threads, force, resume, progress,
                       float(time_limit))


def check(study, output=None):
    """Reads and checks a study as `contactuq check` does (every key, unit, range, data file and
    the plan's size), evaluating and writing nothing: {method, model, planned, output}. A bad study
    raises ValueError with the command line's message."""
    text, name = _study_text(study)
    return _core().check(text, name, "" if output is None else str(output))


def analyze(path, bootstrap=1000, confidence=0.95, quantiles=(0.05, 0.5, 0.95), seed=1, si=False):
    """What `contactuq summarize --json` prints for an ensemble or a reliability file, as a dict of
    the same structure and the same numbers, from the same library report.

    An ensemble gives {"file", "format", "metadata", "status" (counts, failure messages),
    "bootstrap", "outputs": [{"name", "unit", "mean", "mean_ci", "sd", "sd_ci", "min", "max",
    "quantiles", "ranking", "limit", "probability_of_1"; per model under "by_case" for a nested
    study}], "nested" (a nested study: per-case statistics, model-form decomposition, Sobol
    indices)}. A reliability file gives {"file", "format", "method", "model", "title",
    "reliability": {"algorithm", "output", "output_unit", "event", "inputs", "probability":
    {"estimate", "ci95", "cov", "interval"}, "beta", "model_calls", "failed_calls", "resolved",
    "note", "seed", "effective_sample_size", "form": {..., "design_point": [{"input", "unit",
    "u", "x", "alpha", "importance"}]}, "sorm", "subset": {..., "runs": [{"reached_failure",
    "levels": [{"threshold", "probability", "samples", "acceptance", "gamma", "cov",
    "running_probability", "running_ci95", "model_calls"}]}]}}}.

    Intervals are [low, high] lists; a value that is not finite is None, as in the JSON. The
    arguments are summarize's options (--bootstrap, --confidence, --quantiles, --seed, --si; a
    reliability file uses only si): values in the study's [output] units unless si."""
    text = _core().analyze(str(path), si=bool(si), bootstrap=int(bootstrap), confidence=float(confidence),
                           quantiles=[float(p) for p in quantiles], seed=int(seed))
    return json.loads(text)


# --- posterior draws ----------------------------------------------------------------------------

_PART = re.compile(r"^(?P<name>[^\[\]]+)\[(?P<part>[^\[\]]+)\]$")


def posterior_draws(result, warmup=False):
    """The MCMC draws of a contactuq-posterior file (a ResultFile of method "bayesian") as an
    xarray.Dataset with dims (chain, draw) per parameter, named as ArviZ expects: `K_loc`,
    `K_scale`, `sigma_<output>`, a global parameter by its name, and the part values `K[p]` of
    a population as one variable `K` with a `part` dimension (coordinate: the part names). The
    warm-up is left out unless `warmup` is true (then `draw` counts from the first warm-up step
    and the variable `warmup` (draw) is 1 on warm-up steps). Each variable's `units` and `kind`
    (location, scale, part, noise, global) are its attributes."""
    import xarray as xr

    if result.format != "contactuq-posterior":
        raise ValueError(f"{result.path}: draws() reads contactuq-posterior files (this is {result.format!r})")
    flat = np.asarray(result["posterior/draws"], dtype=float)
    chains, iterations, d = (int(v) for v in result.attr("posterior/draws", "shape"))
    first = int(result.attr("posterior/draws", "warmup", result.attrs.get("warmup", 0)))
    cube = flat.reshape(chains, iterations, d)
    if not warmup:
        cube = cube[:, first:, :]
    names = [str(n) for n in np.atleast_1d(result["posterior/names"])]
    units = [str(u) for u in np.atleast_1d(result.get("posterior/units", [""] * d))]
    kinds = [str(k) for k in np.atleast_1d(result.get("posterior/kinds", [""] * d))]
    coords = {"chain": np.arange(chains), "draw": np.arange(cube.shape[1])}
    data, parts = {}, {}
    for j, name in enumerate(names):
        m = _PART.match(name)
        if m:
            parts.setdefault(m["name"], []).append((m["part"], j))
            continue
        data[name] = xr.DataArray(cube[:, :, j], dims=("chain", "draw"),
                                  attrs={"units": units[j], "kind": kinds[j]})
    for name, members in parts.items():
        labels = [p for p, _ in members]
        columns = [j for _, j in members]
        data[name] = xr.DataArray(cube[:, :, columns], dims=("chain", "draw", "part"),
                                  coords={"part": labels},
                                  attrs={"units": units[columns[0]], "kind": "part"})
    if warmup:
        data["warmup"] = xr.DataArray((np.arange(iterations) < first).astype(np.int8), dims=("draw",))
    attrs = {"format": result.format, "sampler": str(result.attrs.get("sampler", "")),
             "warmup": first, "title": str(result.attrs.get("title", ""))}
    return xr.Dataset(data, coords=coords, attrs=attrs)
