"""State: a snapshot of listed instances, as Simulator.get_state returns it."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any, Dict, Mapping

import numpy as np


class InstanceStatus(enum.IntEnum):
    """Per-instance status codes, as in /status of the output file."""

    OK = 0
    """integrating"""
    ASSEMBLY_FAILED = 1
    """the initial state could not be assembled onto Phi = 0; the instance does not move"""
    DIVERGED = 2
    """NaN / Inf or max |Phi| above solver.violation_bound; the instance is frozen"""


@dataclasses.dataclass
class State:
    """The state of k listed instances: everything needed to continue them bit-identically.

    Attributes (k = len(ids)):
        ids: (k,) int32, the instances, row r of every array belongs to ids[r].
        y: (k, state_size) float64, the integrator's own state. DAE backends: 13 B
            numbers, y = [q (7 B): per body r (CoM, world) [m] then p = (w, x, y, z)
            (body to world); qdot (6 B): per body v (CoM, world) [m/s] then omega (body
            frame) [rad/s]] (Simulator.states() gives the same numbers grouped per body);
            joint-space backends (robot scenes with solver aba / cga): [q (n), qd (n)].
        steps: (k,) int64, steps taken since the instance's last reset.
        status: (k,) int8, InstanceStatus codes.
        status_steps: (k,) int64, the instance step at which the status was set (0 while ok).
        episodes: (k,) uint64, the domain-randomisation episode (0 = the sweep's own sample;
            every reset(..., randomize=True) adds one); set_state restores its parameters.
        dt: the step [s].

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

    def __post_init__(self) -> None:
        self.ids = np.ascontiguousarray(self.ids, dtype=np.int32)
        self.y = np.ascontiguousarray(self.y, dtype=np.float64)
        self.steps = np.ascontiguousarray(self.steps, dtype=np.int64)
        self.status = np.ascontiguousarray(self.status, dtype=np.int8)
        self.status_steps = np.ascontiguousarray(self.status_steps, dtype=np.int64)
        self.episodes = np.ascontiguousarray(self.episodes, dtype=np.uint64)
        self.dt = float(self.dt)
        k = self.ids.shape[0]
        if self.ids.ndim != 1 or self.y.ndim != 2 or self.y.shape[0] != k:
            raise ValueError(f"state: y must have shape (len(ids), state_size) (got ids {self.ids.shape}, y {self.y.shape})")
        for name in ("steps", "status", "status_steps", "episodes"):
            if getattr(self, name).shape != (k,):
                raise ValueError(f"state: {name} must have shape ({k},) (got {getattr(self, name).shape})")

    @property
    def time(self) -> np.ndarray:
        """(k,) float64: each instance's time since its last reset, steps * dt [s]."""
        return self.steps * self.dt

    def to_arrays(self) -> Dict[str, Any]:
        """The fields as a dict of arrays (and dt), for np.savez."""
        return dataclasses.asdict(self)

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, Any]) -> "State":
        """The State saved by ``np.savez(file, **state.to_arrays())`` (pass ``np.load(file)``)."""
        return cls(**{f.name: arrays[f.name] for f in dataclasses.fields(cls)})
