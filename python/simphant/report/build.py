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
from . import units as U
from .load import QUANTITIES, ResultFile
from .outputs import peak_loads
from .stats import QUANTILES

#: Root attributes of the integrator that report.json's "run" and the HTML's run facts
#: carry when the file has them and they apply to the run's integrator.
RUN_INTEGRATOR_ATTRS = ("integrator", "rtol", "atol", "accepted_steps", "rejected_steps", "min_step_s", "max_step_s")
#: The fixed-step integrators (docs/solver.md, "Integrators"): the file writes rtol, atol
#: and the step statistics for them too, but only `dt` and the step count apply.
FIXED_STEP_INTEGRATORS = ("rk4", "euler", "symplectic_euler")
#: Settings of the adaptive integrators (dopri5, bdf) only.
ADAPTIVE_ONLY_ATTRS = ("rtol", "atol", "rejected_steps", "min_step_s", "max_step_s")


def run_settings(attrs: Dict[str, object]) -> Dict[str, object]:
    """The integrator's root attributes that apply to the run: all of them for an adaptive
    (or unknown) integrator, without rtol, atol, rejected steps and the step range for a
    fixed-step one."""
    out = {k: attrs[k] for k in RUN_INTEGRATOR_ATTRS if k in attrs}
    if str(out.get("integrator", "")) in FIXED_STEP_INTEGRATORS:
        out = {k: v for k, v in out.items() if k not in ADAPTIVE_ONLY_ATTRS}
    return out


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


def _umask() -> int:
    """The process's umask, read from /proc (os.umask can only read it by setting it, which
    would race with files other threads create meanwhile); 0o022 where /proc has no line."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    return 0o022


def _write(path: str, data: bytes) -> None:
    """Writes via a temporary file in the same folder and a rename: a reader never sees a
    half-written file, an earlier report stays whole until the new one is complete. The
    file gets the mode open() would give it (0o666 less the umask: 0o644 under the usual
    umask 022), not mkstemp's owner-only 0o600."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".tmp-")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
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
        local = sections.local_sensitivity(rf, ok, outputs, skipped)
        ans, f_ans = sections.answer(ok, params, outputs, sens)
        ans["indeterminate_attribute"] = {q: {j: sorted(c) for j, c in rf.indeterminate(q).items()}
                                          for q in ("bearing_loads", "joint_loads") if rf.indeterminate(q)}
        sobol, f_sobol = sections.sobol_section(rf, ok, params, outputs, skipped)
        traces, f_traces = sections.traces(rf, ok, qs, skipped)
        attrs = {k: rf.attrs.get(k) for k in ("scene_file", "backend", "version", "dt", "t_end", "seed",
                                              "sweep_mode", "frames", "stop_reason")}
        # the integrator and its step statistics (docs/solver.md, "Integrators"): only those
        # the file has (files of earlier versions have none) and that apply to the integrator
        attrs.update(run_settings(rf.attrs))
        n = rf.n_instances
    report: Dict[str, object] = {
        "results_file": os.path.abspath(results), "quantities": qs, "run": attrs,
        "instances": {"total": n, "ok": n - n_failed, "failed": n_failed},
        "quantile_levels": QUANTILES, "answer": ans, "health": health, "warnings": warnings, "distributions": dist,
        "peak_loads": sens, "local_sensitivities": local, "sobol": sobol, "traces": traces, "skipped": skipped,
        "subsampling": {"scatter_max_points": sections.MAX_SCATTER_POINTS,
                        "trace_max_instances": sections.MAX_TRACE_INSTANCES},
    }
    os.makedirs(out_dir, exist_ok=True)
    figs = [("answer", f) for f in f_ans] + [("health", f) for f in f_health] + \
           [("distributions", f) for f in f_dist] + \
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


#: Names of the unit groups of the answer's tables.
GROUP_NAMES = {"N": "Peak forces", "N m": "Peak moments"}
#: Run facts with their units (the others carry theirs in the name or have none).
RUN_UNITS = {"dt": "s", "t_end": "s"}


def _by_unit(keys, recs):
    """{SI unit: [key, ...]} in the order of first appearance."""
    out: Dict[str, List[str]] = {}
    for k in keys:
        out.setdefault(recs[k]["units"], []).append(k)
    return out


def _r2(v) -> Optional[str]:
    return None if v is None else f"{v:.3f}"


def _name(rec) -> str:
    return f"{rec['entity']} {rec['component']}" + ("" if rec["quantity"] == "bearing_loads" else
                                                   f" ({rec['quantity']})")


