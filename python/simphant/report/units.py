"""Engineering units for the page and the figures (docs/report.md, "Units").

The file stores SI values (N, N m, m, rad, ...); report.json keeps them. The page and the
figures show each value times a factor in a unit chosen from the magnitudes: kN above
1 kN, kN·m above 1 kN·m, mm for lengths, deg for angles, and so on. `display_unit` picks
the unit for the largest magnitude a table or an axis shows, so that every row of one
table and every point of one axis share the unit named in its header or label."""
from __future__ import annotations

import math
from typing import Iterable, Optional, Tuple

#: SI unit as the file writes it -> ladder of (threshold, label, factor): the first entry
#: whose threshold the largest magnitude reaches (in SI) is used; the last entry is the floor.
_LADDERS = {
    "N": [(1e6, "MN", 1e-6), (1e3, "kN", 1e-3), (0.0, "N", 1.0)],
    "N m": [(1e6, "MN·m", 1e-6), (1e3, "kN·m", 1e-3), (0.0, "N·m", 1.0)],
    "m": [(10.0, "m", 1.0), (0.0, "mm", 1e3)],
    "rad": [(0.0, "deg", 180.0 / math.pi)],
    "rad/s": [(0.0, "deg/s", 180.0 / math.pi)],
    "m/s": [(0.0, "m/s", 1.0)],
    "J": [(1e6, "MJ", 1e-6), (1e3, "kJ", 1e-3), (0.0, "J", 1.0)],
    "W": [(1e6, "MW", 1e-6), (1e3, "kW", 1e-3), (0.0, "W", 1.0)],
    "kg": [(0.0, "kg", 1.0)],
    "s": [(0.0, "s", 1.0)],
    "1": [(0.0, "1", 1.0)],
}
_ALIASES = {"Nm": "N m", "N*m": "N m", "N.m": "N m", "N·m": "N m", "": None}


def canonical(units: Optional[str]) -> Optional[str]:
    """The SI unit as a key of the ladders, or None for a unit the report does not convert."""
    if units is None:
        return None
    u = _ALIASES.get(units.strip(), units.strip())
    return u if u in _LADDERS else None


def display_unit(units: Optional[str], values: Iterable[Optional[float]] = ()) -> Tuple[str, float]:
    """(label, factor) for values in `units` (SI, as the file writes them): a displayed
    number is value * factor. The unit is chosen from the largest finite |value|; a unit
    the report does not know is kept as it is (factor 1), an absent one is shown as "?"."""
    key = canonical(units)
    if key is None:
        return (units.strip() if units and units.strip() else "?"), 1.0
    big = 0.0
    for v in values:
        if v is not None and math.isfinite(v):
            big = max(big, abs(float(v)))
    for threshold, label, factor in _LADDERS[key]:
        if big >= threshold:
            return label, factor
    _, label, factor = _LADDERS[key][-1]
    return label, factor


def scaled(v: Optional[float], factor: float) -> Optional[float]:
    return None if v is None else v * factor


def label(name: str, unit: str) -> str:
    """An axis label or column header: `name [unit]`."""
    return f"{name} [{unit}]"
