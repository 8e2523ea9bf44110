"""python -m simphant.report RESULTS.h5 [-o OUTDIR] [--quantity Q ...] (docs/report.md).

Exit codes (README "Exit codes"): 0 written, 2 bad input (file missing, damaged or not a
SimPhant result, unknown option or quantity, OUTDIR not a folder), 3 a module the report
needs is missing (h5py, numpy, scipy, matplotlib; SALib for a Saltelli design) or OUTDIR
cannot be made or written. Each error is one line on stderr."""
from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import List, Optional

from .. import _extras

EXIT_OK, EXIT_BAD_INPUT, EXIT_MISSING = 0, 2, 3


def _parser() -> argparse.ArgumentParser:
    from .load import QUANTITIES

    p = argparse.ArgumentParser(prog="simphant report",
                                description="HTML report of a run: distributions, peak loads against the swept "
                                            "parameters (Spearman, SRC, Sobol), time traces, run health")
    p.add_argument("results", help="the run's HDF5 file")
    p.add_argument("-o", "--out", default=None,
                   help="output folder (default: <results stem>_report in the current directory)")
    p.add_argument("--quantity", nargs="+", default=None, metavar="Q",
                   help=f"quantities to report (default all): {', '.join(QUANTITIES)}")
    return p




def _raised_by_h5py(e: BaseException) -> bool:
    """Whether `e` came out of h5py (a damaged file's structures: RuntimeError, KeyError or
    ValueError while reading), not out of the report's own code."""
    return any(f"h5py{os.sep}" in frame.filename for frame in traceback.extract_tb(e.__traceback__)[-1:])


def main(argv: Optional[List[str]] = None) -> int:
    gone = _extras.missing("report")
    if gone:
        print(f"error: report: {_extras.message('report', gone)}", file=sys.stderr)
        return EXIT_MISSING
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse printed the error (2) or the help (0)
        return EXIT_OK if e.code == 0 else EXIT_BAD_INPUT
    out = args.out or os.path.splitext(os.path.basename(args.results))[0] + "_report"
    if os.path.exists(out) and not os.path.isdir(out):
        print(f"error: report: -o {out}: exists and is not a folder", file=sys.stderr)
        return EXIT_BAD_INPUT
    from .build import make_report
    from .load import QUANTITIES, ReportInputError

    for q in args.quantity or []:
        if q not in QUANTITIES:
            print(f"error: report: --quantity: unknown quantity {q!r} (one of {', '.join(QUANTITIES)})",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
    try:
        r = make_report(args.results, out, args.quantity)
    except ReportInputError as e:
        print(f"error: report: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ImportError as e:
        print(f"error: report: {e.name or e} is missing for {sys.executable}: pip install 'simphant[report]'",
              file=sys.stderr)
        return EXIT_MISSING
    except OSError as e:
        # Writing the report (a folder that cannot be made or written: exit 3) or reading
        # the results (a damaged HDF5 file: bad input, exit 2), one line either way.
        target = os.path.abspath(str(e.filename)) if getattr(e, "filename", None) else ""
        folder = os.path.abspath(out)
        on_the_way = target and (os.path.commonpath([target, folder]) in (target, folder))  # out, inside or above it
        if isinstance(e, PermissionError) or on_the_way:
            print(f"error: report: cannot write to {out}: {e.strerror or e}", file=sys.stderr)
            return EXIT_MISSING
        print(f"error: report: {args.results}: cannot be read ({e})", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (RuntimeError, KeyError, ValueError) as e:
        if not _raised_by_h5py(e):
            raise
        print(f"error: report: {args.results}: cannot be read ({e})", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"report: {os.path.join(out, 'report.html')} ({len(r['figures'])} figures, "
          f"{r['instances']['ok']} of {r['instances']['total']} instances ok, {r['elapsed_s']:.1f} s)")
    for line in r["skipped"]:
        print(f"  skipped: {line}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
