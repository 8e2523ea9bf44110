"""The contact pairs of a run for the 3D replay (docs/service.md, "Web page and replay";
docs/contact.md): the collision shapes and the contact points of the frames shown.

Both come from the C++ core with the scene stored in the file and the instance's sweep
values: the shapes as the compiled model places them in the body frames (every kind of
scene alike: `collision` of the bodies, a robot's `robot.collision` and
`robot.urdf_collision`, an MJCF file's geoms; _simphant.contact_shapes), the points from the
recorded body states by the pair function the step evaluates, as /contacts is
(_simphant.contact_points). Shapes in the replay's form (replay_geometry: box `size` full
edges, cylinder and capsule `length` along z, `origin` in the body frame); a plane gets
`type` "plane" (drawn as a square); the bearing and journal of a clearance joint are not
drawn (a note says so).
"""
from __future__ import annotations

import base64
import json
from typing import Any, Dict, List, NamedTuple, Optional

import numpy as np

from .. import _simphant
from .._quiet import quiet_warnings

#: colour of the collision shapes (drawn translucent over the body shapes)
COLLISION_COLOR = "#2e8b57"


def _replay_shape(s: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    kind, size = s["kind"], s["size"]
    out: Dict[str, Any] = {"type": kind, "color": COLLISION_COLOR, "opacity": 0.4,
                           "origin": {"position": list(s["position"]), "orientation": list(s["orientation"])}}
    if kind == "box":
        out["size"] = [2 * size[0], 2 * size[1], 2 * size[2]]
    elif kind == "sphere":
        out["radius"] = size[0]
    elif kind in ("capsule", "cylinder"):
        out.update(radius=size[0], length=2 * size[1])
    elif kind == "plane":
        out["opacity"] = 0.15  # the grid stays visible through the ground
    else:
        return None
    return out


#: numbers per frame and contact pair that the replay sends (4 contacts x 7)
NUMBERS_PER_PAIR = 4 * 7


class ContactScene(NamedTuple):
    """The stored scene compiled here, and its contact pairs' names (P)."""

    scene: Any
    pairs: List[str]


def _has_contact(scene: Dict[str, Any]) -> bool:
    """Whether a scene document declares contact pairs: a `contact` section (bodies' and
    robots' shapes) or a joint with a clearance."""
    joints = scene.get("joints", [])
    return "contact" in scene or any(isinstance(j, dict) and "clearance" in j for j in joints)


def contact_scene(scene_text: str, scene_file: str, notes: List[str]) -> Optional[ContactScene]:
    """The stored scene compiled with its files resolved as at `scene_file` (a path in the
    folder that holds the run's inputs): None for a scene without contact pairs, or, with a
    note when it declares some, when it does not compile here (a URDF no longer beside it,
    say)."""
    try:
        with quiet_warnings():  # the run has logged the file's warnings already
            scene = _simphant._Scene.from_text(scene_text, scene_file)
        pairs = list(_simphant.contact_pair_names(scene))
    except Exception as e:  # anything the core refuses: the replay goes on without contacts
        try:
            declared = _has_contact(json.loads(scene_text))
        except (ValueError, AttributeError):
            declared = False
        if declared:
            notes.append(f"no contact shapes or points: the scene stored in the file does not compile here ({e})")
        return None
    return ContactScene(scene, pairs) if pairs else None


def replay_contacts(cs: ContactScene, params: Dict[str, float], states: np.ndarray,
                    notes: List[str]) -> Optional[Dict[str, Any]]:
    """The contacts of one instance at the frames of `states` ((F, B, 13) float64 as /state
    records them), with the instance's sweep values `params`: {"pairs": names (P),
    "shapes": [{"body": k or -1 (the ground, W), "shape": a replay shape}], "points":
    base64 float32 [frame][pair][contact][x y z nx ny nz fn] (point W [m], unit normal from
    shape A to B, normal force [N]; NaN in the unused slots), "max" and "p95" of the
    normal forces over the frames (the arrows' scale), "units"}; None with a note when the
    core refuses the values."""
    names = cs.pairs
    try:
        shapes = _simphant.contact_shapes(cs.scene, params)
        points = np.empty((states.shape[0], len(names), 4, 7))
        _simphant.contact_points(cs.scene, params, np.ascontiguousarray(states, dtype=np.float64), points)
    except Exception as e:
        notes.append(f"no contact shapes or points: the instance's values do not compile here ({e})")
        return None
    drawn = []
    for s in shapes:
        shape = _replay_shape(s)
        if shape is None:
            notes.append(f"a clearance joint's {s['kind']} (body {s['body']}) is not drawn")
            continue
        drawn.append({"body": int(s["body"]), "shape": shape})
    fn = points[..., 6]
    finite = fn[np.isfinite(fn) & (fn > 0)]
    return {"pairs": names, "shapes": drawn,
            "points": base64.b64encode(np.ascontiguousarray(points, dtype="<f4").tobytes()).decode("ascii"),
            "layout": "float32 little-endian, [frame][pair][contact (4)][x y z nx ny nz fn]: the point (W) [m], the "
                      "unit normal from shape A to shape B, the normal force [N]; NaN where the pair has fewer contacts",
            "max": float(finite.max()) if finite.size else 0.0,
            "p95": float(np.percentile(finite, 95)) if finite.size else 0.0, "units": "N"}
