"""Shapes and joint markers of a URDF robot scene for the 3D replay (docs/service.md,
"Web page and replay"; docs/robots.md).

The run's /state holds per moving link (body k = moving link k) its centre of mass and the
link frame's orientation (docs/robots.md, "Output"). A link fixed to a moving link by URDF
fixed joints is merged into it, and a `robot.payload` point mass too, so the body's CoM c
(in the link frame) is the mass-weighted mean of theirs; each URDF <visual> of the merged
links is placed in B by its pose in the link frame minus c. Geometry: box, cylinder (along
z, as the replay's), sphere, and STL meshes; a visual mesh in another format (COLLADA
.dae, OBJ) is replaced by the link's STL <collision> meshes when it has some (a note says
so). A link drawn with nothing gets its inertia ellipsoid. Joint markers sit at the link
frame's origin (the URDF joint frame of the link's parent joint), axis the joint's axis.
The root link (the world frame, docs/robots.md) and the links fixed to it are returned
as one last entry {"name": "ground", "ground": true}: shapes in the world frame, no pose.
A floating base is a body like the links (body 0, the root link's or the `floating`
joint's child's name, with the links fixed to it): drawn as a body, so a root that is a
body is no ground; a `floating` joint gets no joint marker.
"""
from __future__ import annotations

import importlib.metadata
import math
import os
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .. import _simphant
from . import replay_geometry as geo

ROBOT_DATA_PREFIX = "example-robot-data:"


def robot_data_dir() -> Optional[str]:
    """example-robot-data's robots folder: $SIMPHANT_ROBOT_DATA, else the installed
    package's (docs/robots.md, "Where the robot files are found"); None when absent."""
    env = os.environ.get("SIMPHANT_ROBOT_DATA")
    if env:
        return env
    try:
        p = importlib.metadata.distribution("example-robot-data").locate_file(
            "cmeel.prefix/share/example-robot-data/robots")
    except importlib.metadata.PackageNotFoundError:
        return None
    return str(p) if os.path.isdir(str(p)) else None


def resolve_urdf(name: str, root: str) -> Optional[str]:
    if name.startswith(ROBOT_DATA_PREFIX):
        base = robot_data_dir()
        return os.path.join(base, name[len(ROBOT_DATA_PREFIX):]) if base else None
    return name if os.path.isabs(name) else os.path.join(root, name)


def rpy_matrix(rpy) -> np.ndarray:
    """URDF's fixed-axis roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll)."""
    r, p, y = rpy
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def _origin(el) -> Tuple[np.ndarray, np.ndarray]:
    """(R, p) of an element's <origin> (identity when absent)."""
    o = el.find("origin") if el is not None else None
    if o is None:
        return np.eye(3), np.zeros(3)
    xyz = [float(v) for v in o.get("xyz", "0 0 0").split()]
    rpy = [float(v) for v in o.get("rpy", "0 0 0").split()]
    return rpy_matrix(rpy), np.array(xyz)


def resolve_mesh(filename: str, urdf_dir: str) -> str:
    """A URDF mesh filename as a path, by the core's rule (_simphant.resolve_urdf_filename,
    src/simphant/urdf/urdf_mesh.hpp): file:// and relative names as usual; package://PKG/rest
    under ROS_PACKAGE_PATH, else A/PKG/rest or A/rest for the URDF's folder A and each one
    above it. A package:// name that finds no file is returned as written (the replay's
    notes name it)."""
    return _simphant.resolve_urdf_filename(filename, urdf_dir) or filename


def _color(visual, materials: Dict[str, str]) -> str:
    m = visual.find("material")
    if m is None:
        return geo.DEFAULT_COLOR
    c = m.find("color")
    if c is None:
        return materials.get(m.get("name", ""), geo.DEFAULT_COLOR)
    rgba = [float(v) for v in c.get("rgba", "0.55 0.6 0.7 1").split()]
    return "#" + "".join(f"{int(round(255 * max(0.0, min(1.0, x)))):02x}" for x in rgba[:3])


