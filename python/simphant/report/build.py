"""Assembles the report: reads the file (load), computes the sections (sections), writes
report.json, one PNG per figure and report.html into the output folder."""
from __future__ import annotations

import json
import os
import tempfile
import time
from typing import Dict, List, Optional, Sequence

import numpy as np

from . import html as H
from . import sections
from .load import QUANTITIES, ResultFile
from .outputs import peak_loads
from .stats import QUANTILES

#: Root attributes of the integrator that report.json's "run" and the HTML's run facts
#: carry when the file has them.
RUN_INTEGRATOR_ATTRS = ("integrator", "rtol", "atol", "accepted_steps", "rejected_steps", "min_step_s", "max_step_s")


def _json_safe(x):
    """NaN / inf as None, numpy scalars as Python numbers (report.json is strict JSON)."""
    if isinstance(x, dict):
        return {str(k): _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if isinstance(x, np.ndarray):
        return _json_safe(x.tolist())
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


def _write(path: str, data: bytes) -> None:
    """Writes via a temporary file in the same folder and a rename: a reader never sees a
    half-written file, an earlier report stays whole until the new one is complete."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def make_report(results: str, out_dir: str, quantities: Optional[Sequence[str]] = None) -> Dict[str, object]:
    """Writes report.html, report.json and the figures (PNG) of the run in `results` into
    `out_dir` (created if missing); returns report.json's content.

    quantities: names from QUANTITIES (default all); the others are left out. Raises
    ReportInputError for a file that is not a SimPhant result, ValueError for an unknown
    quantity."""
    t0 = time.perf_counter()
    qs = list(QUANTITIES if not quantities else quantities)
    bad = [q for q in qs if q not in QUANTITIES]
    if bad:
        raise ValueError(f"--quantity: unknown quantity {bad[0]!r} (one of {', '.join(QUANTITIES)})")
    skipped: List[str] = []
    with ResultFile(results) as rf:
        status = rf.status()
        ok = np.ones(rf.n_instances, bool) if status is None else status == 0
        n_failed = int((~ok).sum())
        params = rf.parameters()
        health, f_health = sections.health(rf, ok, qs, skipped)
        warnings = sections.run_warnings(rf, n_failed)
        dist, f_dist = sections.distributions(rf, ok, qs, skipped)
        outputs = peak_loads(rf, qs, skipped)
        sens, f_sens = sections.sensitivity(rf, ok, params, outputs, skipped)
        sobol, f_sobol = sections.sobol_section(rf, ok, params, outputs, skipped)
        traces, f_traces = sections.traces(rf, ok, qs, skipped)
        attrs = {k: rf.attrs.get(k) for k in ("scene_file", "backend", "version", "dt", "t_end", "seed",
                                              "sweep_mode", "frames", "stop_reason")}
        # the integrator and its step statistics (docs/solver.md, "Integrators"): only those
        # the file has (files of earlier versions have none, rtol / atol only adaptive runs)
        attrs.update({k: rf.attrs[k] for k in RUN_INTEGRATOR_ATTRS if k in rf.attrs})
        n = rf.n_instances
    report: Dict[str, object] = {
        "results_file": os.path.abspath(results), "quantities": qs, "run": attrs,
        "instances": {"total": n, "ok": n - n_failed, "failed": n_failed},
        "quantile_levels": QUANTILES, "health": health, "warnings": warnings, "distributions": dist,
        "peak_loads": sens, "sobol": sobol, "traces": traces, "skipped": skipped,
        "subsampling": {"scatter_max_points": sections.MAX_SCATTER_POINTS,
                        "trace_max_instances": sections.MAX_TRACE_INSTANCES},
    }
    os.makedirs(out_dir, exist_ok=True)
    figs = [("health", f) for f in f_health] + [("distributions", f) for f in f_dist] + \
           [("peak_loads", f) for f in f_sens] + [("sobol", f) for f in f_sobol] + [("traces", f) for f in f_traces]
    report["figures"] = [{"file": f"{stem}.png", "title": title, "section": sec} for sec, (stem, title, _) in figs]
    for _, (stem, _, png) in figs:
        _write(os.path.join(out_dir, f"{stem}.png"), png)
    report["elapsed_s"] = time.perf_counter() - t0
    report = _json_safe(report)
    _write(os.path.join(out_dir, "report.json"),
           (json.dumps(report, indent=1, allow_nan=False) + "\n").encode())
    _write(os.path.join(out_dir, "report.html"), _html(report, figs).encode())
    return report


def _html(r: Dict, figs) -> str:
    imgs = {sec: [H.image(title, png) for s, (_, title, png) in figs if s == sec] for sec in
            ("health", "distributions", "peak_loads", "sobol", "traces")}
    run, inst = r["run"], r["instances"]
    b: List[str] = [f"<h1>SimPhant report: {H.esc(os.path.basename(r['results_file']))}</h1>",
                    H.table(["run", "value"], [[k, v] for k, v in run.items() if v is not None] +
                            [["instances (ok / failed)", f"{inst['ok']} / {inst['failed']}"]])]
    b.append(H.lines(r["warnings"], "warn"))
    sens = r["peak_loads"]
    if sens.get("outputs") and sens.get("parameters"):
        b.append("<h2>Which parameter drives each peak load</h2>")
        b.append(H.table(["peak load", "units", "top parameter (|SRC|)", "SRC", "Spearman rho", "R^2", "n"],
                         [[k, o["units"], o["ranking"][0], o["src"][o["ranking"][0]],
                           o["spearman"][o["ranking"][0]]["rho"], o["r2"], o["n"]]
                          for k, o in sens["outputs"].items() if o["r2"] is not None]))
    b.append("<h2>Run health</h2>")
    h = r["health"]
    b.append(H.table(["status", "instances"], list(h["status_counts"].items())))
    if "reason_counts" in h:
        b.append(H.table(["reason", "instances"], list(h["reason_counts"].items())))
    qh = ["measure", "source", "units"] + [f"p{q:g}" for q in r["quantile_levels"]]
    b.append(H.table(qh, [[k, v["source"], v["units"]] + [v["quantiles"][f"p{q:g}"] for q in r["quantile_levels"]]
                          for k, v in h["per_instance"].items()], left=3))
    b += imgs["health"]
    b.append("<h2>Distributions of the reductions over time</h2>")
    for q, entry in r["distributions"].items():
        rows = [[f"{stat} {key}", v["units"]] + [v["quantiles"][f"p{p:g}"] for p in r["quantile_levels"]]
                for stat, per in entry.items() for key, v in per.items()]
        b.append(f"<h3>{H.esc(q)}</h3>" + H.table(["statistic", "units"] + qh[3:], rows, left=2))
    b += imgs["distributions"]
    b.append("<h2>Peak loads against the swept parameters</h2>")
    if sens.get("outputs"):
        rows = [[k, o["units"], o["source"]] + [o["quantiles"][f"p{p:g}"] for p in r["quantile_levels"]]
                for k, o in sens["outputs"].items()]
        b.append(H.table(["peak load", "units", "source"] + qh[3:], rows, left=3))
    if sens.get("parameters") and sens.get("outputs"):
        names = sens["parameters"]
        b.append("<h3>Spearman rho / SRC per parameter</h3>")
        b.append(H.table(["peak load", "R^2"] + names,
                         [[k, o["r2"]] + [f"{H.fmt(o['spearman'][n]['rho'])} / {H.fmt(o['src'][n])}" for n in names]
                          for k, o in sens["outputs"].items()], left=1))
    b += imgs["peak_loads"]
    if r["sobol"]:
        s = r["sobol"]
        b.append("<h2>Sobol indices</h2>")
        b.append(H.table(["peak load", "parameter", "S1", "S1 conf", "ST", "ST conf"],
                         [[k, p, o["S1"][j], o["S1_conf"][j], o["ST"][j], o["ST_conf"][j]]
                          for k, o in s["outputs"].items() for j, p in enumerate(s["parameters"])], left=2))
        b += imgs["sobol"]
    if r["traces"]:
        b.append("<h2>Time traces</h2>")
        b += imgs["traces"]
    b.append("<h2>Left out</h2>" + (H.lines(r["skipped"], "skip") or "<p>nothing</p>"))
    return H.page(f"SimPhant report: {os.path.basename(r['results_file'])}", b)