def _summary(r: Dict) -> str:
    run, inst = r["run"], r["instances"]
    facts = [f"{inst['ok']} of {inst['total']} instances ok"]
    if run.get("scene_file"):
        facts.insert(0, f"scene {os.path.basename(str(run['scene_file']))}")
    step = [str(run["integrator"])] if run.get("integrator") else []
    if run.get("integrator") in FIXED_STEP_INTEGRATORS and run.get("dt") is not None:
        step.append(f"dt = {H.fmt(run['dt'] * 1e3)} ms")
    elif run.get("rtol") is not None:
        step.append(f"rtol = {H.fmt(run['rtol'])}, atol = {H.fmt(run.get('atol'))}")
    if run.get("t_end") is not None:
        step.append(f"t_end = {H.fmt(run['t_end'])} s")
    if step:
        facts.append(", ".join(step))
    if run.get("backend"):
        facts.append(f"backend {run['backend']}")
    return f'<p class="facts">{H.esc(" · ".join(facts))}</p>'


def _answer_html(r: Dict, imgs) -> List[str]:
    a, sens = r["answer"], r["peak_loads"]
    recs = sens.get("outputs", {})
    b = ["<h2>The peak loads that matter and what drives them</h2>"]
    if not a["rows"]:
        b.append("<p>No determinate peak load in the file (see the sections below).</p>")
    groups: Dict[str, List[Dict]] = {}
    for row in a["rows"]:
        groups.setdefault(row["units"], []).append(row)
    for u, rows in groups.items():
        du, f = rows[0]["display_units"], rows[0]["display_scale"]
        b.append(H.table([GROUP_NAMES.get(u, f"Peak loads [{du}]"), f"median [{du}]", f"p5 – p95 [{du}]",
                          f"max [{du}]", "driven by", "SRC [1]", "SRC^2 [%]", "Spearman rho [1]",
                          "R^2 [1]"],
                         [[_name(recs[x["key"]]), U.scaled(x["p50"], f),
                           f"{H.fmt(U.scaled(x['p5'], f))} – {H.fmt(U.scaled(x['p95'], f))}", U.scaled(x["max"], f),
                           x["driven_by"], x.get("src"), None if x.get("src") is None else f"{100 * x['src'] ** 2:.0f}",
                           x.get("rho"), _r2(x["r2"])] for x in rows],
                         left=1, cls="answer", left_cols=(4,)))
    notes = [f"“driven by” names the parameter with the largest |SRC| (standardised regression coefficient; "
             f"SRC^2 is its share of the peak's variance) when the linear model of all the swept parameters explains "
             f"at least {a['r2_threshold']:.0%} of the peak's variance (R^2 ≥ {a['r2_threshold']:g}); below that "
             "the row says so instead of naming one."]
    if a["negligible"]:
        notes.append(f"{len(a['negligible'])} peak load(s) below {a['negligible_fraction']:.0%} of the largest of "
                     "their unit are left out as negligible (see “All peak loads”).")
    if a["same_as_bearing_loads"]:
        notes.append(f"The reactions' magnitudes of joints with bearing loads are the same loads in another form "
                     f"({len(a['same_as_bearing_loads'])}; see “All peak loads”).")
    if a["not_shown"]:
        notes.append(f"{len(a['not_shown'])} smaller peak load(s) are in “All peak loads”.")
    if a["indeterminate"]:
        notes.append(f"{len(a['indeterminate'])} statically indeterminate component(s) are shown apart below, "
                     "never ranked.")
    b.append(f'<p class="note">{H.esc(" ".join(notes))}</p>')
    b += imgs["answer"]
    if a["indeterminate"]:
        b.append("<h2>Statically indeterminate components (not ranked)</h2>")
        marked = a.get("indeterminate_attribute", {})
        listed = marked.get("bearing_loads") or marked.get("joint_loads") or {}
        b.append("<p>The file marks these load components statically indeterminate (attribute "
                 "<code>statically_indeterminate</code>; docs/solver.md): redundant constraints let any "
                 "self-equilibrated set of them satisfy the equations, and the solver reports one admissible split "
                 "(the minimum-norm one). Their values are no prediction; take them from a model with the joints' "
                 "compliance. " + H.esc("; ".join(f"{j}: {' '.join(c)}" for j, c in listed.items())) + "</p>")
        rows_by = _by_unit(a["indeterminate"], recs)
        tables = []
        for u, keys in rows_by.items():
            du, f = recs[keys[0]]["display_units"], recs[keys[0]]["display_scale"]
            tables.append(H.table(["indeterminate component", f"median [{du}]", f"max [{du}]"],
                                  [[_name(recs[k]), U.scaled(recs[k]["quantiles"]["p50"], f),
                                    U.scaled(recs[k]["quantiles"]["max"], f)] for k in keys]))
        b.append(H.details(f"their peak values ({len(a['indeterminate'])}: one admissible split, not ranked)",
                           tables))
    return b


