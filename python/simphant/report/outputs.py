"""The per-instance peak loads the report relates to the sweep parameters, from
/reductions/<quantity> when the run wrote them, else from the per-frame datasets
(docs/report.md, "Peak loads")."""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from .load import Output, ReportInputError, ResultFile

#: Quantities that give peak loads, in report order.
LOAD_QUANTITIES = ["bearing_loads", "reactions", "driver_loads", "contacts"]
#: The components of /reductions/reactions that give its peak loads: the magnitudes of the
#: force [N] and of the torque [N m] (docs/report.md, "Peak loads").
REACTION_MAGNITUDES = ("|f|", "|tau|")
#: The components of /contacts that give its peak loads: each pair's normal force and the
#: magnitude of its friction force [N] (docs/report.md, "Peak loads").
CONTACT_FORCES = ("normal_force", "friction_force")


def _peak_abs(rmax: np.ndarray, rmin: Optional[np.ndarray]) -> np.ndarray:
    """max |x| over time from the reductions max and min (min absent: |max|)."""
    return np.abs(rmax) if rmin is None else np.fmax(np.abs(rmax), np.abs(rmin))


def _peak_abs_derivative(rmax: np.ndarray, rmin: Optional[np.ndarray], dmax: np.ndarray,
                         dmin: Optional[np.ndarray]) -> np.ndarray:
    """d(max |x|)/dp (shape of dmax: (..., S)) from the derivatives of max and min: that of
    whichever gives the peak, times its sign (_peak_abs); NaN where the min gives it and
    its derivative is missing."""
    use_max = np.ones(rmax.shape, bool) if rmin is None else ~(np.abs(rmin) > np.abs(rmax))
    d = np.where(use_max[..., None], np.sign(rmax)[..., None] * dmax,
                 np.nan if dmin is None else np.sign(rmin)[..., None] * dmin)
    return d


def _from_reductions(rf: ResultFile, q: str) -> List[Output]:
    rmax = rf.reduction(q, "max")
    if rmax is None:
        return []
    rmin = rf.reduction(q, "min")
    if rmin is not None and rmin.shape != rmax.shape:
        raise ReportInputError(f"{rf.path}: /reductions/{q}/min has shape {rmin.shape}, max {rmax.shape}")
    ents, comps, units = rf.reduction_labels(q, rmax.shape)  # checks the shape against the layout
    if q == "driver_loads":  # (I, D): one component per driver
        rmax, rmin = rmax[:, :, None], None if rmin is None else rmin[:, :, None]
    peak = _peak_abs(rmax, rmin)
    # Its derivatives (docs/sensitivities.md), where the run computed them.
    dmax = rf.reduction_sensitivity(q, "max")
    dpeak = None
    if dmax is not None:
        dmin = rf.reduction_sensitivity(q, "min")
        if q == "driver_loads":
            dmax, dmin = dmax[:, :, None], None if dmin is None else dmin[:, :, None]
        dpeak = _peak_abs_derivative(rmax, rmin, dmax, dmin)
    keep = range(len(comps))
    if q in ("reactions", "contacts"):  # the magnitudes |f|, |tau|; the normal and friction forces
        keep = [c for c, n in enumerate(comps) if n in (REACTION_MAGNITUDES if q == "reactions" else CONTACT_FORCES)]
        if not keep:
            return []
    src = f"/reductions/{q}/max" + ("" if rmin is None else ", min")
    return [Output(f"{q}/{e}/{comps[c]}", q, e, comps[c], units[k][c], peak[:, k, c], src,
                   derivative=None if dpeak is None else dpeak[:, k, c])
            for k, e in enumerate(ents) for c in keep]


def _from_frames(rf: ResultFile, q: str) -> List[Output]:
    if not rf.has_frames(q):
        return []
    ds = rf.f[q]
    I = rf.n_instances
    if q == "reactions":
        peak = np.full((I, ds.shape[2], 2), np.nan)
        for sl, block in rf.instance_blocks(q):
            mag = np.stack([np.linalg.norm(block[..., 0:3], axis=-1), np.linalg.norm(block[..., 3:6], axis=-1)], -1)
            peak[sl] = np.fmax.reduce(mag, axis=0)
        ents, _, _ = rf.labels(q, (I, ds.shape[2], 8))
        comps, units = list(REACTION_MAGNITUDES), [["N", "N m"] for _ in ents]
    else:
        extra = ds.shape[2:] if q != "driver_loads" else ds.shape[2:] + (1,)
        peak = np.full((I,) + tuple(extra), np.nan)
        for sl, block in rf.instance_blocks(q):
            a = np.fmax.reduce(np.abs(block), axis=0)
            peak[sl] = a.reshape(a.shape[0], *extra)
        ents, comps, units = rf.labels(q, (I,) + tuple(extra) if q != "driver_loads" else (I, extra[0]),
                                       units=rf.units_attr(ds))
    keep = [c for c, n in enumerate(comps) if n in CONTACT_FORCES] if q == "contacts" else range(len(comps))
    return [Output(f"{q}/{e}/{comps[c]}", q, e, comps[c], units[k][c], peak[:, k, c], f"/{q} frames (max |x| over time)")
            for k, e in enumerate(ents) for c in keep]


def peak_loads(rf: ResultFile, quantities: List[str], skipped: List[str]) -> List[Output]:
    """Peak loads of the selected quantities; a line in `skipped` for each one absent. Each
    is flagged `indeterminate` when the file marks its component statically indeterminate
    (ResultFile.indeterminate)."""
    out: List[Output] = []
    for q in LOAD_QUANTITIES:
        if q not in quantities:
            continue
        got = _from_reductions(rf, q) if q in rf.reduction_quantities() else []
        if not got:
            got = _from_frames(rf, q)
        if got:
            marked = rf.indeterminate(q)
            for o in got:
                o.indeterminate = o.component in marked.get(o.entity, ())
            out.extend(got)
        else:
            skipped.append(f"peak loads: {q}: neither /reductions/{q} nor per-frame /{q} in the file")
    return out
