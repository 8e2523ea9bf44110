"""Reading a run's HDF5 file (README "Output (HDF5)") as an xarray.Dataset, and a
per-instance table of it as a pandas.DataFrame."""
from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Optional, Union

import numpy as np

from . import _simphant
from ._extras import require

STATE_COMPONENTS = [name for name, _ in _simphant.components["state"]]
"""Names of the 13 numbers per body of /state: r (CoM, world), p = (w, x, y, z) (body to
world), v (CoM, world), omega (body frame) (src/simphant/model/components.hpp)."""
STATE_UNITS = [unit for _, unit in _simphant.components["state"]]
REACTION_COMPONENTS = [name for name, _ in _simphant.components["reactions"]]
"""Names of the 6 numbers per joint of /reactions: force and torque on body_j, world frame."""
REACTION_UNITS = [unit for _, unit in _simphant.components["reactions"]]
STATUS_NAMES = ["ok", "assembly_failed", "diverged"]
#: /status_reason codes 0..6 (docs/solver.md, "Instance status").
STATUS_REASON_NAMES = ["none", "non_finite", "constraint_violation", "runaway", "factorisation_failure",
                       "assembly_failure", "step_size_underflow"]

try:  # xarray is an optional dependency: `pip install 'simphant[results]'` (_extras.py)
    import xarray as xr
    from xarray.backends import BackendArray, BackendEntrypoint
    from xarray.core import indexing
except ImportError:  # pragma: no cover - reported by open_results
    xr = None
    BackendArray = BackendEntrypoint = object


class _H5Array(BackendArray):  # type: ignore[misc,valid-type]
    """One HDF5 dataset read lazily: only the selection asked for is read."""

    def __init__(self, dataset: Any) -> None:
        self._ds = dataset
        self.shape = dataset.shape
        self.dtype = dataset.dtype

    def __getitem__(self, key: Any) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.OUTER_1VECTOR, self._read)

    def _read(self, key: tuple) -> np.ndarray:
        return np.asarray(self._ds[key])


def _text(v: Any) -> Any:
    """An HDF5 attribute as plain Python: str for strings, list of str for string arrays."""
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "OSU":
            return [_text(x) for x in v.tolist()]
        return v
    if isinstance(v, np.generic):
        return v.item()
    return v


def _lazy(ds: Any, dims: Iterable[str], attrs: Dict[str, Any]) -> "xr.Variable":
    return xr.Variable(tuple(dims), indexing.LazilyIndexedArray(_H5Array(ds)), attrs)


class SimphantBackend(BackendEntrypoint):  # type: ignore[misc,valid-type]
    """xarray backend for SimPhant output: ``xr.open_dataset(path, engine=SimphantBackend)``."""

    description = "SimPhant run output (README 'Output (HDF5)')"
    open_dataset_parameters = ("filename_or_obj", "drop_variables")

    def open_dataset(self, filename_or_obj: Any, *, drop_variables: Optional[Iterable[str]] = None) -> "xr.Dataset":
        import h5py

        f = h5py.File(os.fspath(filename_or_obj), "r")
        try:
            ds = _build(f)
        except BaseException:
            f.close()
            raise
        if drop_variables:
            ds = ds.drop_vars(list(drop_variables))
        ds.set_close(f.close)
        return ds

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        return False


#: Coordinates of a run file (1-D dimension scales at the root); not data variables.
_COORDINATES = ("time", "instance", "body", "joint", "state_component", "reaction_component", "joint_coordinate")
#: Dimension names of files written before the datasets carried dimension scales.
_LEGACY_DIMS = {
    "state": ("time", "instance", "body", "state_component"),
    "reactions": ("time", "instance", "joint", "reaction_component"),
    "constraint_violation": ("time", "instance"),
    "energy": ("time", "instance"),
}


def _dims(ds: Any, legacy: Iterable[str]) -> tuple:
    """A dataset's dimension names: the dimension scales attached to its axes, else `legacy`."""
    names = [next(iter(d.keys()), "") for d in ds.dims]
    return tuple(names) if names and all(names) else tuple(legacy)


def _is_scale(ds: Any) -> bool:
    """Whether an HDF5 object is a dimension scale (a dataset with CLASS = DIMENSION_SCALE)."""
    return hasattr(ds, "shape") and _text(ds.attrs.get("CLASS", b"")) == "DIMENSION_SCALE"


def _units(ds: Any, fallback: str = "") -> Any:
    u = ds.attrs.get("units", fallback)
    u = _text(u)
    return " | ".join(dict.fromkeys(u)) if isinstance(u, list) else u


