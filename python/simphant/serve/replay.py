"""The 3D replay's data from a run's HDF5 file (docs/service.md, "Web page and replay").

`replay_data(path, ...)` reads the recorded frames of one instance (README "Output
(HDF5)": /time (T), /state (T, I, B, 13)) and the scene stored in the file's root
attribute `scene`, and returns one JSON-ready dict:

- frames: `time` (F frames [s]) and `poses`: base64 of little-endian float32, F x B x 7
  numbers per frame and body: r (CoM, world) [m] then the orientation quaternion in
  three.js order x y z w (the file stores w x y z, body to world);
- bodies: per body of /state its shapes in the body frame B (centred at the CoM): the
  scene's `bodies[k].visual` (box, cylinder, sphere, capsule, mesh), the URDF visuals of a
  robot scene (replay_urdf.py), else the body's inertia ellipsoid, scaled to leave its
  joints in view, with rods from the centre of mass to them (replay_geometry.fit_inertia_shape);
- ground: shapes fixed in the world frame (a robot's base links);
- joints: each joint's anchor in the frame of the body it rides on;
- reactions: the force each joint applies to its body_j (/reactions, world frame) at the
  frames shown, for arrows at the joints; None when the file has no /reactions;
- contacts: the collision shapes of the scene's contact pairs and the contact points with
  their normal forces at the frames shown (replay_contacts.py); None without contact pairs;
- the instance shown and how it was picked (by index, or the largest peak load of the
  report's peak loads: /reductions, else the per-frame loads; docs/report.md, "Peak loads").

At most `max_frames` frames and `max_values` pose and contact numbers are returned: the recorded
frames are decimated by an integer stride (first frame kept; the last recorded frame is
appended when the stride skips it), and the dict says so (`frame_stride`, `frames_recorded`).
float32 keeps 7 significant digits (0.1 mm at 1 km from the origin).
"""
from __future__ import annotations

import base64
import json
import math
import os
from typing import Any, Dict, List, Optional

import h5py
import numpy as np

from ..report.load import text as _text  # an HDF5 attribute as plain Python
from . import replay_geometry as geo
from .replay_contacts import NUMBERS_PER_PAIR, contact_scene, replay_contacts

#: Default limits of one replay: frames, and pose numbers (F x B x 7; 4 bytes each).
MAX_FRAMES = 2000
MAX_VALUES = 4_000_000


class ReplayError(ValueError):
    """The file cannot be replayed: missing, not HDF5, not SimPhant output, no /state
    frames, or a bad instance / load key. The message names the file and the reason."""


