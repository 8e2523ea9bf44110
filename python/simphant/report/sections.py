"""The report's sections: each returns its numbers (for report.json) and its figures
(title, PNG bytes). docs/report.md describes every figure and statistic."""
from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import figures, stats
from . import units as U
from .load import REDUCTION_STATS, STATUS_NAMES, Output, ReportInputError, ResultFile
from .outputs import CONTACT_FORCES

Figure = Tuple[str, str, bytes]  # (file stem, title, PNG)

#: At most this many points per scatter panel (every k-th ok instance); the statistics use all.
MAX_SCATTER_POINTS = 2000
#: Time traces use every k-th instance, k = ceil(I / MAX_TRACE_INSTANCES).
MAX_TRACE_INSTANCES = 10000
#: At most this many parameters per scatter figure (those with the largest |rho| first).
MAX_SCATTER_PARAMS = 8
#: Outputs per scatter / ranking figure.
OUTPUTS_PER_FIGURE = 8
#: Local sensitivities leave out a peak whose median is below this fraction of the largest
#: median peak in its unit (section local_sensitivity).
LOCAL_NOISE_FLOOR = 1e-6
#: Per-frame datasets with time traces, in report order.
TRACE_QUANTITIES = ["bearing_loads", "reactions", "driver_loads", "contacts", "energy", "constraint_violation"]


def _finite_or_none(v):
    return None if v is None or not math.isfinite(v) else float(v)