def _build(f: Any) -> "xr.Dataset":
    attrs = {k: _text(v) for k, v in f.attrs.items()}
    if "status" not in f or "scene" not in f.attrs:
        raise ValueError(f"{f.filename}: not a SimPhant output file (no /status)")
    I = f["status"].shape[0]
    B, J = len(attrs.get("body_names", [])), len(attrs.get("joint_names", []))
    coords: Dict[str, Any] = {
        "instance": ("instance", np.asarray(f["instance"][:]) if "instance" in f else np.arange(I)),
        "body": ("body", list(attrs.get("body_names", [f"body{b}" for b in range(B)]))),
        "joint": ("joint", list(attrs.get("joint_names", [f"joint{j}" for j in range(J)]))),
        "state_component": ("state_component", STATE_COMPONENTS),
        "state_component_units": ("state_component", STATE_UNITS),
        "reaction_component": ("reaction_component", REACTION_COMPONENTS),
        "reaction_component_units": ("reaction_component", REACTION_UNITS),
    }
    if "time" in f:
        coords["time"] = ("time", np.asarray(f["time"][:]), {"units": "s", "long_name": "time of the frame"})
    # Every label coordinate the file carries (1-D string dimension scales at the root:
    # body, joint, driver, state_component, reaction_component, bearing_component,
    # joint_load_component, ...): the file's names win over the defaults above.
    scales = set()
    for name, ds in f.items():
        if _is_scale(ds):
            scales.add(name)
            if name not in ("time", "instance") and ds.ndim == 1 and ds.dtype.kind in "OSU":
                coords[name] = (name, [_text(x) for x in ds[:].tolist()])
    v: Dict[str, Any] = {}
    # Every per-frame dataset at the root (state, reactions, constraint_violation, energy and
    # those of other quantities, e.g. driver_loads), lazily, with the file's dimensions: a
    # dataset whose first dimension is `time` (its dimension scale, or the legacy layout).
    # Extendible or not: `simphant merge` writes fixed-size virtual datasets.
    for name, ds in f.items():
        if name in _COORDINATES or name in scales or not hasattr(ds, "shape") or len(ds.shape) == 0 \
                or name.startswith("status"):
            continue
        dims = _dims(ds, _LEGACY_DIMS.get(name, ()) if ds.maxshape and ds.maxshape[0] is None else ())
        if len(dims) != len(ds.shape) or dims[0] != "time":
            continue
        extra = {"long_name": _text(ds.attrs["long_name"])} if "long_name" in ds.attrs else {}
        v[name] = _lazy(ds, dims, {"units": _units(ds), **extra})
        # Units per component (the file's `units` list along the last dimension, e.g.
        # contacts: N N m 1) as a coordinate <component dimension>_units.
        per = _text(ds.attrs.get("units", ""))
        if isinstance(per, list) and len(per) == ds.shape[-1] > 1 and f"{dims[-1]}_units" not in coords:
            coords[f"{dims[-1]}_units"] = (dims[-1], per)
    for name, flags in (("status", STATUS_NAMES), ("status_reason", STATUS_REASON_NAMES)):
        if name in f:
            v[name] = xr.Variable(("instance",), np.asarray(f[name][:]), {
                "long_name": "instance status" if name == "status" else "why the status is not ok",
                "flag_values": list(range(len(flags))), "flag_meanings": " ".join(flags)})
    v["status_time"] = xr.Variable(("instance",), np.asarray(f["status_time"][:]), {
        "units": "s", "long_name": "time at which the status was set"})
    if "assembly" in f:
        g = f["assembly"]
        legacy_units = {"position_residual": "m | rad", "velocity_residual": "m/s | rad/s", "iterations": "1",
                        "position_change": "m", "orientation_change": "rad", "velocity_change": "m/s",
                        "angular_velocity_change": "rad/s"}
        for name, units in legacy_units.items():
            if name in g:
                a = g[name]
                v[f"assembly_{name}"] = xr.Variable(("instance",), a[:], {
                    "units": _units(a, units), "long_name": _text(a.attrs.get("long_name", f"assembly {name}"))})
    # Per-instance results of the integrator: the fixed-step error estimate
    # (solver.error_estimate), an adaptive run's step statistics, the refined Schur
    # solves' record with the rank watch, their tangents' with sensitivities
    # (docs/sensitivities.md), and the energy check (docs/solver.md).
    for group, names in (("error_estimate", ("position", "orientation")),
                         ("step_statistics", ("accepted", "rejected", "min_step", "max_step")),
                         ("refinement", ("unconverged", "max_error", "max_error_time", "min_pivot",
                                         "min_pivot_time")),
                         ("sensitivity_refinement", ("unconverged", "max_error", "max_error_time")),
                         ("energy_check", ("relative_error", "time", "conservative", "work", "balance",
                                           "balance_relative"))):
        if group in f:
            g = f[group]
            for name in names:
                if name in g:
                    a = g[name]
                    extra = {k: _text(a.attrs[k]) for k in ("method", "order", "factor") if k in a.attrs}
                    if group == "energy_check" and "bound" in g.attrs:
                        extra["bound"] = float(g.attrs["bound"])
                    v[f"{group}_{name}"] = xr.Variable(("instance",), a[:], {
                        "units": _units(a, ""), "long_name": _text(a.attrs.get("long_name", f"{group} {name}")),
                        **extra})
    if "joint_state" in f:
        g = f["joint_state"]
        coords["joint_coordinate"] = ("joint_coordinate", _text(g.attrs["joint_names"]))
        for name, units, what in (("q", "rad | m", "joint positions"), ("qd", "rad/s | m/s", "joint rates"),
                                  ("tau", "N m | N", "applied joint torques / forces")):
            if name in g:
                v[f"joint_{name}"] = _lazy(g[name], ("time", "instance", "joint_coordinate"),
                                           {"units": _units(g[name], units), "long_name": what})
    if "joint_state_sensitivities" in f:
        g = f["joint_state_sensitivities"]
        for name in ("q", "qd", "tau"):
            if name in g:
                v[f"joint_{name}_sensitivities"] = _lazy(
                    g[name], ("time", "instance", "joint_coordinate", "parameter"),
                    {"units": _units(g[name], ""), "long_name": _text(g[name].attrs.get("long_name", ""))})
    if "sensitivity_crossed" in f:
        v["sensitivity_crossed"] = xr.Variable(("instance",), np.asarray(f["sensitivity_crossed"][:]) != 0, {
            "long_name": "the instance crossed a robot joint law's discontinuity: its derivatives are NaN"})
    if "sensitivity_values" in f:
        a = f["sensitivity_values"]
        v["sensitivity_values"] = xr.Variable(("instance", "parameter"), np.asarray(a[:]), {
            "units": _units(a, ""), "long_name": "each instance's value of each sensitivity parameter"})
    params = []
    if "params" in f:
        for path in f["params"]:
            params.append(path)
            p = f["params"][path]
            v[path] = xr.Variable(("instance",), np.asarray(p[:]), {
                "long_name": f"sampled sweep value of {path}",
                "units": _units(p, "SI unit of the scene value"), "sweep_parameter": 1})
    attrs["sweep_parameters"] = params
    return xr.Dataset(v, coords=coords, attrs=attrs)


