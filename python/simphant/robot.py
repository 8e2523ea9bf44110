"""Robot: batched kinematics and dynamics of a scene's robot (docs/robots.md,
"Kinematics and dynamics queries"), computed by the C++ core's joint-space recursions."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from ._arrays import real_array
from .scene import Scene, SceneSource, load_scene


class Robot:
    """The rigid-body kinematics and dynamics of a scene's robot (its URDF as the scene
    compiles it: payload merged, links fixed to another by URDF fixed joints merged into
    it), for a batch of states at once.

        robot = simphant.Robot("examples/panda_sweep.json")
        M = robot.mass_matrix(q)                  # q (B, nq) -> (B, nv, nv)
        J = robot.link_jacobians(q, ["panda_link7"])

    scene: a Scene or what load_scene takes; the robot's values are the scene's (no sweep
    applied; write other values into a scene dict to query them). The queries see the
    rigid bodies alone: no joint laws (servos, damping, friction, limits, mimic), no
    actuators, no external loads; gravity is the scene's robot gravity.

    Coordinates, as the joint-space state (docs/robots.md): q (B, nq) or (nq,) =
    [p_B, quat_B, q_joints] with a floating base (p_B [m] in W, quat_B (w, x, y, z), B -> W,
    normalised here; nq = n + 7), else q_joints (nq = n): the n joint positions [rad | m],
    joint k moving link k of `links`. Velocities qd, accelerations qdd, forces tau (B, nv)
    or (nv,) = [v_B, omega_B, joint values] with a floating base (v_B of B's origin in W
    [m/s], omega_B in B's axes [rad/s]; a force on B's origin in W [N] and a moment in B's
    axes [N m]; nv = n + 6), else the joint rates [rad/s | m/s], accelerations and forces
    [N m | N]. An unbatched input gives results without the batch axis.

    Raises ValueError for a scene without a robot, an unknown link name (the message lists
    the links), arrays of another shape, NaN or infinite entries and a zero base quaternion.
    """

    def __init__(self, scene: SceneSource) -> None:
        self.scene: Scene = scene if isinstance(scene, Scene) else load_scene(scene)
        h = self.scene._handle
        if not h.is_robot:
            raise ValueError("Robot: the scene has no robot (docs/robots.md)")
        self._h = h
        #: The link frames: the moving links in joint order, then a floating base's link.
        self.links: List[str] = list(h.robot_links)
        #: Sizes of q and of the velocities (see above).
        self.nq: int = int(h.robot_nq)
        self.nv: int = int(h.robot_nv)
        #: Whether the base floats (q starts with its pose, qd with its twist).
        self.floating: bool = self.nv != len(self.links)

    def forward_kinematics(self, q: Any, links: Optional[Sequence[str]] = None) -> np.ndarray:
        """Frame poses at q: (B, F, 7) = origin in W [m], orientation (w, x, y, z;
        frame -> W, w >= 0), F = len(links) (default: every frame, `links`)."""
        qb, single = self._batch(q, "q", self.nq)
        frames = self._frames(links)
        out = np.empty((qb.shape[0], len(frames), 7))
        self._h.robot_forward_kinematics(qb, frames, out)
        return out[0] if single else out

    def link_jacobians(self, q: Any, links: Optional[Sequence[str]] = None) -> np.ndarray:
        """Frame Jacobians at q: (B, F, 6, nv); J qd gives the velocity of the frame's
        origin in W [m/s] (rows 0-2) and its angular velocity in W [rad/s] (rows 3-5), as
        Pinocchio's LOCAL_WORLD_ALIGNED frame Jacobian."""
        qb, single = self._batch(q, "q", self.nq)
        frames = self._frames(links)
        out = np.empty((qb.shape[0], len(frames), 6, self.nv))
        self._h.robot_link_jacobians(qb, frames, out)
        return out[0] if single else out

    def mass_matrix(self, q: Any) -> np.ndarray:
        """Mass matrix M(q): (B, nv, nv), symmetric positive definite, kinetic energy
        qd^T M qd / 2 (fixed base: the composite-rigid-body algorithm)."""
        qb, single = self._batch(q, "q", self.nq)
        out = np.empty((qb.shape[0], self.nv, self.nv))
        self._h.robot_mass_matrix(qb, out)
        return out[0] if single else out

    def inverse_dynamics(self, q: Any, qd: Any, qdd: Any) -> np.ndarray:
        """The forces that give the accelerations qdd at (q, qd): M(q) qdd + h(q, qd)
        (fixed base: recursive Newton-Euler): (B, nv)."""
        return self._dynamics(self._h.robot_inverse_dynamics, q, qd, qdd, "qdd")

    def forward_dynamics(self, q: Any, qd: Any, tau: Any) -> np.ndarray:
        """The accelerations under the forces tau at (q, qd): M(q)^-1 (tau - h(q, qd))
        (the articulated-body algorithm): (B, nv)."""
        return self._dynamics(self._h.robot_forward_dynamics, q, qd, tau, "tau")

    def _dynamics(self, query: Any, q: Any, qd: Any, x: Any, name: str) -> np.ndarray:
        """query(q, qd, x, out) over the batch: out (B, nv)."""
        qb, single = self._batch(q, "q", self.nq)
        qdb, _ = self._batch(qd, "qd", self.nv, qb.shape[0])
        xb, _ = self._batch(x, name, self.nv, qb.shape[0])
        out = np.empty_like(qdb)
        query(qb, qdb, xb, out)
        return out[0] if single else out

    def _batch(self, a: Any, name: str, width: int, batch: Optional[int] = None):
        x = real_array(a, name)
        single = x.ndim == 1
        x = np.ascontiguousarray(x.reshape(1, -1) if single else x, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != width or (batch is not None and x.shape[0] != batch):
            want = f"({batch}, {width})" if batch is not None else f"(B, {width}) or ({width},)"
            raise ValueError(f"{name}: must have shape {want} (got {np.shape(a)})")
        if not np.isfinite(x).all():
            b, k = np.argwhere(~np.isfinite(x))[0]
            raise ValueError(f"{name}: entry [{b}, {k}] is {x[b, k]} (finite numbers only)")
        if name == "q" and self.floating:
            zero = np.flatnonzero(np.linalg.norm(x[:, 3:7], axis=1) == 0)
            if zero.size:
                raise ValueError(f"q: the base quaternion q[{zero[0]}, 3:7] is zero")
        return x, single

    def _frames(self, links: Optional[Sequence[str]]) -> np.ndarray:
        names = self.links if links is None else list(links)
        return np.array([self._h.robot_link_index(str(n)) for n in names], dtype=np.int32)
