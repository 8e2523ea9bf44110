"""The statistics the report shows (definitions in docs/report.md): quantiles,
Spearman rank correlations, standardised regression coefficients (SRC) with the R^2 of
the linear model, Sobol indices from a Saltelli design (SALib), and quantile bands of
time traces."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import numpy as np
from scipy import stats as sps

QUANTILES = [1, 5, 50, 95, 99]
#: A peak load is said to be driven by its top-ranked parameter only when the linear
#: model of all the parameters explains at least this share of its variance (R^2);
#: below it the report says "no single parameter explains this" (docs/report.md).
R2_EXPLAINS = 0.5
BANDS = [5, 25, 50, 75, 95]


def quantiles(x: np.ndarray, qs: Sequence[float] = QUANTILES) -> Dict[str, Optional[float]]:
    """p<q> of the finite values of x (numpy's default linear interpolation), plus n, mean,
    min, max; None where x has no finite value."""
    x = np.asarray(x, dtype=np.float64).ravel()
    x = x[np.isfinite(x)]
    out: Dict[str, Optional[float]] = {"n": int(x.size)}
    if x.size == 0:
        out.update({f"p{q:g}": None for q in qs})
        out.update(mean=None, min=None, max=None)
        return out
    for q, v in zip(qs, np.percentile(x, qs)):
        out[f"p{q:g}"] = float(v)
    out.update(mean=float(x.mean()), min=float(x.min()), max=float(x.max()))
    return out


def spearman(x: np.ndarray, y: np.ndarray) -> Dict[str, Optional[float]]:
    """Spearman's rank correlation rho of y with x (average ranks for ties) and its
    two-sided p-value (scipy.stats.spearmanr); None when either is constant."""
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return {"rho": None, "p": None}
    r = sps.spearmanr(x, y)
    return {"rho": float(r.statistic), "p": float(r.pvalue)}


def src(X: np.ndarray, y: np.ndarray) -> Dict[str, object]:
    """Standardised regression coefficients of y on the columns of X (n, D).

    Fits y = b0 + sum_j b_j x_j by least squares; SRC_j = b_j sd(x_j) / sd(y), the same as
    the coefficients of the regression of the standardised y on the standardised x.
    R^2 = 1 - SS_res / SS_tot tells how much of y's variance the linear model explains; for
    independent inputs sum_j SRC_j^2 = R^2. Columns with zero spread get None."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n, D = X.shape
    if n < 3:
        return {"src": [None] * D, "r2": None}
    sy = y.std()
    sx = X.std(axis=0)
    use = sx > 0
    coef: List[Optional[float]] = [None] * D
    if n < int(use.sum()) + 2 or sy == 0 or not use.any():
        return {"src": coef, "r2": None}
    Z = (X[:, use] - X[:, use].mean(axis=0)) / sx[use]
    zy = (y - y.mean()) / sy
    b, *_ = np.linalg.lstsq(Z, zy, rcond=None)
    resid = zy - Z @ b
    r2 = 1.0 - float(resid @ resid) / float(zy @ zy)
    for j, v in zip(np.flatnonzero(use), b):
        coef[j] = float(v)
    return {"src": coef, "r2": r2}


def rank_by_src(names: Sequence[str], coefs: Sequence[Optional[float]]) -> List[str]:
    """Parameter names by decreasing |SRC| (None last)."""
    return [names[j] for j in sorted(range(len(names)), key=lambda j: -abs(coefs[j]) if coefs[j] is not None else 1)]


def saltelli_order(P: np.ndarray, N: int, second_order: bool) -> Optional[List[int]]:
    """The design's column order, found from the rows, for a file without the design's
    SALib problem (/params attribute `problem`): in SALib's Saltelli order each block
    of D + 2 (or 2 D + 2) rows starts with a row of matrix A, followed by D rows AB_j that
    differ from it in column j only. P (I, D) holds the parameters in the file's order;
    returns the file columns in design order, or None if the rows do not show it (also for
    a true Saltelli design whose A and B agree in a column of some block: an unscrambled
    Sobol' sequence starts at 0 in A and B, a `list` parameter repeats its values)."""
    I, D = P.shape
    step = 2 * D + 2 if second_order else D + 2
    if D == 0 or I != N * step:
        return None
    order: Optional[List[int]] = None
    for b in range(min(N, 16)):
        base = P[b * step]
        found = []
        for j in range(D):
            diff = np.flatnonzero(P[b * step + 1 + j] != base)
            if diff.size != 1:
                return None
            found.append(int(diff[0]))
        if order is None:
            order = found
        elif found != order:
            return None
    if order is None or sorted(order) != list(range(D)):
        return None
    return order


def sobol(names: Sequence[str], P: np.ndarray, y: np.ndarray, second_order: bool, seed: int = 0,
          num_resamples: int = 200, conf_level: float = 0.95) -> Dict[str, object]:
    """First-order (S1) and total (ST) Sobol indices of y with bootstrap confidence
    half-widths (SALib.analyze.sobol, Saltelli 2010 / Jansen estimators); P (I, D) in
    design order, y (I,) in the design's row order. S2 when second_order."""
    from SALib.analyze import sobol as salib_sobol

    lo, hi = P.min(axis=0), P.max(axis=0)
    problem = {"num_vars": len(names), "names": list(names),
               "bounds": [[float(a), float(b) if b > a else float(a) + 1.0] for a, b in zip(lo, hi)]}
    r = salib_sobol.analyze(problem, y, calc_second_order=second_order, num_resamples=num_resamples,
                            conf_level=conf_level, seed=seed)
    out: Dict[str, object] = {
        "S1": [float(v) for v in r["S1"]], "S1_conf": [float(v) for v in r["S1_conf"]],
        "ST": [float(v) for v in r["ST"]], "ST_conf": [float(v) for v in r["ST_conf"]],
        "conf_level": conf_level, "num_resamples": num_resamples}
    if second_order:
        out["S2"] = [[None if not np.isfinite(v) else float(v) for v in row] for row in r["S2"]]
        out["S2_conf"] = [[None if not np.isfinite(v) else float(v) for v in row] for row in r["S2_conf"]]
    return out


def bands(frames: np.ndarray) -> Dict[str, List[Optional[float]]]:
    """Per frame of (T, n) values: p5 p25 p50 p75 p95 over the finite values (NaN skipped);
    None for a frame with none."""
    out: Dict[str, List[Optional[float]]] = {f"p{q}": [] for q in BANDS}
    for row in frames:
        row = row[np.isfinite(row)]
        vals = np.percentile(row, BANDS) if row.size else [None] * len(BANDS)
        for q, v in zip(BANDS, vals):
            out[f"p{q}"].append(None if v is None else float(v))
    return out
