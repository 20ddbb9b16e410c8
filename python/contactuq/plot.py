"""Figures of contactuq HDF5 files: `python3 -m contactuq.plot FILE.h5 --outdir DIR`.

`contactuq plot` runs this module. The file's root attribute `format` ("contactuq-ensemble",
"contactuq-fit", ...) picks the module `contactuq.plots.<kind>` that draws it; each such module
has `plot(path, outdir, fmt, args)` returning the list of files it wrote.

Exit codes: 0 every figure written; 2 error (a file or option that cannot be used, or no figure
could be drawn); 3 some figures were skipped, each named on stderr with a one-line reason, and
the others written (plots.attempt).
"""

import argparse
import importlib
import json
import os
import sys

from . import file_format
from .plots import style


def file_kind(path):
    """The plots module name of a contactuq file: its format without "contactuq-", '-' -> '_'."""
    return file_format(path)[len("contactuq-"):].replace("-", "_")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="contactuq plot", description=__doc__.splitlines()[0])
    parser.add_argument("file", help="HDF5 file written by contactuq")
    parser.add_argument("--outdir", required=True, help="folder for the figures")
    parser.add_argument("--format", default="png", choices=("png", "svg", "pdf"))
    parser.add_argument("--output", dest="outputs", action="append", default=[],
                        help="scalar output to plot (repeatable; default all)")
    parser.add_argument("--curve", dest="curves", action="append", default=[],
                        help="curve output to plot (repeatable; default all)")
    parser.add_argument("--map", help="X,Y: the two inputs over which 0/1 outputs get a map of P(1) "
                                      "(default: the two with the largest rank correlation with it)")
    parser.add_argument("--display-units", help="the study's [output] units as JSON (contactuq plot passes them)")
    args = parser.parse_args(argv)
    args.skipped = []  # "figure: reason" of each figure that could not be drawn (plots.attempt)
    if args.display_units:
        style.set_display_units(json.loads(args.display_units))
    try:
        kind = file_kind(args.file)
        try:
            module = importlib.import_module(f"contactuq.plots.{kind}")
        except ModuleNotFoundError:
            raise ValueError(f"{args.file}: no plots for files of kind {kind!r}") from None
        os.makedirs(args.outdir, exist_ok=True)
        written = module.plot(args.file, args.outdir, args.format, args)
    except (KeyError, ValueError, OSError) as e:
        print(f"contactuq plot: error: {e}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    for reason in args.skipped:
        print(f"contactuq plot: skipped {reason}", file=sys.stderr)
    if args.skipped and not written:
        print(f"contactuq plot: error: {args.file}: no figure could be drawn", file=sys.stderr)
        return 2
    return 3 if args.skipped else 0


if __name__ == "__main__":
    sys.exit(main())