def open_results(path: Union[str, "os.PathLike[str]"]) -> "xr.Dataset":
    """Opens a run's HDF5 file as an xarray.Dataset (lazy: frames are read when used).

    The file's own dimension scales name the dimensions, as
    ``xarray.open_dataset(path, engine="h5netcdf")`` shows them too.
    Dimensions: time (T frames), instance (I), body (B), joint (J), state_component (13),
    reaction_component (6), and joint_coordinate (n) for robot runs.
    Coordinates: time [s], instance (the design's instance numbers, 0..I-1), body and
    joint names, state_component names (r_x r_y r_z p_w p_x p_y p_z v_x v_y v_z omega_x
    omega_y omega_z) with their units in state_component_units, reaction_component
    (f_x f_y f_z tau_x tau_y tau_z) with reaction_component_units, and every other label
    coordinate the file carries as a dimension scale (e.g. driver, bearing_component,
    joint_load_component, contact_pair, contact_component, reaction_reduction_component),
    so that ``ds.driver_loads.sel(driver="crank_drive")`` works; the units of a frame
    dataset whose file lists one unit per component are the coordinate
    <component dimension>_units (e.g. ``ds.contact_component_units``: N N m 1), its
    `units` attribute listing each unit once.
    Variables (each with a `units` attribute; a frame dataset only when the run wrote
    it: output.datasets / output.frames, docs/scene-format.md "Output"): state (time,
    instance, body, state_component),
    reactions (time, instance, joint, reaction_component), constraint_violation and
    energy (time, instance), status (instance, int8: 0 ok, 1 assembly failed, 2
    diverged), status_reason (instance, int8: STATUS_REASON_NAMES; no units, as status),
    status_time, assembly_position_residual, assembly_velocity_residual,
    assembly_iterations, assembly_position_change, assembly_orientation_change,
    assembly_velocity_change, assembly_angular_velocity_change (instance), one (instance) variable per sweep parameter named by
    its path (e.g. ds["bodies.crank.mass"]; their names in ds.attrs["sweep_parameters"]),
    and for robot runs joint_q, joint_qd, joint_tau (time, instance, joint_coordinate);
    with sensitivities (docs/sensitivities.md) sensitivity_values (instance, parameter:
    the paths): the values the derivatives are taken at, in each parameter's scene unit,
    sensitivity_crossed (instance, bool): the instance crossed a robot joint law's
    discontinuity, so its derivatives are NaN, sensitivity_refinement_unconverged,
    sensitivity_refinement_max_error [1] and sensitivity_refinement_max_error_time [s]
    (instance: the refined Schur solves of the tangents, one per parameter, as the
    refinement_ variables below for the values; 0 for a robot in joint coordinates), and
    for robot runs joint_q_sensitivities,
    joint_qd_sensitivities, joint_tau_sensitivities (time, instance, joint_coordinate,
    parameter);
    with solver.error_estimate error_estimate_position [m] and error_estimate_orientation
    [rad] (instance; attributes method, order, factor); for adaptive integrators
    step_statistics_accepted, step_statistics_rejected, step_statistics_min_step [s] and
    step_statistics_max_step [s] (instance); for DAE runs refinement_unconverged,
    refinement_max_error [1] and refinement_max_error_time [s] (instance: the refined
    Schur solves above the tolerance, the largest relative error estimate and its time;
    docs/solver.md, "The refined regularised solve"), refinement_min_pivot [1] and
    refinement_min_pivot_time [s] (instance: the rank watch, the smallest relative pivot
    of a Schur factorisation and its time; docs/solver.md, "Rank watch");
    energy_check_relative_error [1],
    energy_check_time [s] and energy_check_conservative (instance: the largest relative
    energy change over the frames, its time, and 1 where the model conserves energy;
    attribute bound; docs/solver.md, "Energy check"), with a run's energy balance also
    energy_check_work [J], energy_check_balance [J] and energy_check_balance_relative [1]
    (instance: the work of the loads, drives and dampers, E(T) - E(0) minus it, and that
    over the energy's scale);
    every other per-frame dataset (first dimension `time`; e.g. driver_loads, joint_loads,
    bearing_loads) with the dimensions of the file, also when it is a virtual dataset of
    a merged file (`simphant merge`).
    Attributes: the file's root attributes (scene, dt, seed, backend, version, integrator,
    accepted_steps, rejected_steps, min_step_s, max_step_s, ...).

    Close it with ds.close() (or use it in a `with` block). Raises FileNotFoundError /
    OSError when the file cannot be opened, ValueError when it is not SimPhant output,
    MissingExtraError (an ImportError) without h5py, xarray or pandas (the extra
    `simphant[results]`).
    """
    require("results")
    p = os.fspath(path)
    if not os.path.exists(p):
        raise FileNotFoundError(f"{p}: no such file")
    return xr.open_dataset(p, engine=SimphantBackend)


