"""Body shapes and joint anchors of a scene for the 3D replay (docs/service.md, "Web page
and replay"): the scene's optional `bodies[k].visual` shapes, else each body's inertia
ellipsoid, and each joint's anchor in a body frame.

Frames (docs/scene-format.md): every body frame B sits at the body's centre of mass;
quaternions are [w, x, y, z] and rotate B to the world frame W. A shape is placed in B by
its `origin` {position, orientation}. Cylinders and capsules lie along the z axis of their
own frame (the URDF convention), boxes are centred with edge lengths `size` along x, y, z.
"""
from __future__ import annotations

import copy
import math
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

#: Colour of shapes that give none, and of inertia ellipsoids.
DEFAULT_COLOR = "#8c9bb0"
ELLIPSOID_COLOR = "#c9a25c"


def quat_rotate(q: Sequence[float], v: Sequence[float]) -> np.ndarray:
    """v rotated by the unit quaternion q = [w, x, y, z] (A(q) v)."""
    w, x, y, z = (float(c) for c in q)
    a = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    return a @ np.asarray(v, dtype=float)


def quat_from_matrix(a: np.ndarray) -> List[float]:
    """The unit quaternion [w, x, y, z] of a proper rotation matrix (Shepperd's method)."""
    t = np.trace(a)
    if t > 0:
        s = 2.0 * math.sqrt(1.0 + t)
        q = [0.25 * s, (a[2, 1] - a[1, 2]) / s, (a[0, 2] - a[2, 0]) / s, (a[1, 0] - a[0, 1]) / s]
    elif a[0, 0] > a[1, 1] and a[0, 0] > a[2, 2]:
        s = 2.0 * math.sqrt(1.0 + a[0, 0] - a[1, 1] - a[2, 2])
        q = [(a[2, 1] - a[1, 2]) / s, 0.25 * s, (a[0, 1] + a[1, 0]) / s, (a[0, 2] + a[2, 0]) / s]
    elif a[1, 1] > a[2, 2]:
        s = 2.0 * math.sqrt(1.0 + a[1, 1] - a[0, 0] - a[2, 2])
        q = [(a[0, 2] - a[2, 0]) / s, (a[0, 1] + a[1, 0]) / s, 0.25 * s, (a[1, 2] + a[2, 1]) / s]
    else:
        s = 2.0 * math.sqrt(1.0 + a[2, 2] - a[0, 0] - a[1, 1])
        q = [(a[1, 0] - a[0, 1]) / s, (a[0, 2] + a[2, 0]) / s, (a[1, 2] + a[2, 1]) / s, 0.25 * s]
    n = math.sqrt(sum(c * c for c in q))
    return [float(c / n) for c in q]


def inertia_tensor(value: Any) -> np.ndarray:
    """The 3x3 inertia tensor of a scene `inertia` value: [Ixx, Iyy, Izz], [Ixx, Iyy, Izz,
    Ixy, Ixz, Iyz] (tensor entries) or a 3x3 array (docs/scene-format.md, "Body")."""
    a = np.asarray(value, dtype=float)
    if a.shape == (3,):
        return np.diag(a)
    if a.shape == (6,):
        xx, yy, zz, xy, xz, yz = a
        return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    if a.shape == (3, 3):
        return 0.5 * (a + a.T)
    raise ValueError(f"inertia of shape {a.shape}: expected 3, 6 or 3x3 numbers")


def inertia_ellipsoid(mass: float, inertia: Any) -> Dict[str, Any]:
    """The solid ellipsoid of uniform density with the body's mass and inertia tensor.

    With principal moments J1, J2, J3 (eigenvalues of the tensor, kg m^2) a solid
    ellipsoid of semi-axes a1, a2, a3 and mass m has J1 = m (a2^2 + a3^2) / 5, ..., so
    a1 = sqrt(5 / (2 m) (J2 + J3 - J1)) and cyclically. Returns {"type": "ellipsoid",
    "radii": [a1, a2, a3] (m), "origin": {"position": [0, 0, 0], "orientation": the
    principal axes as [w, x, y, z] in B}}; a radius whose radicand is negative by
    round-off (a thin rod) is 0."""
    j = inertia_tensor(inertia)
    moments, axes = np.linalg.eigh(j)
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    total = moments.sum()
    radii = [math.sqrt(max(0.0, 5.0 / (2.0 * mass) * (total - 2.0 * moments[k]))) for k in range(3)]
    return {"type": "ellipsoid", "radii": radii, "color": ELLIPSOID_COLOR,
            "origin": {"position": [0.0, 0.0, 0.0], "orientation": quat_from_matrix(axes)}}


_PART = re.compile(r"^([^.\[\]]+)((?:\[\d+\])*)$")


def apply_sweep_values(scene: Dict[str, Any], values: Dict[str, float]) -> Tuple[Dict[str, Any], List[str]]:
    """A copy of `scene` with each sweep path (docs/scene-format.md, "Sweep": `bodies.crank.mass`,
    `joints.j1.frame.origin[0]`, `bodies.b.inertia[1][1]`) set to its value; returns
    (scene, notes) with a note for each path it could not place (left at the scene's value)."""
    out = copy.deepcopy(scene)
    notes: List[str] = []
    for path, value in values.items():
        try:
            _set_path(out, path, float(value))
        except (KeyError, IndexError, TypeError, ValueError) as e:
            notes.append(f"sweep path {path}: not applied to the replay geometry ({e})")
    return out, notes