def _geometry(el, urdf_dir: str) -> Optional[Dict[str, Any]]:
    g = el.find("geometry")
    if g is None or len(g) == 0:
        return None
    s = g[0]
    if s.tag == "box":
        return {"type": "box", "size": [float(v) for v in s.get("size").split()]}
    if s.tag == "cylinder":
        return {"type": "cylinder", "radius": float(s.get("radius")), "length": float(s.get("length"))}
    if s.tag == "sphere":
        return {"type": "sphere", "radius": float(s.get("radius"))}
    if s.tag == "mesh":
        scale = [float(v) for v in s.get("scale", "1 1 1").split()]
        return {"type": "mesh", "file": resolve_mesh(s.get("filename", ""), urdf_dir), "scale": scale,
                "urdf_file": s.get("filename", "")}
    return None


def _shapes_of(link, urdf_dir: str, materials: Dict[str, str], notes: List[str]) -> List[Tuple]:
    """[(R, p, shape)] in the link frame: its visuals; a non-STL visual mesh replaced by the
    link's STL collision meshes."""
    out, replaced = [], False
    for v in link.findall("visual"):
        shape = _geometry(v, urdf_dir)
        if shape is None:
            continue
        shape["color"] = _color(v, materials)
        if shape["type"] == "mesh" and not shape["file"].lower().endswith(".stl"):
            replaced = True
            continue
        out.append((*_origin(v), shape))
    if replaced:
        got = 0
        for c in link.findall("collision"):
            shape = _geometry(c, urdf_dir)
            if shape is not None and (shape["type"] != "mesh" or shape["file"].lower().endswith(".stl")):
                shape["color"] = geo.DEFAULT_COLOR
                out.append((*_origin(c), shape))
                got += 1
        notes.append(f"link {link.get('name')}: visual meshes not in STL; "
                     + (f"drawn from its {got} collision shapes" if got else "none drawn"))
    return out


