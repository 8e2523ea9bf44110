"""The report's figures, drawn with matplotlib's Agg canvas (no display, no pyplot state)
and returned as PNG bytes. Each function draws exactly the numbers the report stores in
report.json for that figure (docs/report.md)."""
from __future__ import annotations

import io
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

DPI = 90


def _png(fig: Figure, left: float = 0.6, bottom: float = 0.5, top: float = 0.8, wspace: float = 0.35,
         hspace: float = 0.55) -> bytes:
    """PNG of the figure. Margins are fixed (left, bottom, top in inches; wspace, hspace as
    fractions of a panel): matplotlib's constrained layout measures every label and costs
    several times the drawing."""
    FigureCanvasAgg(fig)
    w, h = fig.get_size_inches()
    fig.subplots_adjust(left=left / w, right=1 - 0.15 / w, bottom=bottom / h, top=1 - top / h, wspace=wspace,
                        hspace=hspace)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return buf.getvalue()


def _grid(n: int, ncols: int, w: float = 3.2, h: float = 2.4) -> Tuple[Figure, list]:
    ncols = max(1, min(ncols, n))
    nrows = max(1, (n + ncols - 1) // ncols)
    fig = Figure(figsize=(w * ncols, h * nrows + 0.4))
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    for ax in axes[n:]:
        ax.set_axis_off()
    return fig, axes[:n]


def histograms(title: str, panels: Sequence[Tuple[str, np.ndarray, Dict[str, Optional[float]]]],
               bins: int = 40, ncols: int = 4) -> bytes:
    """One histogram per panel (label, finite values, quantiles) with p5 / p50 / p95 marked."""
    fig, axes = _grid(len(panels), ncols)
    for ax, (label, x, q) in zip(axes, panels):
        x = x[np.isfinite(x)]
        if x.size:
            ax.hist(x, bins=bins, color="#4477aa")
            for key, style in (("p5", ":"), ("p50", "-"), ("p95", ":")):
                if q.get(key) is not None:
                    ax.axvline(q[key], color="#cc3311", ls=style, lw=1)
        ax.set_title(label, fontsize=8)
        ax.set_xlabel(label, fontsize=7)
        ax.set_ylabel("instances", fontsize=7)
        ax.ticklabel_format(axis="x", useOffset=False)
        ax.tick_params(labelsize=7)
    fig.suptitle(title, fontsize=10)
    return _png(fig, bottom=0.6, hspace=0.75)


def _plain(ax) -> None:
    """Tick labels as plain numbers: no offset ("+5e1") that would hide the values."""
    for axis in ("x", "y"):
        try:
            ax.ticklabel_format(axis=axis, useOffset=False, style="plain")
        except AttributeError:  # not a scalar formatter
            pass


def scatter(title: str, params: Sequence[str], X: np.ndarray, rows: Sequence[Tuple[str, np.ndarray]],
            rho: Sequence[Sequence[Optional[float]]]) -> bytes:
    """Scatter of each output (rows: label, values) against each parameter (columns of X),
    Spearman's rho in each panel's title. X and the rows hold the plotted subsample."""
    nr, nc = len(rows), len(params)
    fig = Figure(figsize=(2.6 * nc + 0.5, 2.1 * nr + 0.5))
    axes = fig.subplots(nr, nc, squeeze=False)
    for i, (label, y) in enumerate(rows):
        for j, p in enumerate(params):
            ax = axes[i][j]
            ax.scatter(X[:, j], y, s=3, alpha=0.5, color="#4477aa", rasterized=True)
            _plain(ax)
            r = rho[i][j]
            ax.set_title(f"rho = {r:+.2f}" if r is not None else "rho: n/a", fontsize=7)
            ax.tick_params(labelsize=6)
            if i == nr - 1:
                ax.set_xlabel(p, fontsize=7)
            if j == 0:
                ax.set_ylabel(label, fontsize=7)
    fig.suptitle(title, fontsize=10)
    return _png(fig, left=0.7, bottom=0.55, wspace=0.3, hspace=0.45)


def ranking(title: str, params: Sequence[str], outputs: Sequence[Tuple[str, Sequence[Optional[float]],
                                                                          Optional[float]]],
            r2_explains: float = 0.5) -> bytes:
    """Horizontal bars of SRC per parameter, one panel per output (label, src, R^2); a panel
    whose R^2 is below r2_explains is grey and says that no single parameter explains it."""
    label_in = 0.065 * max((len(p) for p in params), default=1) + 0.2  # width of the parameter names [in]
    fig, axes = _grid(len(outputs), 3, w=2.4 + label_in, h=0.3 * len(params) + 1.2)
    ypos = np.arange(len(params))
    for ax, (label, coefs, r2) in zip(axes, outputs):
        v = np.array([c if c is not None else 0.0 for c in coefs])
        low = r2 is None or r2 < r2_explains
        ax.barh(ypos, v, color="#bbbbbb" if low else np.where(v >= 0, "#4477aa", "#cc3311"))
        ax.set_yticks(ypos, params, fontsize=7)
        ax.invert_yaxis()
        ax.axvline(0, color="k", lw=0.5)
        lim = max(1.05, 1.05 * float(np.abs(v).max(initial=0.0)))  # |SRC| > 1 happens with correlated inputs
        ax.set_xlim(-lim, lim)
        ax.set_title(f"{label}\nR^2 = {r2:.3f}" + (": no single parameter explains it" if low else "")
                     if r2 is not None else f"{label}\nR^2: n/a", fontsize=7)
        ax.set_xlabel("SRC [1]", fontsize=7)
        ax.tick_params(labelsize=7)
    fig.suptitle(title, fontsize=10)
    return _png(fig, left=label_in + 0.1, bottom=0.6, wspace=label_in / 2.2 + 0.1, hspace=0.9)


def sobol_bars(title: str, params: Sequence[str], outputs: Sequence[Tuple[str, Dict[str, List[float]]]]) -> bytes:
    """S1 and ST with their confidence half-widths as error bars, one panel per output."""
    fig, axes = _grid(len(outputs), 3, w=3.8, h=2.6)
    x = np.arange(len(params))
    for ax, (label, s) in zip(axes, outputs):
        ax.bar(x - 0.2, s["S1"], 0.4, yerr=s["S1_conf"], label="S1", color="#4477aa", capsize=2)
        ax.bar(x + 0.2, s["ST"], 0.4, yerr=s["ST_conf"], label="ST", color="#ee7733", capsize=2)
        ax.set_xticks(x, params, fontsize=6, rotation=30, ha="right")
        ax.set_title(label, fontsize=7)
        ax.set_ylabel("index [1]", fontsize=7)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    fig.suptitle(title, fontsize=10)
    # the rotated parameter names reach left of their panel by about 0.045 in per character
    reach = 0.045 * max((len(p) for p in params), default=1)
    return _png(fig, left=max(0.6, reach), bottom=max(1.0, 0.6 * reach), wspace=max(0.35, reach / 3.4),
                hspace=max(0.8, 0.6 * reach / 2.0))


def traces(title: str, t: np.ndarray, panels: Sequence[Tuple[str, Dict[str, List[Optional[float]]]]],
           ncols: int = 3) -> bytes:
    """Median line and p5-p95, p25-p75 bands over the instances, one panel per trace."""
    fig, axes = _grid(len(panels), ncols, w=3.6, h=2.4)
    for ax, (label, b) in zip(axes, panels):
        arr = {k: np.array([np.nan if v is None else v for v in vals]) for k, vals in b.items()}
        ax.fill_between(t, arr["p5"], arr["p95"], color="#4477aa", alpha=0.2, lw=0, label="p5-p95")
        ax.fill_between(t, arr["p25"], arr["p75"], color="#4477aa", alpha=0.4, lw=0, label="p25-p75")
        ax.plot(t, arr["p50"], color="#114477", lw=1, label="median")
        ax.set_title(label, fontsize=7)
        ax.set_ylabel(label, fontsize=7)
        ax.set_xlabel("time [s]", fontsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.tick_params(labelsize=7)
    if axes:
        axes[0].legend(fontsize=6)
    fig.suptitle(title, fontsize=10)
    return _png(fig, left=0.8)


def answer(panels: Sequence[Tuple[str, str, np.ndarray, str, np.ndarray, bool]]) -> bytes:
    """The answer's figure: one small scatter per peak load (title, x label, x, y label, y,
    explained) of the peak against the parameter that drives it, both in engineering
    units; grey where no single parameter explains the peak."""
    n = len(panels)
    fig = Figure(figsize=(2.6 * n + 0.3, 2.5))
    axes = fig.subplots(1, n, squeeze=False)[0]
    for ax, (title, xl, x, yl, y, explained) in zip(axes, panels):
        ax.scatter(x, y, s=3, alpha=0.5, color="#4477aa" if explained else "#999999", rasterized=True)
        _plain(ax)
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.set_title(title, fontsize=7)
        ax.set_xlabel(xl, fontsize=7)
        ax.set_ylabel(yl, fontsize=7)
        ax.tick_params(labelsize=6)
    return _png(fig, left=0.65, bottom=0.6, top=0.35, wspace=0.55)


def bars(title: str, counts: Dict[str, int]) -> bytes:
    """Counts as labelled bars (status and reason counts)."""
    fig = Figure(figsize=(5, 2.6))
    ax = fig.subplots()
    names = list(counts)
    ax.bar(range(len(names)), [counts[n] for n in names], color="#4477aa")
    ax.set_xticks(range(len(names)), names, fontsize=7, rotation=20, ha="right")
    for k, n in enumerate(names):
        ax.annotate(str(counts[n]), (k, counts[n]), ha="center", va="bottom", fontsize=7)
    ax.set_title(title, fontsize=9)
    ax.set_ylabel("instances", fontsize=7)
    return _png(fig, bottom=0.9)