def _set_path(scene: Dict[str, Any], path: str, value: float) -> None:
    parts = path.split(".")
    node: Any = scene
    for n, part in enumerate(parts):
        m = _PART.match(part)
        if not m:
            raise ValueError(f"bad part {part!r}")
        key, idx = m.group(1), [int(i) for i in re.findall(r"\d+", m.group(2))]
        last = n == len(parts) - 1
        if isinstance(node, list):  # an array of named objects: bodies, joints, forces
            node = next((x for x in node if isinstance(x, dict) and x.get("name") == key), None)
            if node is None:
                raise KeyError(key)
            if idx or last:
                raise ValueError(f"{part!r} names an object")
            continue
        if last and not idx:
            node[key] = value
            return
        if key not in node:
            raise KeyError(key)
        if idx:
            target = node[key]
            for i in idx[:-1]:
                target = target[i]
            if last:
                target[idx[-1]] = value
                return
            node = target[idx[-1]]
        else:
            node = node[key]
    raise ValueError("path ends at an object")


def _shape_from_visual(v: Dict[str, Any]) -> Dict[str, Any]:
    """One `visual` object of the scene as a replay shape (the scene parser validated it)."""
    kind = v["type"]
    origin = v.get("origin", {})
    shape: Dict[str, Any] = {"type": kind, "color": v.get("color", DEFAULT_COLOR),
                             "origin": {"position": list(map(float, origin.get("position", [0, 0, 0]))),
                                        "orientation": list(map(float, origin.get("orientation", [1, 0, 0, 0])))}}
    if kind == "box":
        shape["size"] = list(map(float, v["size"]))
    elif kind == "sphere":
        shape["radius"] = float(v["radius"])
    elif kind in ("cylinder", "capsule"):
        shape["radius"], shape["length"] = float(v["radius"]), float(v["length"])
    elif kind == "mesh":
        scale = v.get("scale", 1.0)
        shape["file"] = v["file"]
        shape["scale"] = [float(scale)] * 3 if isinstance(scale, (int, float)) else list(map(float, scale))
    else:
        raise ValueError(f"unknown visual type {kind!r}")
    return shape


def body_shapes(body: Dict[str, Any]) -> Tuple[List[Dict[str, Any]], str]:
    """(shapes in B, source) of one scene body: its `visual` (an object or an array of
    objects) when present (source "visual"), else its inertia ellipsoid ("inertia")."""
    vis = body.get("visual")
    if vis is not None:
        items = vis if isinstance(vis, list) else [vis]
        return [_shape_from_visual(v) for v in items], "visual"
    return [inertia_ellipsoid(float(body["mass"]), body["inertia"])], "inertia"


def _unit(v: Sequence[float]) -> np.ndarray:
    a = np.asarray(v, dtype=float)
    return a / np.linalg.norm(a)


def joint_anchors(scene: Dict[str, Any], body_index: Dict[str, int]) -> List[Dict[str, Any]]:
    """Each joint's anchor as the replay draws it: {"name", "type", "body": index of the
    body it rides on (-1: the ground), "anchor": its position in that body's frame B (m),
    "axis": the joint's z axis in B}. The marker rides on body_j (on body_i when body_j is
    the ground). A world-form `frame` is converted at the scene's initial configuration,
    u = A^T (origin - r), as the engine does (docs/scene-format.md, "Joint")."""
    bodies = {b["name"]: b for b in scene.get("bodies", [])}
    out = []
    for j in scene.get("joints", []):
        side = "j" if j.get("body_j") != "ground" else "i"
        name = j.get(f"body_{side}")
        if name not in body_index:
            continue
        if "frame" in j:
            b = bodies[name]
            q = _unit(b.get("orientation", [1, 0, 0, 0]))
            qc = [q[0], -q[1], -q[2], -q[3]]  # A^T
            u = quat_rotate(qc, np.asarray(j["frame"]["origin"], float) - np.asarray(b["position"], float))
            z = quat_rotate(qc, _unit(j["frame"]["z"]))
        else:
            f = j[f"frame_{side}"]
            u, z = np.asarray(f["origin"], float), _unit(f["z"])
        out.append({"name": j["name"], "type": j["type"], "body": body_index[name], "anchor": u.tolist(),
                    "axis": z.tolist()})
    return out


def scene_bodies(scene: Dict[str, Any], body_names: List[str]) -> Tuple[List[Dict[str, Any]], List[str]]:
    """(bodies, notes): for each body of the file (in /state order) {"name", "shapes",
    "source"}; a body absent from the scene's `bodies` gets no shapes and a note."""
    by_name = {b["name"]: b for b in scene.get("bodies", []) if isinstance(b, dict) and "name" in b}
    out, notes = [], []
    for name in body_names:
        b = by_name.get(name)
        if b is None:
            out.append({"name": name, "shapes": [], "source": "none"})
            notes.append(f"body {name}: not in the scene's bodies; drawn as a point")
            continue
        shapes, source = body_shapes(b)
        out.append({"name": name, "shapes": shapes, "source": source, "mass": float(b["mass"]),
                    "inertia": inertia_tensor(b["inertia"]).tolist()})
    return out, notes


def find_body(bodies: List[Dict[str, Any]], name: str) -> Optional[int]:
    for k, b in enumerate(bodies):
        if b["name"] == name:
            return k
    return None