def _inertial(link) -> Tuple[float, np.ndarray, np.ndarray]:
    """(mass, CoM in the link frame, inertia about the CoM in the link frame)."""
    i = link.find("inertial")
    if i is None:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    r, p = _origin(i)
    m = float(i.find("mass").get("value")) if i.find("mass") is not None else 0.0
    e = i.find("inertia")
    j = np.zeros((3, 3))
    if e is not None:
        g = {k: float(e.get(k, "0")) for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
        j = np.array([[g["ixx"], g["ixy"], g["ixz"]], [g["ixy"], g["iyy"], g["iyz"]], [g["ixz"], g["iyz"], g["izz"]]])
    return m, p, r @ j @ r.T


def robot_geometry(scene: Dict[str, Any], body_names: List[str], root: str):
    """(bodies, joints, notes) of a robot scene (see the module docstring); `root` is the
    folder a relative robot.urdf is resolved in."""
    notes: List[str] = []
    robot = scene.get("robot", {})
    path = resolve_urdf(str(robot.get("urdf", "")), root)
    if path is None or not os.path.isfile(path):
        notes.append(f"robot.urdf {robot.get('urdf')!r}: not found here; bodies drawn as points")
        return [{"name": n, "shapes": [], "source": "none"} for n in body_names], [], notes
    try:
        return _robot_geometry(ET.parse(path).getroot(), path, robot, body_names, notes)
    except (ET.ParseError, OSError, ValueError, TypeError, AttributeError) as e:
        notes.append(f"robot.urdf {robot.get('urdf')!r}: cannot be drawn ({type(e).__name__}: {e}); bodies drawn as points")
        return [{"name": n, "shapes": [], "source": "none"} for n in body_names], [], notes


def _fixed_subtree(name: str, children: Dict[str, List]) -> List[Tuple[str, np.ndarray, np.ndarray]]:
    """The link `name` and the links fixed to it (through fixed joints), each with its pose
    (R, p) in the frame of `name`."""
    merged, stack = [], [(name, np.eye(3), np.zeros(3))]
    while stack:
        ln, r, p = stack.pop()
        merged.append((ln, r, p))
        for j in children.get(ln, []):
            if j.get("type") == "fixed":
                rj, pj = _origin(j)
                stack.append((j.find("child").get("link"), r @ rj, r @ pj + p))
    return merged


def _robot_geometry(tree, path: str, robot: Dict[str, Any], body_names: List[str], notes: List[str]):
    urdf_dir = os.path.dirname(os.path.abspath(path))
    materials = {}
    for m in tree.findall("material"):
        c = m.find("color")
        if c is not None:
            rgba = [float(v) for v in c.get("rgba").split()]
            materials[m.get("name")] = "#" + "".join(f"{int(round(255 * min(1, max(0, x)))):02x}" for x in rgba[:3])
    links = {lk.get("name"): lk for lk in tree.findall("link")}
    children: Dict[str, List] = {}
    parent_joint: Dict[str, Any] = {}
    for j in tree.findall("joint"):
        children.setdefault(j.find("parent").get("link"), []).append(j)
        parent_joint[j.find("child").get("link")] = j
    payload = robot.get("payload")
    bodies, joints = [], []
    for k, name in enumerate(body_names):
        if name not in links:
            bodies.append({"name": name, "shapes": [], "source": "none"})
            notes.append(f"body {name}: no such link in {os.path.basename(path)}")
            continue
        merged = _fixed_subtree(name, children)
        masses = []  # (m, CoM in the link frame, inertia about that CoM in the link frame)
        shapes = []
        for ln, r, p in merged:
            m, c, jc = _inertial(links[ln])
            masses.append((m, r @ c + p, r @ jc @ r.T))
            if payload and payload.get("link") == ln:
                masses.append((float(payload.get("mass", 0.0)), r @ np.asarray(payload.get("com", [0, 0, 0]), float) + p,
                               np.zeros((3, 3))))
            for rs, ps, shape in _shapes_of(links[ln], urdf_dir, materials, notes):
                shapes.append((r @ rs, r @ ps + p, shape))
        total = sum(m for m, _, _ in masses)
        com = sum(m * c for m, c, _ in masses) / total if total > 0 else np.zeros(3)
        inertia = sum(j + m * (np.dot(c - com, c - com) * np.eye(3) - np.outer(c - com, c - com))
                      for m, c, j in masses) if total > 0 else np.eye(3)
        out = []
        for r, p, shape in shapes:
            shape.pop("urdf_file", None)
            shape["origin"] = {"position": (p - com).tolist(), "orientation": geo.quat_from_matrix(r)}
            out.append(shape)
        entry = {"name": name, "shapes": out, "source": "urdf", "mass": total, "inertia": np.asarray(inertia).tolist()}
        if not out and total > 0:
            entry["shapes"], entry["source"] = [geo.inertia_ellipsoid(total, inertia)], "inertia"
        bodies.append(entry)
        j = parent_joint.get(name)
        if j is not None and j.get("type") in ("revolute", "continuous", "prismatic"):
            axis_el = j.find("axis")
            axis = np.array([float(v) for v in axis_el.get("xyz").split()]) if axis_el is not None else np.array([1.0, 0, 0])
            joints.append({"name": j.get("name"), "type": j.get("type"), "body": k, "anchor": (-com).tolist(),
                           "axis": (axis / np.linalg.norm(axis)).tolist()})
    # the root link (the world frame) and the links fixed to it: drawn where they are,
    # unless the root is a body (a floating base made from the root link)
    roots = [ln for ln in links if ln not in parent_joint]
    ground = []
    for ln, r, p in _fixed_subtree(roots[0], children) if len(roots) == 1 and roots[0] not in body_names else []:
        for rs, ps, shape in _shapes_of(links[ln], urdf_dir, materials, notes):
            shape.pop("urdf_file", None)
            shape["origin"] = {"position": (r @ ps + p).tolist(), "orientation": geo.quat_from_matrix(r @ rs)}
            ground.append(shape)
    if ground:
        bodies.append({"name": "ground", "shapes": ground, "source": "urdf", "ground": True})
    return bodies, joints, notes
