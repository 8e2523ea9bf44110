"""python -m simphant.report RESULTS.h5 [-o OUTDIR] [--quantity Q ...] (docs/report.md).

Exit codes (README "Exit codes"): 0 written, 2 bad input (file missing or not a SimPhant
result, unknown option or quantity, OUTDIR not a folder), 3 a module the report needs is
missing (h5py, numpy, scipy, matplotlib; SALib for a Saltelli design) or OUTDIR is not
writable."""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import List, Optional

from . import REQUIRED

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




def main(argv: Optional[List[str]] = None) -> int:
    missing = []
    for mod, pip_name in REQUIRED:
        try:
            importlib.import_module(mod)
        except ImportError:
            missing.append(pip_name)
    if missing:
        print(f"error: report: {sys.executable} lacks the Python modules {', '.join(missing)}: "
              f"pip install {' '.join(missing)}", file=sys.stderr)
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
        print(f"error: report: {e.name or e} is missing for {sys.executable}: pip install "
              f"{'SALib' if (e.name or '').startswith('SALib') else e.name}", file=sys.stderr)
        return EXIT_MISSING
    except PermissionError as e:
        print(f"error: report: cannot write to {out}: {e}", file=sys.stderr)
        return EXIT_MISSING
    print(f"report: {os.path.join(out, 'report.html')} ({len(r['figures'])} figures, "
          f"{r['instances']['ok']} of {r['instances']['total']} instances ok, {r['elapsed_s']:.1f} s)")
    for line in r["skipped"]:
        print(f"  skipped: {line}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
