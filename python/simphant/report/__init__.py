"""`simphant report`: an HTML report of a run's HDF5 file (docs/report.md).

    python -m simphant.report RESULTS.h5 [-o OUTDIR] [--quantity Q ...]
    simphant report RESULTS.h5 ...            # the CLI runs this module

writes OUTDIR/report.html (self-contained: figures embedded as base64 PNG), one PNG per
figure and OUTDIR/report.json with the numbers every figure shows. The page opens with
the answer: the peak loads that matter, in engineering units, each with the parameter
that drives it (or, below R^2 = 0.5, the statement that no single one does), and the
statically indeterminate components apart, never ranked. Below it, collapsed: the run
settings that apply, peak loads against the swept parameters (Spearman rho,
standardised regression coefficients with R^2, Sobol indices of a Saltelli design),
the run's health, distributions of the reductions over time and time traces as
quantile bands.

Needs h5py, numpy, scipy, matplotlib, and SALib for Sobol indices; reads only the file
(the compiled core is not used, though importing the package `simphant` loads it).
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence


def make_report(results: str, out_dir: str, quantities: Optional[Sequence[str]] = None) -> Dict[str, object]:
    """Writes report.html, report.json and the figures (PNG) for the run in `results`
    (an HDF5 file of `simphant run`) into `out_dir`, created if missing; returns the
    content of report.json as a dict.

    quantities: any of reactions, joint_loads, bearing_loads, driver_loads,
    contacts, constraint_violation, energy, joint_coordinates, power (default: all; those absent from the
    file are skipped with a line in the report). Raises ReportInputError (a ValueError)
    for a file that is missing or not a SimPhant result, ValueError for an unknown
    quantity, ImportError when SALib is missing for a Saltelli design."""
    from .build import make_report as _make

    return _make(results, out_dir, quantities)


def __getattr__(name: str):
    # Lazily, like make_report: importing this package needs none of the report's modules,
    # so `python -m simphant.report` can name the missing ones and exit 3.
    if name == "ReportInputError":
        from .load import ReportInputError

        return ReportInputError
    raise AttributeError(name)


__all__ = ["make_report", "ReportInputError"]