def _html(r: Dict, figs) -> str:
    imgs = {sec: [H.image(title, png) for s, (_, title, png) in figs if s == sec] for sec in
            ("answer", "health", "distributions", "peak_loads", "sobol", "traces")}
    run = r["run"]
    levels = r["quantile_levels"]
    b: List[str] = [f"<h1>SimPhant report: {H.esc(os.path.basename(r['results_file']))}</h1>", _summary(r)]
    b.append(H.lines(r["warnings"], "warn"))
    sens = r["peak_loads"]
    b += _answer_html(r, imgs)
    b.append("<h2>Details</h2>")
    b.append(H.details("Run and solver settings", [H.table(
        ["run", "value"], [[k + (f" [{RUN_UNITS[k]}]" if k in RUN_UNITS else ""), v]
                           for k, v in run.items() if v is not None] +
        [["instances (ok / failed)", f"{r['instances']['ok']} / {r['instances']['failed']}"]])]))
    recs = sens.get("outputs", {})
    det = [k for k, o in recs.items() if not o.get("statically_indeterminate")]
    if det:
        part = []
        for u, keys in _by_unit(det, recs).items():
            du, f = recs[keys[0]]["display_units"], recs[keys[0]]["display_scale"]
            part.append(H.table(["peak load", "source"] + [f"p{p:g} [{du}]" for p in levels],
                                [[_name(recs[k]), recs[k]["source"]] +
                                 [U.scaled(recs[k]["quantiles"][f"p{p:g}"], f) for p in levels] for k in keys],
                                left=2))
        names = sens.get("parameters") or []
        if names:
            part.append("<h3>Spearman rho / SRC per parameter</h3>")
            part.append(H.table(["peak load", "R^2 [1]", "driven by"] + [f"{n} [1]" for n in names],
                                [[_name(recs[k]), _r2(recs[k]["r2"]), sections.driver_text(recs[k])] +
                                 [f"{H.fmt(recs[k]['spearman'][n]['rho'])} / {H.fmt(recs[k]['src'][n])}"
                                  for n in names] for k in det], left=1, left_cols=(2,)))
        b.append(H.details("All peak loads against the swept parameters", part + imgs["peak_loads"]))
    local = r.get("local_sensitivities") or {}
    if local.get("outputs"):
        paths = local["parameters"]
        b.append(H.details("Local sensitivities (p / y) dy/dp of the peak loads", [
            "<p>Per instance, the derivative the run computed (docs/sensitivities.md) times the parameter's "
            "value over the peak's: the % change of the peak per % change of the parameter at that instance. "
            "Median and [p5, p95] over the ok instances.</p>",
            H.table(["peak load"] + [f"{p} [1]" for p in paths],
                    [[k] + [f"{H.fmt(rec[p]['normalised']['p50'])} [{H.fmt(rec[p]['normalised']['p5'])}, "
                            f"{H.fmt(rec[p]['normalised']['p95'])}]" for p in paths]
                     for k, rec in local["outputs"].items()])]))
    if r["sobol"]:
        s = r["sobol"]
        b.append(H.details("Sobol indices", [H.table(
            ["peak load", "parameter", "S1 [1]", "S1 conf [1]", "ST [1]", "ST conf [1]"],
            [[k, p, o["S1"][j], o["S1_conf"][j], o["ST"][j], o["ST_conf"][j]]
             for k, o in s["outputs"].items() for j, p in enumerate(s["parameters"])], left=2)] + imgs["sobol"]))
    h = r["health"]
    part = [H.table(["status", "instances"], list(h["status_counts"].items()))]
    if "reason_counts" in h:
        part.append(H.table(["reason", "instances"], list(h["reason_counts"].items())))
    for k, v in h["per_instance"].items():
        unit = str(v["units"]).split(" (")[0] or "?"
        part.append(H.table(["measure", "source"] + [f"p{q:g} [{unit}]" for q in levels],
                            [[k, v["source"]] + [v["quantiles"][f"p{q:g}"] for q in levels]], left=2))
    b.append(H.details("Run health", part + imgs["health"]))
    part = []
    for q, entry in r["distributions"].items():
        part.append(f"<h3>{H.esc(q)}</h3>")
        rows_by_unit: Dict[str, List] = {}
        for stat, per in entry.items():
            for key, v in per.items():
                rows_by_unit.setdefault(v["units"], []).append((stat, key, v))
        for u, rows in rows_by_unit.items():
            du, f = U.display_unit(u, [x for *_, v in rows if not v.get("statically_indeterminate")
                                       for x in (v["quantiles"]["min"], v["quantiles"]["max"])])
            part.append(H.table(["statistic"] + [f"p{p:g} [{du}]" for p in levels],
                                [[f"{stat} {key}" + (" (statically indeterminate)" if v.get("statically_indeterminate")
                                                     else "")] +
                                 [U.scaled(v["quantiles"][f"p{p:g}"], f) for p in levels] for stat, key, v in rows]))
    if part or imgs["distributions"]:
        b.append(H.details("Distributions of the reductions over time", part + imgs["distributions"]))
    if r["traces"]:
        b.append(H.details("Time traces", imgs["traces"]))
    b.append(H.details(f"Left out ({len(r['skipped'])})",
                       [H.lines(r["skipped"], "skip") or "<p>nothing</p>"]))
    return H.page(f"SimPhant report: {os.path.basename(r['results_file'])}", b)
