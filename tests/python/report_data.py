"""Synthetic results files for the report tests, written with h5py after the layout of
README "Output (HDF5)" and the reductions / drivers / designs contracts (docs/report.md
lists the datasets the report reads). The peak loads have a known structure:

    peak radial force of joint 0 = 1 + 3 x1 + 0.1 x2 + noise   (x1, x2, x3 ~ U(0, 1) independent)

so the SRC ranking, the SRC values and R^2 are known in closed form."""
from __future__ import annotations

import numpy as np

JOINTS = ["main_bearing", "crank_pin"]
DRIVERS = ["crank"]
#: Parameter paths: x1 (strong), x2 (weak), x3 (none); the names sort differently from x1 x2 x3.
X1, X2, X3 = "joints.main_bearing.clearance", "bodies.crank.mass", "forces.gas.value"
NOISE_SD = 0.05
BEARING_COMPONENTS = ["axial_force", "radial_force", "axial_moment", "bending_moment"]
REACTION_COMPONENTS = ["f_x", "f_y", "f_z", "tau_x", "tau_y", "tau_z", "|f|", "|tau|"]
#: The units of the constraint violation as the engine writes them (a file's attribute).
VIOLATION_UNITS = "m"
REASON_CODES = ["none", "non_finite", "constraint_violation", "runaway", "factorisation_failure", "assembly_failure",
                "step_size_underflow"]


def expected_src():
    """Population SRC of x1, x2, x3 and R^2 of the linear model of the radial peak."""
    var_x = 1.0 / 12.0
    var_y = 9 * var_x + 0.01 * var_x + NOISE_SD ** 2
    src = [3 * np.sqrt(var_x / var_y), 0.1 * np.sqrt(var_x / var_y), 0.0]
    return src, (9 + 0.01) * var_x / var_y


def _reduction_group(f, name, frames, components, units):
    g = f.create_group(f"reductions/{name}")
    g.create_dataset("max", data=frames.max(axis=0))
    g.create_dataset("min", data=frames.min(axis=0))
    g.create_dataset("mean", data=frames.mean(axis=0))
    g.create_dataset("rms", data=np.sqrt((frames ** 2).mean(axis=0)))
    g.create_dataset("time_of_max", data=np.zeros(frames.shape[1:]))
    g.attrs["components"] = components
    g.attrs["units"] = units
    g.attrs["sampled"] = "every step"


def write(path, instances=400, frames=21, failed=(3, 7), seed=1, reductions=True, per_frame=True, params=None,
          attrs=None, problem=None, first_last=False):
    """Writes the synthetic file; returns the parameter values {path: (I,)}.

    failed: instances marked diverged (status 2, reason constraint_violation); their
    values are NaN from the middle frame on. params: given parameter columns (then the
    radial peak is y = params["y"] when present). problem: a SALib problem (dict) written
    as JSON to the /params attribute `problem`, as the engine does. first_last: the
    per-frame datasets hold the first and the last of the `frames` frames only (output
    frames "first_last"), the reductions are over all of them."""
    rng = np.random.default_rng(seed)
    I, T, J, D = instances, frames, len(JOINTS), len(DRIVERS)
    if params is None:
        params = {X1: rng.random(I), X2: rng.random(I), X3: rng.random(I)}
    y = params.pop("y", None)
    if y is None:
        y = 1 + 3 * params[X1] + 0.1 * params[X2] + rng.normal(0, NOISE_SD, I)  # > 0: a magnitude
    t = np.linspace(0.0, 0.2, T)
    shape = np.sin(np.linspace(0, np.pi, T))          # 0 .. 1 .. 0, max 1 at the middle frame
    shape = shape / shape.max()
    bearing = np.empty((T, I, J, 4))
    bearing[:, :, 0, 1] = shape[:, None] * y[None, :]                            # radial, max = y
    bearing[:, :, 0, 0] = np.cos(2 * np.pi * t / t[-1])[:, None] * (1 + params[X2])[None, :]  # axial, signed
    bearing[:, :, 0, 2] = -shape[:, None] * (2 + params[X3])[None, :]                  # axial moment, negative
    bearing[:, :, 0, 3] = shape[:, None] * (0.5 + 0.0 * params[X1])[None, :]           # bending: constant
    bearing[:, :, 1] = 0.5 * bearing[:, :, 0] + 0.01 * rng.random((T, I, 4))
    reactions = np.empty((T, I, J, 6))
    reactions[..., 0:3] = bearing[..., 1:2] * np.array([0.6, 0.0, 0.8])
    reactions[..., 3:6] = bearing[..., 3:4] * np.array([0.0, 1.0, 0.0])
    drivers = (np.cos(2 * np.pi * t / t[-1])[:, None] * (1 + params[X1])[None, :])[..., None]
    energy = 1.0 + 1e-6 * rng.standard_normal((T, I)).cumsum(axis=0)
    violation = 1e-9 * (1 + rng.random((T, I)))
    status = np.zeros(I, np.int8)
    reason = np.zeros(I, np.int8)
    for i in failed:
        status[i], reason[i] = 2, 2
        for a in (bearing, reactions, drivers, energy, violation):
            a[T // 2:, i] = np.nan
    with __import__("h5py").File(path, "w") as f:
        f.attrs.update({"joint_names": JOINTS, "driver_names": DRIVERS, "n_instances": I, "frames": T,
                        "stop_reason": "completed", "interrupted": 0, "backend": "cpu", "version": "test",
                        "dt": 1e-3, "t_end": 0.2, "sweep_mode": "lhs", "scene_file": "synthetic.json"})
        f.attrs.update(attrs or {})
        f.create_dataset("status", data=status)
        f.create_dataset("status_time", data=np.where(status != 0, t[T // 2], 0.0))
        f.create_dataset("status_reason", data=reason).attrs["codes"] = REASON_CODES
        for name, v in params.items():
            f.create_dataset(f"params/{name}", data=v)
        if problem is not None:
            f["params"].attrs["problem"] = __import__("json").dumps(problem)
        if per_frame:
            keep = [0, T - 1] if first_last else slice(None)
            f.create_dataset("time", data=t[keep])
            f.create_dataset("bearing_loads", data=bearing[keep])
            f.create_dataset("reactions", data=reactions[keep])
            f.create_dataset("driver_loads", data=drivers[keep])
            f.create_dataset("energy", data=energy[keep]).attrs["units"] = "J"
            f.create_dataset("constraint_violation", data=violation[keep]).attrs["units"] = VIOLATION_UNITS
        else:
            f.create_dataset("time", data=np.empty(0))
        if reductions:
            _reduction_group(f, "bearing_loads", bearing, BEARING_COMPONENTS, ["N", "N", "N m", "N m"])
            mag = np.concatenate([reactions, np.linalg.norm(reactions[..., :3], axis=-1, keepdims=True),
                                  np.linalg.norm(reactions[..., 3:], axis=-1, keepdims=True)], axis=-1)
            _reduction_group(f, "reactions", mag, REACTION_COMPONENTS, ["N"] * 3 + ["N m"] * 3 + ["N", "N m"])
            _reduction_group(f, "driver_loads", drivers, ["load"], ["N m"])
            _reduction_group(f, "constraint_violation", violation, ["max_abs_phi"], [VIOLATION_UNITS])
            _reduction_group(f, "energy", energy, ["energy"], ["J"])
    return params, y
