"""Body shapes and joint anchors of a scene for the 3D replay (docs/service.md, "Web page
and replay"): the scene's optional `bodies[k].visual` shapes, else each body's inertia
ellipsoid (scaled to leave the body's joints in view, with rods to them:
fit_inertia_shape), and each joint's anchor in a body frame.

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

from .._joint_anchors import anchor_in, quat_rotate, unit

#: Colour of shapes that give none, and of inertia ellipsoids.
DEFAULT_COLOR = "#8c9bb0"
ELLIPSOID_COLOR = "#c9a25c"


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
        u, z = anchor_in(j, side, bodies)
        out.append({"name": j["name"], "type": j["type"], "body": body_index[name], "anchor": u.tolist(),
                    "axis": z.tolist()})
    return out


def anchors_by_body(scene: Dict[str, Any], body_index: Dict[str, int]) -> Dict[int, List[List[float]]]:
    """The anchors of every joint on each body, both sides of each joint (body_i's frame
    on body_i, body_j's on body_j), in the body's frame B: {body index: [u, ...]}."""
    bodies = {b["name"]: b for b in scene.get("bodies", [])}
    out: Dict[int, List[List[float]]] = {}
    for j in scene.get("joints", []):
        for side in ("i", "j"):
            name = j.get(f"body_{side}")
            if name not in body_index:
                continue
            try:
                u, _ = anchor_in(j, side, bodies)
            except (KeyError, TypeError, ValueError):
                continue
            out.setdefault(body_index[name], []).append(u.tolist())
    return out


#: How far toward its nearest joint an inertia ellipsoid reaches (fit_inertia_shape).
ELLIPSOID_REACH = 0.6
#: The smallest scale of an inertia ellipsoid (a joint at or next to the centre of mass).
ELLIPSOID_MIN_SCALE = 0.1
#: Opacity of an inertia ellipsoid.
ELLIPSOID_OPACITY = 0.45
#: A joint closer to the centre of mass than this fraction of the largest semi-axis is
#: at the centre (kept out of the fit; its marker is drawn over the shapes).
AT_CENTRE = 1e-3
#: Radius of the rods from the centre of mass to the joints, per metre of the longest one.
ROD_RADIUS = 0.025


def _quat_z_to(d: np.ndarray) -> List[float]:
    """The shortest rotation [w, x, y, z] that turns the z axis onto the unit vector d."""
    w = 1.0 + d[2]
    if w < 1e-12:  # d = -z: half a turn about x
        return [0.0, 1.0, 0.0, 0.0]
    q = np.array([w, -d[1], d[0], 0.0])
    return (q / np.linalg.norm(q)).tolist()


def joint_points_world(scene: Dict[str, Any]) -> List[np.ndarray]:
    """Every joint's anchor on each of its bodies in the world frame at the scene's
    initial configuration (r + A u; the ground's anchors as given)."""
    bodies = {b["name"]: b for b in scene.get("bodies", []) if isinstance(b, dict) and "name" in b}
    out = []
    for j in scene.get("joints", []):
        if "frame" in j:
            out.append(np.asarray(j["frame"]["origin"], float))
            continue
        for side in ("i", "j"):
            name, f = j.get(f"body_{side}"), j.get(f"frame_{side}", {})
            try:
                u = np.asarray(f["origin"], float)
                if name == "ground":
                    out.append(u)
                elif name in bodies:
                    b = bodies[name]
                    q = unit(b.get("orientation", [1, 0, 0, 0]))
                    out.append(np.asarray(b["position"], float) + quat_rotate(q, u))
            except (KeyError, TypeError, ValueError):
                continue
    return out


def in_body_frame(body: Dict[str, Any], points: List[np.ndarray]) -> List[List[float]]:
    """World points in a scene body's frame at its initial pose: A^T (w - r)."""
    q = unit(body.get("orientation", [1, 0, 0, 0]))
    qc = [q[0], -q[1], -q[2], -q[3]]
    r = np.asarray(body["position"], float)
    return [quat_rotate(qc, w - r).tolist() for w in points]


def fit_inertia_shape(body: Dict[str, Any], anchors: List[Sequence[float]],
                      others: Sequence[Sequence[float]] = ()) -> None:
    """Makes the inertia ellipsoid of a body without visuals (shapes[0]) leave the joints
    in view: scaled about the centre of mass by s = min(1, ELLIPSOID_REACH * rho_min),
    where rho_min is the smallest ellipsoidal radius sqrt(sum((p_k / a_k)^2)) of the
    body's joint anchors and of `others` (the other joints of the mechanism, in B at the
    initial configuration; p: the point on the principal axes, a: the semi-axes; a point
    is inside the full ellipsoid when rho < 1), so that the ellipsoid ends at 60 % of the
    way to the nearest joint in each direction (s >= ELLIPSOID_MIN_SCALE; points at the
    centre of mass, within AT_CENTRE of the largest semi-axis, are not counted: their
    markers are drawn over the shapes), drawn
    translucent; and a rod (a thin cylinder) from the centre of mass to each of the body's
    anchors, so that the body reads as the link between its joints.
    The ellipsoid keeps its full semi-axes as "inertia_radii" and the factor as "scale";
    "radii" are the drawn ones."""
    e = body["shapes"][0]
    full = np.asarray(e["radii"], dtype=float)
    rmax = float(full.max()) if full.size else 0.0
    eff = np.maximum(full, 0.02 * rmax)  # as drawn: a zero semi-axis at 2 % of the largest
    axes_t = np.eye(3)
    q = e.get("origin", {}).get("orientation")
    if q is not None:
        axes_t = np.column_stack([quat_rotate(q, c) for c in np.eye(3)]).T  # rows: the principal axes in B
    def off_centre(points: Sequence[Sequence[float]]) -> List[np.ndarray]:
        pts = [np.asarray(p, dtype=float) for p in points]
        return [u for u in pts if np.linalg.norm(u) > AT_CENTRE * rmax]

    pts = off_centre(anchors)
    clip = pts + off_centre(others)
    scale = 1.0
    if rmax > 0 and clip:
        rho = min(float(np.sqrt(np.sum(np.square(axes_t @ u / eff)))) for u in clip)
        scale = max(ELLIPSOID_MIN_SCALE, min(1.0, ELLIPSOID_REACH * rho))
    e.update(inertia_radii=full.tolist(), scale=scale, radii=(full * scale).tolist(), opacity=ELLIPSOID_OPACITY)
    longest = max((float(np.linalg.norm(u)) for u in pts), default=0.0)
    for u in pts:
        n = float(np.linalg.norm(u))
        body["shapes"].append({"type": "cylinder", "radius": ROD_RADIUS * longest, "length": n,
                               "color": e.get("color", ELLIPSOID_COLOR), "role": "rod",
                               "origin": {"position": (u / 2).tolist(), "orientation": _quat_z_to(u / n)}})


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
