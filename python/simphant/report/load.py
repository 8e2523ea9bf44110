"""Reading what the report needs from a run's HDF5 file (README "Output (HDF5)"):
status, sweep parameters, per-instance reductions over time (/reductions/<quantity>/...)
and per-frame datasets, each read in bounded pieces so that files of up to 10^6
instances fit in memory."""
from __future__ import annotations

import dataclasses
import json
from typing import Dict, List, Optional, Sequence

import h5py
import numpy as np

#: Quantities the report knows, with the per-frame dataset's shape after (T, I) and the
#: components of the reduction (contract of /reductions/<quantity>, docs/report.md). The
#: report takes the names and units from the file's own attributes; these are for a file
#: that lacks them. They are the table of src/simphant/model/components.hpp, spelled here
#: because the report imports nothing of the compiled core
#: (test_report.py::test_report_component_defaults_are_the_cores_table holds them equal).
QUANTITIES = ["reactions", "joint_loads", "bearing_loads", "driver_loads", "contacts", "constraint_violation",
              "energy", "joint_coordinates", "power"]
DEFAULT_COMPONENTS = {
    "reactions": ["f_x", "f_y", "f_z", "tau_x", "tau_y", "tau_z", "|f|", "|tau|"],
    "joint_loads": ["f_a", "f_b", "f_v", "m_a", "m_b", "m_v"],
    "bearing_loads": ["axial_force", "radial_force", "axial_moment", "bending_moment"],
    "contacts": ["normal_force", "friction_force", "penetration", "count"],
    "driver_loads": ["load"],
    "joint_coordinates": ["coordinate"],
}
DEFAULT_UNITS = {
    "reactions": ["N"] * 3 + ["N m"] * 3 + ["N", "N m"],
    "joint_loads": ["N"] * 3 + ["N m"] * 3,
    "bearing_loads": ["N", "N", "N m", "N m"],
    "contacts": ["N", "N", "m", "1"],
    "constraint_violation": ["1"],
    "energy": ["J"],
    "power": ["W"],
}
REDUCTION_STATS = ["max", "min", "mean", "rms"]
STATUS_NAMES = ["ok", "assembly_failed", "diverged"]

#: Largest block of one dataset read at once [bytes].
READ_BLOCK_BYTES = 1 << 27


class ReportInputError(ValueError):
    """The results file cannot be reported on (missing, not HDF5, not a SimPhant run)."""


def text(v):
    """An HDF5 attribute as plain Python: str, list of str, int, float or list."""
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        return [text(x) for x in v.tolist()] if v.dtype.kind in "OSU" else v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    return v


@dataclasses.dataclass
class Output:
    """One per-instance scalar the report relates to the parameters: a peak load.

    key: "quantity/entity/component" (e.g. "bearing_loads/main_bearing/radial_force");
    values: (I,) over all instances (failed ones included; the caller masks them);
    source: where it came from ("/reductions/..." or "/reactions frames")."""
    key: str
    quantity: str
    entity: str
    component: str
    units: str
    values: np.ndarray
    source: str
    #: The file marks the component statically indeterminate (attribute
    #: `statically_indeterminate`): its value is one admissible split, never ranked.
    indeterminate: bool = False
    #: (I, S) d(values)/d(parameter s) from /reduction_sensitivities, or None.
    derivative: Optional[np.ndarray] = None


