"""State: a snapshot of listed instances, as Simulator.get_state returns it."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any, Dict, Mapping, Optional

import numpy as np

from ._arrays import real_array


class InstanceStatus(enum.IntEnum):
    """Per-instance status codes, as in /status of the output file."""

    OK = 0
    """integrating"""
    ASSEMBLY_FAILED = 1
    """the initial state could not be assembled onto Phi = 0; the instance does not move"""
    DIVERGED = 2
    """NaN / Inf, max |Phi| above solver.violation_bound, a runaway or a failed
    factorisation (StatusReason says which); the instance is frozen"""


class StatusReason(enum.IntEnum):
    """Why an instance's status is not ok, as in /status_reason of the output file
    (docs/solver.md, "Instance status")."""

    NONE = 0
    """ok (or a status written by set_state without a reason)"""
    NON_FINITE = 1
    """a stage or the new state is not finite"""
    CONSTRAINT_VIOLATION = 2
    """max |Phi| above solver.violation_bound"""
    RUNAWAY = 3
    """kinetic energy above the runaway bound (derived at load, or solver.runaway_kinetic_energy)"""
    FACTORISATION_FAILURE = 4
    """the Schur matrix of a stage did not factorise"""
    ASSEMBLY_FAILURE = 5
    """assembly did not converge, or converged to a flipped joint orientation"""


@dataclasses.dataclass
class State:
    """The state of k listed instances: everything needed to continue them bit-identically.

    Attributes (k = len(ids)):
        ids: (k,) int32, the instances, row r of every array belongs to ids[r].
        y: (k, state_size) float64, the integrator's own state. DAE backends: 13 B
            numbers, y = [q (7 B): per body r (CoM, world) [m] then p = (w, x, y, z)
            (body to world); qdot (6 B): per body v (CoM, world) [m/s] then omega (body
            frame) [rad/s]] (Simulator.states() gives the same numbers grouped per body);
            joint-space backends (robot scenes with solver aba / cga): [q (n), qd (n)],
            with a floating base [p_B (3), quat_B (4), q (n), v_B (3), omega_B (3), qd (n)].
        steps: (k,) int64, steps taken since the instance's last reset.
        status: (k,) int8, InstanceStatus codes.
        status_steps: (k,) int64, the instance step at which the status was set (0 while ok).
        episodes: (k,) uint64, the domain-randomisation episode (0 = the sweep's own sample;
            every reset(..., randomize=True) adds one); set_state restores its parameters.
        dt: the step [s].
        status_reasons: (k,) int8 StatusReason codes, or None (a state saved without them):
            set_state then keeps each instance's reason where it fits its status.

    Save it with ``np.savez(file, **state.to_arrays())`` and load it with
    ``State.from_arrays(np.load(file))``.
    """

    ids: np.ndarray
    y: np.ndarray
    steps: np.ndarray
    status: np.ndarray
    status_steps: np.ndarray
    episodes: np.ndarray
    dt: float
    status_reasons: Optional[np.ndarray] = None

    def __post_init__(self) -> None:
        self.ids = np.ascontiguousarray(self.ids, dtype=np.int32)
        self.y = real_array(self.y, "State.y")
        self.steps = np.ascontiguousarray(self.steps, dtype=np.int64)
        self.status = np.ascontiguousarray(self.status, dtype=np.int8)
        self.status_steps = np.ascontiguousarray(self.status_steps, dtype=np.int64)
        self.episodes = np.ascontiguousarray(self.episodes, dtype=np.uint64)
        self.dt = float(self.dt)
        if self.status_reasons is not None:
            self.status_reasons = np.ascontiguousarray(self.status_reasons, dtype=np.int8)
        k = self.ids.shape[0]
        if self.ids.ndim != 1 or self.y.ndim != 2 or self.y.shape[0] != k:
            raise ValueError(f"state: y must have shape (len(ids), state_size) (got ids {self.ids.shape}, y {self.y.shape})")
        for name in ("steps", "status", "status_steps", "episodes", "status_reasons"):
            if getattr(self, name) is not None and getattr(self, name).shape != (k,):
                raise ValueError(f"state: {name} must have shape ({k},) (got {getattr(self, name).shape})")

    @property
    def time(self) -> np.ndarray:
        """(k,) float64: each instance's time since its last reset, steps * dt [s]."""
        return self.steps * self.dt

    def to_arrays(self) -> Dict[str, Any]:
        """The fields as a dict of arrays (and dt), for np.savez (None fields left out)."""
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, Any]) -> "State":
        """The State saved by ``np.savez(file, **state.to_arrays())`` (pass ``np.load(file)``)."""
        return cls(**{f.name: arrays[f.name] for f in dataclasses.fields(cls)
                      if f.name in arrays or f.default is dataclasses.MISSING})
