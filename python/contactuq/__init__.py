"""Post-processing of contactuq ensembles: the HDF5 files `contactuq run` writes.

    import contactuq
    e = contactuq.load("out/quickstart.h5")
    force = e.output("peak_force")[e.ok]     # the samples that succeeded
    curves = e.curve("insertion_force")      # samples x points

The file layout is documented in docs/hdf5-schema.md; this module only reads it with h5py,
so anything it does can be done by hand as well.
"""

import h5py
import numpy as np

__all__ = ["Ensemble", "load", "complete_rows", "STATUS_CODES", "STATUS_NOT_WRITTEN"]

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
        metadata: dict of the /metadata attributes (seed, design, samples, start_time, ...).
        study: the study file, verbatim.
        rows: number of complete samples; rows < metadata["samples"] for an unfinished run.
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


def load(path):
    """Reads the ensemble file at `path` and returns an Ensemble of its complete samples."""
    with _open(path) as f:
        if _text(f.attrs.get("format", "")) != "contactuq-ensemble":
            raise ValueError(f"{path}: not a contactuq ensemble")
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
        )
