"""Where a scene's joints sit on their bodies, from the scene document alone (the 3D
replay, simphant.serve.replay_geometry, and the env renderer, simphant.gym.render, draw
them): a joint's frame in the frame B of the body it rides on, as the engine compiles it
(docs/scene-format.md, "Joint"): a local frame_i / frame_j as given, a world-form
`frame` at the scene's initial configuration, u = A^T (origin - r)."""
from __future__ import annotations

from typing import Any, Dict, Sequence, Tuple

import numpy as np


def rotation_matrix(q: Any) -> np.ndarray:
    """(..., 3, 3) rotation matrices A(q) of unit quaternions q (..., 4) = (w, x, y, z)."""
    w, x, y, z = np.moveaxis(np.asarray(q, np.float64), -1, 0)
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
                     np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
                     np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def quat_rotate(q: Sequence[float], v: Sequence[float]) -> np.ndarray:
    """v rotated by the unit quaternion q = [w, x, y, z] (A(q) v)."""
    return rotation_matrix(q) @ np.asarray(v, dtype=float)


def unit(v: Sequence[float]) -> np.ndarray:
    a = np.asarray(v, dtype=float)
    return a / np.linalg.norm(a)


def anchor_in(joint: Dict[str, Any], side: str, bodies: Dict[str, Any]) -> Tuple[np.ndarray, np.ndarray]:
    """(u, z): the origin [m] and z axis of joint's frame on body_<side> ("i" or "j"), in
    that body's frame B; on the ground, in W. bodies: the scene's bodies by name. Raises
    KeyError / TypeError / ValueError for a joint the document does not describe fully."""
    name = joint[f"body_{side}"]
    if "frame" in joint:
        origin, z = np.asarray(joint["frame"]["origin"], float), unit(joint["frame"]["z"])
        if name == "ground":
            return origin, z
        b = bodies[name]
        q = unit(b.get("orientation", [1, 0, 0, 0]))
        qc = [q[0], -q[1], -q[2], -q[3]]  # A^T
        return quat_rotate(qc, origin - np.asarray(b["position"], float)), quat_rotate(qc, z)
    f = joint[f"frame_{side}"]
    return np.asarray(f["origin"], float), unit(f["z"])