def open_run(path: str) -> h5py.File:
    """The file opened read-only; ReplayError when it is missing or not a SimPhant run."""
    if not os.path.exists(path):
        raise ReplayError(f"{path}: no such file")
    if os.path.isdir(path):
        raise ReplayError(f"{path}: is a folder, not a results file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise ReplayError(f"{path}: not an HDF5 file ({e})") from None
    if "status" not in f or "scene" not in f.attrs:
        f.close()
        raise ReplayError(f"{path}: not a SimPhant results file (no /status or no root attribute scene)")
    return f


def peak_loads(path: str) -> List[Dict[str, Any]]:
    """The report's peak loads (docs/report.md, "Peak loads") over the ok instances, each
    {"key", "units", "instance" (the one with the largest peak), "value"}, largest first
    within each unit."""
    from ..report.load import QUANTITIES, ResultFile
    from ..report.outputs import peak_loads as report_peaks

    with ResultFile(path) as rf:
        outs = report_peaks(rf, list(QUANTITIES), [])
        status = rf.status()
    res = []
    for o in outs:
        v = np.array(o.values, dtype=float)
        if status is not None:
            v[status != 0] = np.nan
        if not np.isfinite(v).any():
            continue
        i = int(np.nanargmax(v))
        res.append({"key": o.key, "units": o.units, "instance": i, "value": float(v[i]), "source": o.source})
    res.sort(key=lambda r: (r["units"] != "N", -r["value"]))
    return res


def _frame_indices(n: int, per_frame: int, max_frames: int, max_values: int) -> np.ndarray:
    """Every stride-th of n frames (the first kept, the last appended), so that at most
    max_frames frames and max_values numbers (per_frame per frame) are sent."""
    stride = max(1, math.ceil(n / max(1, max_frames)), math.ceil(n * per_frame / max(1, max_values)))
    idx = np.arange(0, n, stride)
    if n and idx[-1] != n - 1 and len(idx) < max_frames:
        idx = np.append(idx, n - 1)
    return idx


def _read_reactions(f: h5py.File, instance: int, idx: np.ndarray, joints: List[Dict[str, Any]],
                    joint_names: List[str], n_inst: int, notes: List[str]) -> Optional[Dict[str, Any]]:
    """The force each drawn joint applies to its body_j [N] (world frame; README "Output
    (HDF5)": /reactions [T, I, J, 6], force then torque) at the frames `idx` of `instance`,
    in the order of `joints`: {"forces": base64 float32 [frame][joint][fx fy fz] (NaN
    where the file has none), "max" and "p95": the largest finite |f| over those frames
    and joints and its 95th percentile (the arrows' scale: a start-up peak does not
    shrink every other arrow), "units"};
    None with a note when the file has no /reactions."""
    ds = f.get("reactions")
    if ds is None or ds.ndim != 4 or ds.shape[1] != n_inst or ds.shape[3] < 3 or ds.shape[0] <= int(idx[-1]):
        notes.append("no joint reaction forces: the file has no /reactions (output.datasets left it out?)")
        return None
    column = {name: k for k, name in enumerate(joint_names)} if joint_names else {}
    out = np.full((len(idx), len(joints), 3), np.nan, dtype=np.float64)
    block = 256
    for s in range(0, len(idx), block):
        sel = idx[s:s + block]
        raw = np.asarray(ds[int(sel[0]):int(sel[-1]) + 1, instance, :, :3], dtype=np.float64)[sel - sel[0]]
        for k, j in enumerate(joints):
            c = column.get(j["name"])
            if c is not None and c < raw.shape[1]:
                out[s:s + len(sel), k] = raw[:, c]
    norms = np.linalg.norm(out, axis=2)
    finite = norms[np.isfinite(norms)]
    if not finite.size:
        notes.append("no joint reaction forces: /reactions holds no finite force of the drawn joints")
        return None
    return {"forces": base64.b64encode(np.ascontiguousarray(out, dtype="<f4").tobytes()).decode("ascii"),
            "layout": "float32 little-endian, [frame][joint][fx fy fz], the force each joint applies to its body_j, "
                      "world frame", "max": float(finite.max()), "p95": float(np.percentile(finite, 95)),
            "units": "N"}


def _read_states(ds: h5py.Dataset, instance: int, idx: np.ndarray) -> np.ndarray:
    """(F, B, 13): the recorded body states of `instance` at the frames `idx` (ascending),
    read in blocks of consecutive frames."""
    out = np.empty((len(idx), ds.shape[2], 13), dtype=np.float64)
    block = 256
    for s in range(0, len(idx), block):
        sel = idx[s:s + block]
        out[s:s + len(sel)] = np.asarray(ds[int(sel[0]):int(sel[-1]) + 1, instance], dtype=np.float64)[sel - sel[0]]
    return out


def _poses(states: np.ndarray) -> np.ndarray:
    """(F, B, 7): r then the quaternion x y z w of states (F, B, 13) (w x y z there)."""
    return np.concatenate([states[..., 0:3], states[..., 4:7], states[..., 3:4]], axis=-1)


def _scene_path(path: str, scene_file: str, mesh_root: Optional[str]) -> str:
    """Where the scene file the run read is now, for the stored scene's relative files (a
    robot's URDF, visual meshes): in mesh_root when given (a service job's folder); a
    relative scene_file (as given to `simphant run`, relative to its working directory)
    beside the results file when it is there, else from this process's directory."""
    if mesh_root:
        return os.path.join(os.path.abspath(mesh_root), os.path.basename(scene_file))
    if not os.path.isabs(scene_file):
        beside = os.path.join(os.path.dirname(os.path.abspath(path)), scene_file)
        if os.path.exists(beside):
            return beside
    return os.path.abspath(scene_file)


def replay_data(path: str, instance: Optional[int] = None, pick: str = "index", load: Optional[str] = None,
                max_frames: int = MAX_FRAMES, max_values: int = MAX_VALUES,
                mesh_root: Optional[str] = None) -> Dict[str, Any]:
    """The replay of one instance of the run file `path` (see the module docstring).

    instance: index 0..I-1 (pick="index"; default 0); pick="peak": the ok instance with
    the largest peak of the load `load` (a key of peak_loads(); default the first: the
    largest force). mesh_root: the folder that relative mesh files of `visual` shapes and
    the robot's URDF are resolved in (default the folder of the root attribute
    scene_file); mesh files outside it are not served (mesh_path). Raises ReplayError."""
    with open_run(path) as f:
        attrs = {k: _text(v) for k, v in f.attrs.items()}
        if "state" not in f or "time" not in f or f["state"].ndim != 4 or f["state"].shape[0] == 0:
            raise ReplayError(f"{path}: no recorded /state frames to replay (output.datasets left out state?)")
        n_frames, n_inst, n_bodies = f["state"].shape[:3]
        n_frames = min(n_frames, f["time"].shape[0])
        picked: Dict[str, Any] = {"mode": pick}
        loads: List[Dict[str, Any]] = []
        if pick == "peak":
            loads = peak_loads(path)
            if not loads:
                raise ReplayError(f"{path}: no peak loads to pick by (no /reductions, /reactions, /bearing_loads "
                                  f"or /driver_loads of an ok instance)")
            chosen = loads[0] if load is None else next((x for x in loads if x["key"] == load), None)
            if chosen is None:
                raise ReplayError(f"load {load!r}: not a peak load of {os.path.basename(path)} "
                                  f"(one of {', '.join(x['key'] for x in loads)})")
            instance = chosen["instance"]
            picked.update(load=chosen["key"], value=chosen["value"], units=chosen["units"])
        elif pick != "index":
            raise ReplayError(f"pick {pick!r}: must be index or peak")
        instance = 0 if instance is None else int(instance)
        if not 0 <= instance < n_inst:
            raise ReplayError(f"instance {instance}: out of range (the file has {n_inst} instances, 0..{n_inst - 1})")
        scene_text = attrs.get("scene", "{}")
        try:
            scene = json.loads(scene_text)
        except ValueError:
            scene = {}
        scene_file = _scene_path(path, attrs.get("scene_file", "") or path, mesh_root)
        root = os.path.dirname(scene_file)
        notes: List[str] = []
        cs = contact_scene(scene_text, scene_file, notes)
        per_frame = n_bodies * 7 + (len(cs.pairs) * NUMBERS_PER_PAIR if cs else 0)
        idx = _frame_indices(n_frames, per_frame, max_frames, max_values)
        time = np.asarray(f["time"][:n_frames], dtype=np.float64)[idx]
        states = _read_states(f["state"], instance, idx)
        poses = _poses(states)
        params = {name: float(ds[instance]) for name, ds in f["params"].items()} if "params" in f else {}
        status = int(f["status"][instance])
        reason = int(f["status_reason"][instance]) if "status_reason" in f else 0
        status_time = float(f["status_time"][instance]) if "status_time" in f else float("nan")
        body_names = list(attrs.get("body_names", [f"body{b}" for b in range(n_bodies)]))
        bodies, joints, meshes, more, ground = scene_geometry(scene, body_names, root, params, poses[0])
        notes += more
        reactions = _read_reactions(f, instance, idx, joints, list(attrs.get("joint_names", [])), n_inst, notes)
        contacts = replay_contacts(cs, params, states, notes) if cs else None
    poses32 = np.ascontiguousarray(poses, dtype="<f4")
    return strict_json({
        "file": os.path.basename(path),
        "scene_name": scene.get("name", ""),
        "instance": instance, "instances": int(n_inst), "pick": picked, "loads": loads,
        "status": status, "status_reason": reason, "status_time": status_time if math.isfinite(status_time) else None,
        "params": params,
        "frames_recorded": int(n_frames), "frame_stride": int(idx[1] - idx[0]) if len(idx) > 1 else 1,
        "frame_index": idx.tolist(), "time": time.tolist(),
        "n_bodies": int(n_bodies), "poses": base64.b64encode(poses32.tobytes()).decode("ascii"),
        "pose_layout": "float32 little-endian, [frame][body][x y z qx qy qz qw]",
        "bodies": bodies, "ground": ground, "joints": joints, "meshes": [os.path.basename(m) for m in meshes],
        "reactions": reactions, "contacts": contacts,
        "gravity": scene.get("gravity", scene.get("robot", {}).get("gravity", [0, 0, 0])),
        "notes": notes,
    })


def scene_geometry(scene: Dict[str, Any], body_names: List[str], root: str,
                   params: Optional[Dict[str, float]] = None, pose0: Optional[np.ndarray] = None):
    """(bodies, joints, meshes, notes, ground) of a scene for the bodies of /state
    (`body_names`): the instance's sampled sweep values `params` applied first; mesh files
    resolved in `root` (the k-th file of `meshes` is mesh k of the shapes); ground: shapes
    fixed in the world frame (a robot's root link and the links fixed to it). pose0: the
    bodies' poses (B, 7: r, quaternion x y z w) of the first frame shown, which place the
    joints that an inertia ellipsoid must leave in view (default: the scene's initial
    configuration)."""
    scene, notes = geo.apply_sweep_values(scene, params or {})
    if "robot" in scene:
        from .replay_urdf import robot_geometry

        bodies, joints, more = robot_geometry(scene, body_names, root)
    else:
        bodies, more = geo.scene_bodies(scene, body_names)
        joints = geo.joint_anchors(scene, {b: k for k, b in enumerate(body_names)})
    notes += more
    meshes = _index_meshes(bodies, root, notes)
    ground = [b for b in bodies if b.get("ground")]
    bodies = [b for b in bodies if not b.get("ground")]
    _fit_inertia_shapes(scene, body_names, bodies, joints, pose0)
    return bodies, joints, meshes, notes, (ground[0]["shapes"] if ground else [])


def _fit_inertia_shapes(scene: Dict[str, Any], body_names: List[str], bodies: List[Dict[str, Any]],
                        joints: List[Dict[str, Any]], pose0: Optional[np.ndarray]) -> None:
    """Scales each inertia ellipsoid to leave the joints in view (replay_geometry.fit_inertia_shape):
    its own joints' anchors, and every joint of the mechanism at the poses pose0 (else at
    the scene's initial configuration) in its frame."""
    if "robot" in scene:  # a link's joint marker: its link frame's origin
        anchors: Dict[int, List[Any]] = {}
        for j in joints:
            anchors.setdefault(j["body"], []).append(j["anchor"])
    else:
        anchors = geo.anchors_by_body(scene, {b: k for k, b in enumerate(body_names)})
    n = len(bodies)
    if pose0 is not None and len(pose0) >= n and np.isfinite(pose0[:n]).all():
        quat = [[float(p[6]), float(p[3]), float(p[4]), float(p[5])] for p in pose0[:n]]  # [w x y z]
        world = [pose0[k, :3] + geo.quat_rotate(quat[k], u) for k, us in anchors.items() if 0 <= k < n for u in us]

        def others(k: int) -> List[Any]:
            qc = [quat[k][0], -quat[k][1], -quat[k][2], -quat[k][3]]
            return [geo.quat_rotate(qc, w - pose0[k, :3]) for w in world]
    else:
        world = [] if "robot" in scene else geo.joint_points_world(scene)
        by_name = {b.get("name"): b for b in scene.get("bodies", []) if isinstance(b, dict)}

        def others(k: int) -> List[Any]:
            sb = by_name.get(bodies[k]["name"])
            return geo.in_body_frame(sb, world) if sb is not None and "position" in sb else []
    for k, b in enumerate(bodies):
        if b["source"] == "inertia" and b["shapes"] and b["shapes"][0]["type"] == "ellipsoid":
            geo.fit_inertia_shape(b, anchors.get(k, []), others(k))


def mesh_files(path: str, mesh_root: Optional[str] = None) -> List[str]:
    """The mesh files a replay of `path` draws (index k: GET .../mesh/k), resolved as
    replay_data resolves them. Raises ReplayError."""
    with open_run(path) as f:
        attrs = {k: _text(v) for k, v in f.attrs.items()}
        n_bodies = f["state"].shape[2] if "state" in f and f["state"].ndim == 4 else 0
    try:
        scene = json.loads(attrs.get("scene", "{}"))
    except ValueError:
        return []
    body_names = list(attrs.get("body_names", [f"body{b}" for b in range(n_bodies)]))
    root = mesh_root or os.path.dirname(os.path.abspath(attrs.get("scene_file", path) or path))
    return scene_geometry(scene, body_names, root)[2]


def strict_json(obj: Any) -> Any:
    """`obj` with every non-finite float (NaN, inf: e.g. a URDF's values) as None, so that
    it is strict JSON (the poses, in base64, may hold NaN: a diverged instance's frames)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: strict_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [strict_json(v) for v in obj]
    return obj


def decode_poses(data: Dict[str, Any]) -> np.ndarray:
    """The (F, B, 7) float32 poses of a replay_data dict."""
    raw = base64.b64decode(data["poses"])
    return np.frombuffer(raw, dtype="<f4").reshape(len(data["time"]), data["n_bodies"], 7)


def _index_meshes(bodies: List[Dict[str, Any]], root: str, notes: List[str]) -> List[str]:
    """Numbers every mesh shape (shape["mesh"] = k, the k of GET .../mesh/k) and returns the
    list of resolved files; a shape whose file is missing or not STL is dropped with a note."""
    files: List[str] = []
    for b in bodies:
        keep = []
        for s in b["shapes"]:
            if s["type"] != "mesh":
                keep.append(s)
                continue
            p = s["file"] if os.path.isabs(s["file"]) else os.path.join(root, s["file"])
            p = os.path.realpath(p)
            if not p.lower().endswith(".stl"):
                notes.append(f"body {b['name']}: mesh {s['file']}: only STL meshes are drawn")
            elif not os.path.isfile(p):
                notes.append(f"body {b['name']}: mesh {s['file']}: no such file")
            else:
                if p not in files:
                    files.append(p)
                s["mesh"] = files.index(p)
                s["file"] = os.path.basename(p)  # the folders of the server stay private
                keep.append(s)
        if b["shapes"] and not keep and b.get("mass"):
            keep = [geo.inertia_ellipsoid(b["mass"], b["inertia"])]
            b["source"] = "inertia"
        b["shapes"] = keep
        b.pop("mass", None)
        b.pop("inertia", None)
    return files


def mesh_path(meshes: List[str], k: int, allowed_roots: Optional[List[str]] = None) -> str:
    """File k of `meshes` (mesh_files()); ReplayError when k is out of range or, with
    allowed_roots, the file lies outside each of those folders (after resolving links)."""
    if not 0 <= k < len(meshes):
        raise ReplayError(f"mesh {k}: no such mesh in this replay ({len(meshes)} meshes)")
    p = os.path.realpath(meshes[k])
    if allowed_roots is not None:
        roots = [os.path.realpath(r) for r in allowed_roots if r]
        if not any(os.path.commonpath([r, p]) == r for r in roots):
            raise ReplayError(f"mesh {k}: outside the job folder")
    return p