class ResultFile:
    """An open results file. Use as a context manager."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self.f = h5py.File(path, "r")
        except FileNotFoundError:
            raise ReportInputError(f"{path}: no such file") from None
        except OSError as e:
            raise ReportInputError(f"{path}: not an HDF5 file ({e})") from None
        if "status" not in self.f and "params" not in self.f and "time" not in self.f:
            self.f.close()
            raise ReportInputError(f"{path}: not a SimPhant results file (none of /status, /params, /time)")
        self.attrs = {k: text(v) for k, v in self.f.attrs.items() if k not in ("scene",)}
        self.n_instances = self._instance_count()
        self.joint_names: List[str] = list(self.attrs.get("joint_names", []))
        self.driver_names: List[str] = list(self.attrs.get("driver_names", []))
        #: The contact pairs of /contacts, from its dimension scale (docs/contact.md, "Outputs").
        self.contact_pair_names: List[str] = (
            [text(x) for x in self.f["contact_pair"][:].tolist()] if "contact_pair" in self.f else [])

    def __enter__(self) -> "ResultFile":
        return self

    def __exit__(self, *exc) -> None:
        self.f.close()

    def _instance_count(self) -> int:
        for name in ("status", "status_reason"):
            if name in self.f:
                return int(self.f[name].shape[0])
        if "params" in self.f and len(self.f["params"]):
            return int(next(iter(self.f["params"].values())).shape[0])
        if "n_instances" in self.attrs:
            return int(self.attrs["n_instances"])
        raise ReportInputError(f"{self.path}: cannot tell the number of instances (no /status, /params)")

    # ---- status -----------------------------------------------------------------------
    def status(self) -> Optional[np.ndarray]:
        return np.asarray(self.f["status"][:]).astype(np.int64) if "status" in self.f else None

    def status_reason(self):
        """(codes (I,) int, names list) or None."""
        if "status_reason" not in self.f:
            return None
        ds = self.f["status_reason"]
        names = text(ds.attrs["codes"]) if "codes" in ds.attrs else []
        return np.asarray(ds[:]).astype(np.int64), list(names)

    # ---- parameters -------------------------------------------------------------------
    def parameters(self) -> Dict[str, np.ndarray]:
        """/params/<path> (I,) as float64, in the group's order."""
        out: Dict[str, np.ndarray] = {}
        if "params" not in self.f:
            return out
        for name, ds in self.f["params"].items():
            if isinstance(ds, h5py.Dataset) and ds.shape == (self.n_instances,):
                out[name] = np.asarray(ds[:], dtype=np.float64)
        return out

    def parameter_units(self) -> Dict[str, str]:
        """/params/<path> attribute `units` per parameter ("" when the file has none)."""
        out: Dict[str, str] = {}
        if "params" not in self.f:
            return out
        for name, ds in self.f["params"].items():
            u = self.units_attr(ds) if isinstance(ds, h5py.Dataset) else []
            out[name] = u[0] if u else ""
        return out

    # ---- statically indeterminate components -------------------------------------------
    def indeterminate(self, quantity: str) -> Dict[str, set]:
        """{joint: {component, ...}} the file marks statically indeterminate for `quantity`
        (attribute `statically_indeterminate` of /reductions/<quantity> or /<quantity>: one
        string "joint: component component ..." per joint; docs/solver.md). Reactions
        have no attribute of their own: a magnitude |f| is indeterminate when a force
        component of its joint is (in /joint_loads or /bearing_loads), |tau| when any
        component of its joint is (|tau| is taken about another point than the bearing's).
        Empty when the file marks nothing."""
        if quantity == "reactions":
            out: Dict[str, set] = {}
            forces = {"joint_loads": {"f_a", "f_b", "f_v"}, "bearing_loads": {"axial_force", "radial_force"}}
            for q, fset in forces.items():
                for joint, comps in self.indeterminate(q).items():
                    s = out.setdefault(joint, set())
                    s.add("|tau|")
                    if comps & fset:
                        s.add("|f|")
            return out
        for path in (f"reductions/{quantity}", quantity):
            if path in self.f and "statically_indeterminate" in self.f[path].attrs:
                raw = text(self.f[path].attrs["statically_indeterminate"])
                out = {}
                for line in [raw] if isinstance(raw, str) else raw:
                    joint, _, comps = str(line).partition(":")
                    if joint.strip() and comps.split():
                        out.setdefault(joint.strip(), set()).update(comps.split())
                return out
        return {}

    def design_problem(self) -> Optional[dict]:
        """The design's SALib problem (/params attribute `problem`, JSON written by the engine:
        `names` = the sweep paths in the design's column order, `bounds`, ...); None when
        the file has none. Raises ReportInputError when it is not a JSON object with a
        list of names."""
        if "params" not in self.f or "problem" not in self.f["params"].attrs:
            return None
        raw = text(self.f["params"].attrs["problem"])
        try:
            problem = json.loads(raw)
        except (TypeError, ValueError) as e:
            raise ReportInputError(f"{self.path}: /params attribute problem is not JSON ({e})") from None
        if not isinstance(problem, dict) or not isinstance(problem.get("names"), list):
            raise ReportInputError(f"{self.path}: /params attribute problem has no list `names` (a SALib problem)")
        return problem

    # ---- frames -----------------------------------------------------------------------
    def frames(self) -> int:
        return int(self.f["time"].shape[0]) if "time" in self.f else 0

    def has_frames(self, name: str) -> bool:
        return name in self.f and isinstance(self.f[name], h5py.Dataset) and self.f[name].ndim >= 2 and \
            self.f[name].shape[0] > 0 and self.f[name].shape[1] == self.n_instances

    def instance_blocks(self, name: str):
        """Yields (slice of instances, block (T, i1-i0, ...)) of the per-frame dataset."""
        ds = self.f[name]
        per_instance = int(np.prod(ds.shape)) // max(ds.shape[1], 1) * ds.dtype.itemsize
        step = max(1, READ_BLOCK_BYTES // max(per_instance, 1))
        for i0 in range(0, self.n_instances, step):
            i1 = min(self.n_instances, i0 + step)
            yield slice(i0, i1), np.asarray(ds[:, i0:i1], dtype=np.float64)

    def frames_strided(self, name: str, stride: int) -> np.ndarray:
        """Every stride-th instance of a per-frame dataset, (T, ceil(I/stride), ...)."""
        return np.asarray(self.f[name][:, ::stride], dtype=np.float64)

    def time(self) -> np.ndarray:
        return np.asarray(self.f["time"][:], dtype=np.float64)

    # ---- reductions -------------------------------------------------------------------
    def reduction_quantities(self) -> List[str]:
        if "reductions" not in self.f:
            return []
        return [q for q in self.f["reductions"].keys() if isinstance(self.f["reductions"][q], h5py.Group)]

    def reduction(self, quantity: str, stat: str) -> Optional[np.ndarray]:
        g = self.f.get(f"reductions/{quantity}")
        if g is None or stat not in g:
            return None
        a = np.asarray(g[stat][:], dtype=np.float64)
        if a.shape[:1] != (self.n_instances,):
            raise ReportInputError(f"{self.path}: /reductions/{quantity}/{stat} has shape {a.shape}, "
                                   f"expected ({self.n_instances}, ...)")
        return a

    # ---- forward sensitivities (docs/sensitivities.md) ---------------------------------
    def sensitivity_paths(self) -> List[str]:
        """The paths of the parameters of /reduction_sensitivities ([] without them)."""
        if "sensitivity_values" not in self.f or "parameter" not in self.f:
            return []
        return [text(x) for x in self.f["parameter"][:].tolist()]

    def sensitivity_values(self) -> Optional[np.ndarray]:
        """/sensitivity_values (I, S): each instance's value of each parameter, or None."""
        if "sensitivity_values" not in self.f:
            return None
        a = np.asarray(self.f["sensitivity_values"][:], dtype=np.float64)
        if a.shape != (self.n_instances, len(self.sensitivity_paths())):
            raise ReportInputError(f"{self.path}: /sensitivity_values has shape {a.shape}, expected "
                                   f"({self.n_instances}, {len(self.sensitivity_paths())})")
        return a

    def reduction_sensitivity(self, quantity: str, stat: str) -> Optional[np.ndarray]:
        """/reduction_sensitivities/<quantity>/<stat> (I, ..., S), or None."""
        g = self.f.get(f"reduction_sensitivities/{quantity}")
        if g is None or stat not in g:
            return None
        a = np.asarray(g[stat][:], dtype=np.float64)
        want = self.reduction(quantity, stat)
        if want is None or a.shape != want.shape + (len(self.sensitivity_paths()),):
            raise ReportInputError(f"{self.path}: /reduction_sensitivities/{quantity}/{stat} has shape {a.shape}, "
                                   f"expected /reductions/{quantity}/{stat}'s shape and one entry per parameter")
        return a

    def reduction_labels(self, quantity: str, shape: Sequence[int]):
        """(entity names, component names, units) of /reductions/<quantity> arrays shaped (I, ...)."""
        g = self.f[f"reductions/{quantity}"]
        comps = text(g.attrs["components"]) if "components" in g.attrs else None
        units = text(g.attrs["units"]) if "units" in g.attrs else None
        return self.labels(quantity, shape, comps, units)

    def labels(self, quantity: str, shape: Sequence[int], comps=None, units=None):
        """(entity names, component names, units[entity][component]) for an (I, ...) array of
        `quantity`: entities are joints (reactions, joint_loads, bearing_loads,
        joint_coordinates), drivers (driver_loads), contact pairs (contacts) or ["all"];
        `units` may be given per component or, for the one-component quantities, per entity."""
        rest = tuple(shape[1:])
        want = {"reactions": 2, "joint_loads": 2, "bearing_loads": 2, "contacts": 2, "driver_loads": 1,
                "joint_coordinates": 1}
        if quantity in want and len(rest) != want[quantity]:
            raise ReportInputError(f"{self.path}: {quantity} has shape {tuple(shape)} per frame or reduction, "
                                   f"expected {1 + want[quantity]} dimensions (I, ...) (docs/report.md)")
        if quantity in ("reactions", "joint_loads", "bearing_loads"):
            n_ent, n_comp = rest[0], rest[1]
            ents = self._names(self.joint_names, n_ent, "joint")
        elif quantity == "contacts":
            n_ent, n_comp = rest[0], rest[1]
            ents = self._names(self.contact_pair_names, n_ent, "pair")
        elif quantity in ("driver_loads", "joint_coordinates"):
            n_ent, n_comp = rest[0], 1
            ents = self._names(self.driver_names if quantity == "driver_loads" else self.joint_names, n_ent,
                               "driver" if quantity == "driver_loads" else "joint")
        else:
            n_ent, n_comp = 1, int(np.prod(rest)) if rest else 1
            ents = ["all"]
        if not comps or len(comps) != n_comp:
            comps = DEFAULT_COMPONENTS.get(quantity, [quantity] if n_comp == 1 else [str(c) for c in range(n_comp)])
            comps = comps if len(comps) == n_comp else [str(c) for c in range(n_comp)]
        if isinstance(units, str):
            units = [units]
        units = list(units or [])
        if n_comp == 1 and len(units) == n_ent:
            table = [[u] for u in units]
        else:
            if len(units) == 1:
                units = units * n_comp
            if len(units) != n_comp:
                units = DEFAULT_UNITS.get(quantity, [""] * n_comp)
                units = units if len(units) == n_comp else [""] * n_comp
            table = [list(units) for _ in ents]
        return ents, list(comps), table

    @staticmethod
    def _names(names: List[str], n: int, kind: str) -> List[str]:
        return list(names) if len(names) == n else [f"{kind}{k}" for k in range(n)]

    @staticmethod
    def units_attr(ds):
        """A dataset's `units` attribute as a list of str (empty when absent)."""
        u = text(ds.attrs["units"]) if "units" in ds.attrs else []
        return [u] if isinstance(u, str) else list(u)