def _every(n: int, cap: int) -> int:
    return max(1, -(-n // cap))


def _shown(every: int) -> str:
    return "all ok instances shown" if every == 1 else f"1 in {every} ok instances shown"


def _units(rf: ResultFile, name: str, fallback: str = "") -> str:
    """The `units` attribute of a dataset or reductions group of one component, as the file
    writes it (fallback when absent)."""
    u = rf.units_attr(rf.f[name]) if name in rf.f else []
    return " | ".join(dict.fromkeys(u)) if u else fallback


# ---- (d) run health --------------------------------------------------------------------
def health(rf: ResultFile, ok: np.ndarray, quantities: Sequence[str], skipped: List[str]):
    data: Dict[str, object] = {}
    figs: List[Figure] = []
    status = rf.status()
    if status is None:
        skipped.append("run health: no /status in the file: every instance counted as ok")
    counts = {}
    if status is not None:
        for code in np.unique(status):
            name = STATUS_NAMES[code] if 0 <= code < len(STATUS_NAMES) else f"code {code}"
            counts[name] = int((status == code).sum())
    else:
        counts["ok"] = int(ok.size)
    data["status_counts"] = counts
    reasons = rf.status_reason()
    if reasons is not None:
        codes, names = reasons
        data["reason_counts"] = {(names[c] if 0 <= c < len(names) else f"code {c}"): int((codes == c).sum())
                                 for c in np.unique(codes)}
        figs.append(("status", "Instance status and reasons",
                     figures.bars("instances by status reason (/status_reason)", data["reason_counts"])))
    else:
        skipped.append("run health: no /status_reason in the file")
        figs.append(("status", "Instance status", figures.bars("instances by /status", counts)))

    # name: (values (I,), source, units from the file)
    per_instance: Dict[str, Tuple[np.ndarray, str, str]] = {}
    if "constraint_violation" in quantities:
        v = rf.reduction("constraint_violation", "max")
        if v is not None:
            per_instance["max_constraint_violation"] = (v.reshape(-1), "/reductions/constraint_violation/max",
                                                        _units(rf, "reductions/constraint_violation"))
        elif rf.has_frames("constraint_violation"):
            v = np.full(rf.n_instances, np.nan)
            for sl, block in rf.instance_blocks("constraint_violation"):
                v[sl] = np.fmax.reduce(block, axis=0)
            per_instance["max_constraint_violation"] = (v, "/constraint_violation frames, max over time",
                                                        _units(rf, "constraint_violation"))
        else:
            skipped.append("run health: constraint violation: neither /reductions/constraint_violation nor frames")
    if "energy" in quantities:
        emax, emin = rf.reduction("energy", "max"), rf.reduction("energy", "min")
        if emax is not None and emin is not None and rf.has_frames("energy"):
            # every step (the reductions) against the first frame E(t_0): max |E - E0| exactly
            e0 = np.asarray(rf.f["energy"][0], dtype=np.float64)
            d = np.fmax(np.abs(emax.reshape(-1) - e0), np.abs(emin.reshape(-1) - e0))
            per_instance["energy_drift_abs"] = (d, "/reductions/energy max, min and the first /energy frame: "
                                                   "max over every step of |E(t) - E(t_0)|",
                                                _units(rf, "reductions/energy", "J"))
        elif rf.has_frames("energy"):
            d = np.full(rf.n_instances, np.nan)
            for sl, block in rf.instance_blocks("energy"):
                d[sl] = np.fmax.reduce(np.abs(block - block[:1]), axis=0)
            per_instance["energy_drift_abs"] = (d, "/energy frames, max over the frames of |E(t) - E(t_0)|",
                                                _units(rf, "energy", "J"))
        elif emax is not None and emin is not None:
            per_instance["energy_range"] = ((emax - emin).reshape(-1),
                                            "/reductions/energy max - min (>= max |E(t) - E(t_0)|)",
                                            _units(rf, "reductions/energy", "J"))
        else:
            skipped.append("run health: energy drift: neither /energy frames nor /reductions/energy max, min")
    dist = {}
    panels = []
    for name, (x, src, units) in per_instance.items():
        q = stats.quantiles(x[ok])
        dist[name] = {"source": src, "units": units, "quantiles": q}
        with np.errstate(divide="ignore"):
            lx = np.log10(x[ok])
        panels.append((f"log10 {name} [{units.split(' (')[0] or '?'}]", lx, stats.quantiles(lx)))
    data["per_instance"] = dist
    if panels:
        figs.append(("health_distributions", "Constraint violation and energy drift (ok instances, log10)",
                     figures.histograms("per-instance health measures (log10)", panels, ncols=2)))
    return data, figs


def run_warnings(rf: ResultFile, n_failed: int) -> List[str]:
    """Warnings from the root attributes and the status."""
    a = rf.attrs
    w: List[str] = []
    if int(a.get("interrupted", 0)) != 0 or a.get("stop_reason", "completed") != "completed":
        w.append(f"the run did not complete: stop_reason = {a.get('stop_reason', '?')!r}, "
                 f"interrupted = {a.get('interrupted', '?')}; frames = {a.get('frames', '?')}")
    if "shard_index" in a:
        w.append(f"a shard file: shard {a['shard_index']} of {a.get('shard_count', '?')}, instances from "
                 f"{a.get('instance_offset', '?')} of {a.get('n_instances_total', '?')}; merge the shards "
                 "(`simphant merge`) for the whole design")
    extra = a.get("warnings")
    if extra:
        w.extend([extra] if isinstance(extra, str) else list(extra))
    if n_failed:
        w.append(f"{n_failed} instance(s) failed (status != 0) and are left out of every statistic")
    return w


# ---- (a) distributions of the reductions -----------------------------------------------
def distributions(rf: ResultFile, ok: np.ndarray, quantities: Sequence[str], skipped: List[str]):
    data: Dict[str, object] = {}
    figs: List[Figure] = []
    present = rf.reduction_quantities()
    if not present:
        skipped.append("distributions: no /reductions group in the file (run with output.reductions)")
    for q in quantities:
        if q not in present:
            if present:
                skipped.append(f"distributions: no /reductions/{q} in the file")
            continue
        entry: Dict[str, object] = {}
        panels = []
        marked = rf.indeterminate(q)
        for stat in REDUCTION_STATS:
            a = rf.reduction(q, stat)
            if a is None:
                continue
            a3 = a.reshape(a.shape[0], 1, -1) if a.ndim == 1 or q in ("constraint_violation", "energy") else (
                a[:, :, None] if a.ndim == 2 else a)
            ents, comps, units = rf.reduction_labels(q, a.shape)
            per = {}
            for k, e in enumerate(ents):
                for c, comp in enumerate(comps):
                    x = a3[ok, k, c]
                    if not np.isfinite(x).any():
                        continue  # e.g. joint_coordinates of a spherical joint (NaN by the contract)
                    q_ = stats.quantiles(x)
                    per[f"{e}/{comp}"] = {"units": units[k][c], "quantiles": q_}
                    if comp in marked.get(e, ()):
                        per[f"{e}/{comp}"]["statically_indeterminate"] = True
                    elif stat == "max":  # the indeterminate ones' histograms would show one admissible split
                        panels.append((e, comp, units[k][c], x, q_))
            entry[stat] = per
        data[q] = entry
        if panels:
            disp = {u: U.display_unit(u, [v for *_, uu, x, q_ in panels if uu == u for v in (q_["min"], q_["max"])])
                    for u in dict.fromkeys(p[2] for p in panels)}
            shown = [(U.label(f"{e} {comp}", disp[u][0]), x * disp[u][1],
                      {k: U.scaled(v, disp[u][1]) for k, v in q_.items() if k.startswith("p")})
                     for e, comp, u, x, q_ in panels]
            figs.append((f"distribution_{q}", f"Distribution of the maximum over time: {q}",
                         figures.histograms(f"/reductions/{q}/max over the ok instances", shown)))
    return data, figs


# ---- (b) peak loads against the parameters ---------------------------------------------
def unit_map(outputs: List[Output], ok: np.ndarray) -> Dict[str, Tuple[str, float]]:
    """SI unit -> (display unit, factor) shared by every peak load of that unit, chosen from
    the largest finite determinate peak of the ok instances (the values the tables show;
    from all the outputs of the unit when none is determinate)."""
    out: Dict[str, Tuple[str, float]] = {}
    for u in dict.fromkeys(o.units for o in outputs):
        same = [o for o in outputs if o.units == u]
        pick = [o for o in same if not o.indeterminate] or same
        peaks = []
        for o in pick:
            shown = np.abs(np.asarray(o.values, float)[ok])
            shown = shown[np.isfinite(shown)]
            peaks.append(float(shown.max()) if shown.size else None)
        out[u] = U.display_unit(u, peaks)
    return out


def sensitivity(rf: ResultFile, ok: np.ndarray, params: Dict[str, np.ndarray], outputs: List[Output],
                skipped: List[str]):
    names = list(params)
    punits = rf.parameter_units()
    units = unit_map(outputs, ok)
    data: Dict[str, object] = {"parameters": names, "outputs": {}, "r2_threshold": stats.R2_EXPLAINS,
                               "parameter_units": {n: punits.get(n, "") for n in names},
                               "parameter_display_units": {n: list(U.display_unit(punits.get(n, ""), params[n][ok]))
                                                           for n in names},
                               "display_units": {u: list(v) for u, v in units.items()}}
    figs: List[Figure] = []
    if not outputs:
        skipped.append("peak loads: none of the selected quantities is in the file")
        return data, figs
    X = np.column_stack([params[n][ok] for n in names]) if names else np.empty((int(ok.sum()), 0))
    if not names:
        skipped.append("sensitivity: no /params in the file (not a sweep)")
    for o in outputs:
        y = o.values[ok]
        fin = np.isfinite(y) & np.isfinite(X).all(axis=1)
        rec: Dict[str, object] = {"quantity": o.quantity, "entity": o.entity, "component": o.component,
                                  "units": o.units, "display_units": units[o.units][0],
                                  "display_scale": units[o.units][1], "source": o.source, "n": int(fin.sum()),
                                  "quantiles": stats.quantiles(y), "statically_indeterminate": o.indeterminate}
        if names and not o.indeterminate:  # an indeterminate component is never ranked
            rec["spearman"] = {n: stats.spearman(X[fin, j], y[fin]) for j, n in enumerate(names)}
            s = stats.src(X[fin], y[fin])
            rec["src"] = dict(zip(names, s["src"]))
            rec["r2"] = s["r2"]
            rec["ranking"] = stats.rank_by_src(names, s["src"])
            rec["explained"] = s["r2"] is not None and s["r2"] >= stats.R2_EXPLAINS
            rec["driver"] = rec["ranking"][0] if rec["explained"] else None
        data["outputs"][o.key] = rec
    marked = [o.key for o in outputs if o.indeterminate]
    if marked:
        skipped.append(f"sensitivity: statically indeterminate (the file's attribute statically_indeterminate), "
                       f"shown apart and not ranked: {', '.join(marked)}")
    if names:
        det = [o for o in outputs if not o.indeterminate]
        varying = [o for o in det if data["outputs"][o.key]["r2"] is not None]
        flat = [o.key for o in det if data["outputs"][o.key]["r2"] is None]
        if flat:
            skipped.append(f"scatter and SRC figures: constant (or too few finite values) over the ok instances: "
                           f"{', '.join(flat)}")
        figs += _sensitivity_figures(names, X, ok, varying, data["outputs"], data)
        data["scatter_every"] = _every(int(ok.sum()), MAX_SCATTER_POINTS)
    return data, figs


def local_sensitivity(rf: ResultFile, ok: np.ndarray, outputs: List[Output], skipped: List[str]) -> Dict[str, object]:
    """The local normalised sensitivities of the peak loads (docs/report.md, "Local
    sensitivities"): per ok instance (p / y) dy/dp, from the derivatives the run computed
    (/reduction_sensitivities, docs/sensitivities.md) and each instance's parameter values
    (/sensitivity_values); their quantiles over the ok instances, and those of dy/dp in
    the peak's unit per the parameter's. {} when the run computed none."""
    paths = rf.sensitivity_paths()
    if not paths:
        return {}
    values = rf.sensitivity_values()
    data: Dict[str, object] = {"parameters": paths, "outputs": {}}
    with_derivative = [o for o in outputs if o.derivative is not None and not o.indeterminate]
    # A peak at the rounding level of its unit (a frictionless pin's moment about its own
    # axis: 1e-9 of the bearing moments) has no meaningful relative change.
    typical = {o.key: float(np.nanmedian(np.abs(o.values[ok]))) if ok.any() else math.nan for o in with_derivative}
    largest: Dict[str, float] = {}
    for o in with_derivative:
        largest[o.units] = np.nanmax([largest.get(o.units, 0.0), typical[o.key]])
    tiny = [o.key for o in with_derivative if not typical[o.key] > LOCAL_NOISE_FLOOR * largest[o.units]]
    if tiny:
        skipped.append(f"local sensitivities: peaks below {LOCAL_NOISE_FLOOR:g} of the largest peak in their unit "
                       f"(rounding, not loads): {', '.join(tiny)}")
    for o in with_derivative:
        if o.key in tiny:
            continue
        y, d, p = o.values[ok], o.derivative[ok], values[ok]
        with np.errstate(divide="ignore", invalid="ignore"):
            normalised = p * d / y[:, None]
        data["outputs"][o.key] = {
            path: {"normalised": stats.quantiles(normalised[:, j]), "derivative": stats.quantiles(d[:, j]),
                   "units": f"{o.units} / parameter unit"}
            for j, path in enumerate(paths)}
    if not data["outputs"]:
        skipped.append("local sensitivities: the run computed sensitivities but no derivative of a peak load "
                       "(/reduction_sensitivities needs output.reductions)")
    return data


def driver_text(rec: Dict[str, object]) -> str:
    """What drives a peak load, in words: the top parameter, or why none is named."""
    if rec.get("statically_indeterminate"):
        return "statically indeterminate: not ranked"
    if "ranking" not in rec:
        return "not a sweep (no /params)"
    r2 = rec.get("r2")
    if r2 is None:
        return "constant over the instances"
    if not rec.get("explained"):
        return f"no single parameter explains this; R^2 = {r2:.3f}"
    return str(rec["driver"])


def _sensitivity_figures(names, X, ok, outputs: List[Output], recs, data) -> List[Figure]:
    figs: List[Figure] = []
    every = _every(X.shape[0], MAX_SCATTER_POINTS)
    pdisp = data["parameter_display_units"]
    by_q: Dict[str, List[Output]] = {}
    for o in outputs:
        by_q.setdefault(o.quantity, []).append(o)
    for q, outs in by_q.items():
        for part in range(0, len(outs), OUTPUTS_PER_FIGURE):
            chunk = outs[part:part + OUTPUTS_PER_FIGURE]
            suffix = f"_{part // OUTPUTS_PER_FIGURE + 1}" if len(outs) > OUTPUTS_PER_FIGURE else ""
            score = np.zeros(len(names))
            for o in chunk:
                for j, n in enumerate(names):
                    r = recs[o.key]["spearman"][n]["rho"]
                    score[j] = max(score[j], abs(r) if r is not None else 0.0)
            cols = sorted(np.argsort(-score, kind="stable")[:MAX_SCATTER_PARAMS])
            rows = [(U.label(f"{o.entity} {o.component}", recs[o.key]["display_units"]),
                     o.values[ok][::every] * recs[o.key]["display_scale"]) for o in chunk]
            rho = [[recs[o.key]["spearman"][names[j]]["rho"] for j in cols] for o in chunk]
            xs = np.column_stack([X[::every, j] * pdisp[names[j]][1] for j in cols]) if cols else X[::every][:, cols]
            figs.append((f"scatter_{q}{suffix}", f"Peak {q} against the swept parameters",
                         figures.scatter(f"peak {q} vs parameters ({_shown(every)})",
                                         [U.label(names[j], pdisp[names[j]][0]) for j in cols], xs, rows, rho)))
            figs.append((f"src_{q}{suffix}", f"Sensitivity ranking of peak {q} (SRC)",
                         figures.ranking(f"standardised regression coefficients: peak {q}", names,
                                         [(f"{o.entity} {o.component}", [recs[o.key]["src"][n] for n in names],
                                           recs[o.key]["r2"]) for o in chunk], stats.R2_EXPLAINS)))
    return figs


# ---- the answer: the few peak loads that matter and what drives each -------------------
#: A determinate peak load whose largest value is below this fraction of the largest peak
#: of the same unit is negligible: listed in the detail tables, not in the answer.
NEGLIGIBLE_FRACTION = 0.01
#: At most this many rows in the answer (the rest stay in the detail tables).
MAX_ANSWER_ROWS = 8
#: At most this many panels in the answer's figure.
MAX_ANSWER_PANELS = 5


def answer(ok: np.ndarray, params: Dict[str, np.ndarray], outputs: List[Output], sens: Dict[str, object]):
    """The peak loads that matter (determinate, not negligible, one form per joint: the
    bearing loads when the file has them, else the reactions' magnitudes), largest first
    per unit, each with what drives it; the indeterminate ones apart."""
    recs = sens.get("outputs", {})
    det = [o for o in outputs if not o.indeterminate and recs[o.key]["quantiles"]["max"] is not None]
    largest: Dict[str, float] = {}
    for o in det:
        largest[o.units] = max(largest.get(o.units, 0.0), abs(recs[o.key]["quantiles"]["max"]))
    with_bearing = {o.entity for o in det if o.quantity == "bearing_loads"}
    negligible, same_as_bearing, cands = [], [], []
    for o in det:
        big = largest[o.units]
        if big == 0 or abs(recs[o.key]["quantiles"]["max"]) < NEGLIGIBLE_FRACTION * big:
            negligible.append(o.key)
        elif o.quantity == "reactions" and o.entity in with_bearing:
            same_as_bearing.append(o.key)
        else:
            cands.append(o)
    order = {u: k for k, u in enumerate(dict.fromkeys(["N", "N m"] + [o.units for o in cands]))}
    cands.sort(key=lambda o: (order[o.units], -(recs[o.key]["quantiles"]["p50"] or 0.0)))
    shown = cands[:MAX_ANSWER_ROWS]
    rows = []
    for o in shown:
        rec = recs[o.key]
        row = {"key": o.key, "units": o.units, "display_units": rec["display_units"],
               "display_scale": rec["display_scale"],
               **{k: rec["quantiles"][k] for k in ("p5", "p50", "p95", "max", "n")},
               "r2": rec.get("r2"), "explained": bool(rec.get("explained")), "driver": rec.get("driver"),
               "driven_by": driver_text(rec)}
        if rec.get("driver"):
            row["src"] = rec["src"][rec["driver"]]
            row["rho"] = rec["spearman"][rec["driver"]]["rho"]
        rows.append(row)
    data = {"rows": rows, "r2_threshold": stats.R2_EXPLAINS, "negligible_fraction": NEGLIGIBLE_FRACTION,
            "negligible": negligible, "same_as_bearing_loads": same_as_bearing,
            "not_shown": [o.key for o in cands[MAX_ANSWER_ROWS:]],
            "indeterminate": [o.key for o in outputs if o.indeterminate]}
    figs: List[Figure] = []
    names = list(params)
    if names and rows:
        pdisp = sens["parameter_display_units"]
        every = _every(int(ok.sum()), MAX_SCATTER_POINTS)
        panels = []
        for row, o in zip(rows, shown):
            rec = recs[o.key]
            if rec.get("r2") is None:
                continue
            p = rec["driver"] or rec["ranking"][0]
            x = params[p][ok][::every] * pdisp[p][1]
            y = o.values[ok][::every] * rec["display_scale"]
            title = (f"R^2 = {rec['r2']:.3f}, SRC = {rec['src'][p]:+.2f}" if rec.get("explained")
                     else f"no single parameter explains this\nR^2 = {rec['r2']:.3f}")
            panels.append((title, U.label(p, pdisp[p][0]), x,
                           U.label(f"{o.entity} {o.component}", rec["display_units"]), y, bool(rec.get("explained"))))
        panels = panels[:MAX_ANSWER_PANELS]
        if panels:
            figs.append(("answer", "The peak loads that matter against the parameter that drives each",
                         figures.answer(panels)))
    return data, figs


def sobol_section(rf: ResultFile, ok: np.ndarray, params: Dict[str, np.ndarray], outputs: List[Output],
                  skipped: List[str]):
    """Sobol indices when the root attribute sweep_mode is "saltelli"; None otherwise."""
    if rf.attrs.get("sweep_mode") != "saltelli":
        return None, []
    try:
        N = int(rf.attrs["saltelli_base"])
        second = bool(int(rf.attrs.get("saltelli_second_order", 0)))
    except (KeyError, TypeError, ValueError):
        skipped.append("Sobol indices: sweep_mode is saltelli but the root attribute saltelli_base is missing")
        return None, []
    names = list(params)
    D = len(names)
    rows = N * ((2 * D + 2) if second else (D + 2))
    P = np.column_stack([params[n] for n in names]) if names else np.empty((rf.n_instances, 0))
    if D == 0 or rf.n_instances != rows:
        skipped.append(f"Sobol indices: the {rf.n_instances} rows of /params are not a Saltelli design of "
                       f"base {N} over {D} parameters ({rows} rows in SALib's order); a shard file holds "
                       "part of the design only: merge the shards first (`simphant merge`)")
        return None, []
    try:
        problem = rf.design_problem()
    except ReportInputError as e:
        skipped.append(f"Sobol indices: {e}")
        return None, []
    if problem is not None:  # the design's own column order
        if sorted(problem["names"]) != sorted(names):
            skipped.append(f"Sobol indices: the names of the /params attribute problem ({problem['names']}) are "
                           f"not the /params datasets ({names})")
            return None, []
        order: Optional[List[int]] = [names.index(n) for n in problem["names"]]
    else:  # a file without the problem: the order found from the rows
        order = stats.saltelli_order(P, N, second)
        if order is None:
            skipped.append("Sobol indices: the design's column order is unknown: /params has no attribute "
                           "problem, and the rows do not show it (an AB_j row must differ from its A row in "
                           "column j only; an unscrambled design or a `list` parameter makes A and B agree)")
            return None, []
    if not ok.all():
        skipped.append(f"Sobol indices: {int((~ok).sum())} failed instance(s): the estimators need every row")
        return None, []
    design = [names[j] for j in order]
    data: Dict[str, object] = {"parameters": design, "base_samples": N, "second_order": second, "outputs": {}}
    panels = []
    for o in outputs:
        if o.indeterminate:  # never ranked (listed once under sensitivity in `skipped`)
            continue
        if not np.isfinite(o.values).all():
            skipped.append(f"Sobol indices: {o.key}: non-finite values")
            continue
        if np.ptp(o.values) == 0:
            skipped.append(f"Sobol indices: {o.key}: constant over the design")
            continue
        s = stats.sobol(design, P[:, order], o.values, second)
        data["outputs"][o.key] = s
        panels.append((f"{o.entity} {o.component}", s))
    figs = [(f"sobol_{k // OUTPUTS_PER_FIGURE + 1}", "Sobol indices (S1, ST with confidence intervals)",
             figures.sobol_bars("Sobol indices of the peak loads", design, panels[k:k + OUTPUTS_PER_FIGURE]))
            for k in range(0, len(panels), OUTPUTS_PER_FIGURE)]
    return data, figs


# ---- (c) time traces ---------------------------------------------------------------------
def traces(rf: ResultFile, ok: np.ndarray, quantities: Sequence[str], skipped: List[str]):
    data: Dict[str, object] = {}
    figs: List[Figure] = []
    if rf.frames() == 0:
        skipped.append("time traces: the file has no frames (/time is empty or absent)")
        return data, figs
    if rf.frames() < 3:  # two points per instance are no trace
        skipped.append("time traces: only the first and last frames were recorded; see the reductions"
                       if rf.frames() == 2 else "time traces: only one frame was recorded; see the reductions")
        return data, figs
    t = rf.time()
    every = _every(rf.n_instances, MAX_TRACE_INSTANCES)
    sub_ok = ok[::every]
    data["time"] = t.tolist()
    data["instance_every"] = every
    data["traces"] = {}
    for q in TRACE_QUANTITIES:
        if q not in quantities:
            continue
        if not rf.has_frames(q):
            skipped.append(f"time traces: no per-frame /{q} in the file")
            continue
        a = rf.frames_strided(q, every)[:, sub_ok]
        panels: List[Tuple[str, np.ndarray, str]] = []
        if q == "reactions":
            ents, _, _ = rf.labels(q, (1, a.shape[2], 8))
            for k, e in enumerate(ents):
                panels.append((f"{e}/|f|", np.linalg.norm(a[:, :, k, 0:3], axis=-1), "N"))
                panels.append((f"{e}/|tau|", np.linalg.norm(a[:, :, k, 3:6], axis=-1), "N m"))
        elif a.ndim == 2:
            panels.append((f"all/{q}", a, _units(rf, q, "J" if q == "energy" else "")))
        else:
            shape = (1,) + a.shape[2:]
            ents, comps, units = rf.labels(q, shape, units=rf.units_attr(rf.f[q]))
            a4 = a if a.ndim == 4 else a[..., None]
            for k, e in enumerate(ents):
                for c, comp in enumerate(comps):
                    if q != "contacts" or comp in CONTACT_FORCES:
                        panels.append((f"{e}/{comp}", a4[:, :, k, c], units[k][c]))
        entries = {}
        for key, vals, units in panels:
            entries[key] = {"units": units, **stats.bands(vals)}
        data["traces"][q] = entries
        disp = {u: U.display_unit(u, [x for v in entries.values() if v["units"] == u for b in v.values()
                                      if isinstance(b, list) for x in b])
                for u in dict.fromkeys(v["units"] for v in entries.values())}
        shown = [(U.label(k, disp[v["units"]][0]),
                  {b: [U.scaled(x, disp[v["units"]][1]) for x in vals] for b, vals in v.items() if b != "units"})
                 for k, v in entries.items()]
        figs.append((f"traces_{q}", f"Time traces: {q} (median, p25-p75, p5-p95 over the ok instances)",
                     figures.traces(f"/{q} over time", t, shown)))
    return data, figs