def instance_table(ds: "xr.Dataset") -> "Any":
    """One row per instance (a pandas.DataFrame indexed by instance): the sampled sweep
    parameters, status (categorical: ok, assembly_failed, diverged), status_reason
    (categorical: STATUS_REASON_NAMES), status_time [s], the assembly residuals,
    iterations and changes of the given state, and statistics over the recorded frames:
    max_constraint_violation (max |Phi|, NaN frames skipped), energy_drift_abs_J
    (max |E(t) - E(0)| [J]) and energy_final_J.

    ds: a Dataset from open_results. Reads energy and constraint_violation (T x I
    numbers each); without them (not recorded) their statistics are NaN.
    """
    require("results")
    import pandas as pd

    cols: Dict[str, Any] = {p: ds[p].values for p in ds.attrs.get("sweep_parameters", [])}
    cols["status"] = pd.Categorical.from_codes(ds["status"].values.astype(int), STATUS_NAMES)
    if "status_reason" in ds:
        cols["status_reason"] = pd.Categorical.from_codes(ds["status_reason"].values.astype(int), STATUS_REASON_NAMES)
    cols["status_time"] = ds["status_time"].values
    for name in ("assembly_position_residual", "assembly_velocity_residual", "assembly_iterations",
                 "assembly_position_change", "assembly_orientation_change", "assembly_velocity_change",
                 "assembly_angular_velocity_change"):
        if name in ds:
            cols[name] = ds[name].values
    n = ds.sizes["instance"]
    phi = ds["constraint_violation"].values if "constraint_violation" in ds else np.empty((0, n))
    energy = ds["energy"].values if "energy" in ds else np.empty((0, n))
    with np.errstate(invalid="ignore"):
        cols["max_constraint_violation"] = np.fmax.reduce(phi, axis=0) if phi.shape[0] else np.full(phi.shape[1], np.nan)
        drift = np.abs(energy - energy[:1]) if energy.shape[0] else np.empty_like(energy)
        cols["energy_drift_abs_J"] = np.fmax.reduce(drift, axis=0) if drift.shape[0] else np.full(energy.shape[1], np.nan)
    cols["energy_final_J"] = energy[-1] if energy.shape[0] else np.full(energy.shape[1], np.nan)
    return pd.DataFrame(cols, index=pd.Index(ds["instance"].values, name="instance"))
