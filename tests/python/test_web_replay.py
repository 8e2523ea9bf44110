"""The replay's data (simphant.serve.replay, docs/service.md "Web page and replay"):
poses equal the file's /state, inertia ellipsoids from the closed form of a solid
ellipsoid, joint anchors, decimation, instance picking, sweep values, errors."""
from __future__ import annotations

import json
import math
import struct

import numpy as np
import pytest

from conftest import require

h5py = pytest.importorskip("h5py")
require("fastapi")

from simphant.serve import replay, replay_geometry as geo  # noqa: E402

SCENE = {
    "gravity": [0, 0, -9.81],
    "bodies": [
        {"name": "a", "mass": 2.0, "inertia": [0.01, 0.02, 0.025], "position": [0.1, 0, 0],
         "orientation": [0.8, 0.6, 0, 0]},
        {"name": "b", "mass": 1.0, "inertia": [0.001, 0.004, 0.004], "position": [0.3, 0, 0.2],
         "visual": [{"type": "box", "size": [0.2, 0.02, 0.02], "color": "#112233"},
                    {"type": "cylinder", "radius": 0.01, "length": 0.1,
                     "origin": {"position": [0.1, 0, 0], "orientation": [0.7071068, 0, 0.7071068, 0]}}]},
    ],
    "joints": [
        {"name": "hinge", "type": "revolute", "body_i": "ground", "body_j": "a",
         "frame": {"origin": [0, 0, 0.05], "z": [0, 1, 0]}},
        {"name": "pin", "type": "revolute", "body_i": "a", "body_j": "b",
         "frame_i": {"origin": [0.1, 0, 0], "z": [0, 0, 1], "x": [1, 0, 0]},
         "frame_j": {"origin": [-0.1, 0, 0], "z": [0, 0, 2], "x": [1, 0, 0]}},
    ],
    "solver": {"dt": 0.001, "t_end": 1.0},
    "sweep": {"mode": "random", "instances": 3,
              "parameters": [{"path": "bodies.a.mass", "dist": "uniform", "low": 1, "high": 3}]},
}


def random_quaternions(rng, shape):
    q = rng.normal(size=shape + (4,))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def write_run(path, n_frames=40, n_inst=3, scene=SCENE, seed=1, reactions=True, state=True):
    """A file in the layout of README "Output (HDF5)" with random poses (what replay reads)."""
    rng = np.random.default_rng(seed)
    st = rng.normal(size=(n_frames, n_inst, 2, 13))
    st[..., 3:7] = random_quaternions(rng, (n_frames, n_inst, 2))
    with h5py.File(path, "w") as f:
        f.attrs["scene"] = json.dumps(scene)
        f.attrs["scene_file"] = str(path.parent / "scene.json")
        f.attrs["body_names"] = np.array(["a", "b"], dtype=h5py.string_dtype())
        f.attrs["joint_names"] = np.array(["hinge", "pin"], dtype=h5py.string_dtype())
        f["time"] = np.arange(n_frames) * 0.01
        if state:
            f["state"] = st
        f["status"] = np.zeros(n_inst, np.int8)
        f["status_time"] = np.zeros(n_inst)
        f["params/bodies.a.mass"] = np.linspace(1.0, 3.0, n_inst)
        if reactions:
            r = rng.normal(size=(n_frames, n_inst, 2, 6))
            r[17, min(1, n_inst - 1), 0, :3] = [300.0, 400.0, 0.0]  # instance 1 has the largest |f| (500 N) of joint hinge
            f["reactions"] = r
    return st


def test_poses_equal_the_file_states_in_threejs_order(tmp_path):
    st = write_run(tmp_path / "run.h5")
    for inst in range(3):
        d = replay.replay_data(str(tmp_path / "run.h5"), instance=inst)
        p = replay.decode_poses(d)
        assert p.shape == (40, 2, 7) and d["frame_index"] == list(range(40))
        # float32 of the file's float64: relative 2^-24
        np.testing.assert_allclose(p[..., :3], st[:, inst, :, 0:3], rtol=6e-8, atol=1e-7)
        np.testing.assert_allclose(p[..., 3:6], st[:, inst, :, 4:7], rtol=6e-8, atol=1e-7)  # x y z
        np.testing.assert_allclose(p[..., 6], st[:, inst, :, 3], rtol=6e-8, atol=1e-7)  # w last
        np.testing.assert_array_equal(d["time"], np.arange(40) * 0.01)
        assert d["instance"] == inst and d["instances"] == 3


def test_decimation_keeps_first_and_last_frame_and_the_limits(tmp_path):
    st = write_run(tmp_path / "run.h5", n_frames=1001, n_inst=1)
    d = replay.replay_data(str(tmp_path / "run.h5"), max_frames=100)
    assert d["frame_stride"] == 11 and d["frames_recorded"] == 1001
    idx = d["frame_index"]
    assert idx[0] == 0 and idx[-1] == 1000 and len(idx) <= 100
    assert all(b - a == 11 for a, b in zip(idx[:-2], idx[1:-1]))
    np.testing.assert_allclose(replay.decode_poses(d)[:, :, :3], st[idx, 0, :, :3], rtol=6e-8, atol=1e-7)
    # the bound on pose numbers: 1001 frames x 2 bodies x 7 numbers, at most 700 numbers
    d = replay.replay_data(str(tmp_path / "run.h5"), max_values=700)
    assert len(d["time"]) * 2 * 7 <= 700 + 14  # + the appended last frame


def semi_axes_shape_matrix(radii, quat):
    r = np.array([geo.quat_rotate(quat, e) for e in np.eye(3)]).T  # columns: the axes in B
    return r @ np.diag(np.square(radii)) @ r.T


@pytest.mark.parametrize("radii", [(0.3, 0.1, 0.05), (0.2, 0.2, 0.02), (0.1, 0.1, 0.1)])
def test_inertia_ellipsoid_inverts_the_solid_ellipsoid_closed_form(radii):
    rng = np.random.default_rng(7)
    m = 3.5
    a, b, c = radii
    j_principal = m / 5.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    q = random_quaternions(rng, ())
    rot = np.array([geo.quat_rotate(q, e) for e in np.eye(3)]).T
    j = rot @ j_principal @ rot.T
    six = [j[0, 0], j[1, 1], j[2, 2], j[0, 1], j[0, 2], j[1, 2]]
    e = geo.inertia_ellipsoid(m, six)
    assert sorted(e["radii"]) == pytest.approx(sorted(radii), rel=1e-9)
    # the same ellipsoid (axes and orientation), whatever order the eigen-solver gives
    np.testing.assert_allclose(semi_axes_shape_matrix(e["radii"], e["origin"]["orientation"]),
                               rot @ np.diag(np.square(radii)) @ rot.T, atol=1e-12)
    assert np.linalg.norm(e["origin"]["orientation"]) == pytest.approx(1.0, abs=1e-12)


def test_thin_rod_ellipsoid_has_no_nan():
    e = geo.inertia_ellipsoid(1.0, [0.0, 1.0, 1.0])  # J1 = 0: the triangle inequality holds with equality
    assert all(math.isfinite(r) for r in e["radii"]) and min(e["radii"]) == 0.0


def test_shapes_from_visual_else_the_inertia_ellipsoid_and_sweep_values(tmp_path):
    write_run(tmp_path / "run.h5")
    d = replay.replay_data(str(tmp_path / "run.h5"), instance=2)
    a, b = d["bodies"]
    assert a["source"] == "inertia" and b["source"] == "visual"
    assert [s["type"] for s in b["shapes"]] == ["box", "cylinder"]
    assert b["shapes"][0]["size"] == [0.2, 0.02, 0.02] and b["shapes"][0]["color"] == "#112233"
    assert b["shapes"][1]["origin"]["position"] == [0.1, 0.0, 0.0]
    # body a's ellipsoid from its sampled mass of instance 2 (3.0 kg), not the scene's 2 kg
    j1, j2, j3 = 0.01, 0.02, 0.025
    want = [math.sqrt(5 / (2 * 3.0) * (j2 + j3 - j1)), math.sqrt(5 / (2 * 3.0) * (j1 + j3 - j2)),
            math.sqrt(5 / (2 * 3.0) * (j1 + j2 - j3))]
    e = a["shapes"][0]
    assert sorted(e["inertia_radii"]) == pytest.approx(sorted(want), rel=1e-12)
    assert e["radii"] == pytest.approx([r * e["scale"] for r in e["inertia_radii"]], rel=1e-12)
    assert d["params"] == {"bodies.a.mass": 3.0}


def ellipsoidal_radius(shape, u):
    """sqrt(sum((p_k / a_k)^2)) of a point u of B for a drawn ellipsoid (p: u on its axes)."""
    r = np.column_stack([geo.quat_rotate(shape["origin"]["orientation"], c) for c in np.eye(3)])
    return float(np.sqrt(np.sum(np.square(r.T @ np.asarray(u) / np.asarray(shape["radii"])))))


def test_a_body_without_visual_leaves_its_joints_in_view(tmp_path):
    # a crank: a thin rod of 0.2 m between its two joints; its full inertia ellipsoid
    # (semi-axis 0.2 sqrt(5/12) = 0.129 m) would enclose both
    scene = json.loads(json.dumps(SCENE))
    scene["bodies"][0].update(inertia=[1e-6, 2.0 / 12 * 0.04, 2.0 / 12 * 0.04], orientation=[1, 0, 0, 0])
    scene["joints"][0]["frame"]["origin"] = [0, 0, 0]  # world form: u = (-0.1, 0, 0) on body a at (0.1, 0, 0)
    write_run(tmp_path / "run.h5", scene=scene)
    d = replay.replay_data(str(tmp_path / "run.h5"), instance=1)  # mass 2 kg
    a = d["bodies"][0]
    e, rods = a["shapes"][0], a["shapes"][1:]
    assert a["source"] == "inertia" and e["type"] == "ellipsoid" and 0 < e["opacity"] < 1
    assert max(e["inertia_radii"]) == pytest.approx(0.2 * math.sqrt(5 / 12), rel=1e-3)
    anchors = [d["joints"][0]["anchor"], [0.1, 0, 0]]  # the hinge (world form) and the pin's frame_i
    assert anchors[0] == pytest.approx([-0.1, 0, 0])
    for u in anchors:
        assert ellipsoidal_radius({**e, "radii": e["inertia_radii"]}, u) < 1  # inside the full ellipsoid
        assert ellipsoidal_radius(e, u) == pytest.approx(1 / geo.ELLIPSOID_REACH, rel=1e-6) or \
            ellipsoidal_radius(e, u) > 1 / geo.ELLIPSOID_REACH  # outside the drawn one, the nearest at 1 / 0.6
    # one rod from the centre of mass to each anchor, along it
    assert len(rods) == 2 and all(r["type"] == "cylinder" and r["role"] == "rod" for r in rods)
    for r, u in zip(rods, anchors):
        assert r["length"] == pytest.approx(np.linalg.norm(u))
        np.testing.assert_allclose(r["origin"]["position"], np.asarray(u) / 2, atol=1e-12)
        np.testing.assert_allclose(geo.quat_rotate(r["origin"]["orientation"], [0, 0, r["length"]]), u, atol=1e-12)
    # a body with visuals is drawn as given
    assert [s["type"] for s in d["bodies"][1]["shapes"]] == ["box", "cylinder"]


def test_reaction_forces_of_the_frames_shown_in_the_joints_order(tmp_path):
    st = write_run(tmp_path / "run.h5", n_frames=40)
    with h5py.File(tmp_path / "run.h5", "r") as f:
        want = np.asarray(f["reactions"][:, 1, :, :3])
    d = replay.replay_data(str(tmp_path / "run.h5"), instance=1, max_frames=10)
    r = d["reactions"]
    forces = np.frombuffer(__import__("base64").b64decode(r["forces"]), "<f4").reshape(len(d["time"]), 2, 3)
    np.testing.assert_allclose(forces, want[d["frame_index"]], rtol=1e-6, atol=1e-6)
    assert r["units"] == "N" and r["max"] == pytest.approx(np.linalg.norm(want[d["frame_index"]], axis=2).max(),
                                                          rel=1e-9)
    assert st.shape[0] == 40
    # the file's joint order is joint_names'; the replay's is the drawn joints'
    scene = json.loads(json.dumps(SCENE))
    scene["joints"] = scene["joints"][::-1]
    write_run(tmp_path / "swapped.h5", scene=scene)
    d2 = replay.replay_data(str(tmp_path / "swapped.h5"), instance=1)
    f2 = np.frombuffer(__import__("base64").b64decode(d2["reactions"]["forces"]), "<f4").reshape(-1, 2, 3)
    assert [j["name"] for j in d2["joints"]] == ["pin", "hinge"]
    np.testing.assert_allclose(f2[:, 0], want[d2["frame_index"], 1], rtol=1e-6, atol=1e-6)
    # no /reactions: none, with a note
    write_run(tmp_path / "none.h5", reactions=False)
    d3 = replay.replay_data(str(tmp_path / "none.h5"))
    assert d3["reactions"] is None and any("no /reactions" in n for n in d3["notes"])


def test_joint_anchors_ride_on_body_j_from_world_and_local_frames(tmp_path):
    write_run(tmp_path / "run.h5")
    d = replay.replay_data(str(tmp_path / "run.h5"))
    hinge, pin = d["joints"]
    # world form on body a: u = A^T (origin - r), A of q = (0.8, 0.6, 0, 0) (rotation about x)
    qa = [0.8, -0.6, 0, 0]
    np.testing.assert_allclose(hinge["anchor"], geo.quat_rotate(qa, np.array([0, 0, 0.05]) - [0.1, 0, 0]), atol=1e-15)
    np.testing.assert_allclose(hinge["axis"], geo.quat_rotate(qa, [0, 1, 0]), atol=1e-15)
    assert hinge["body"] == 0
    # the marker at the anchor is the frame's origin at the initial pose: A u + r = origin
    np.testing.assert_allclose(geo.quat_rotate([0.8, 0.6, 0, 0], hinge["anchor"]) + [0.1, 0, 0], [0, 0, 0.05],
                               atol=1e-15)
    assert pin["body"] == 1 and pin["anchor"] == [-0.1, 0, 0] and pin["axis"] == [0, 0, 1]


def test_pick_the_instance_with_the_largest_peak_load(tmp_path):
    write_run(tmp_path / "run.h5")
    d = replay.replay_data(str(tmp_path / "run.h5"), pick="peak", load="reactions/hinge/|f|")
    assert d["instance"] == 1
    assert d["pick"] == {"mode": "peak", "load": "reactions/hinge/|f|", "value": pytest.approx(500.0), "units": "N"}
    keys = [x["key"] for x in d["loads"]]
    assert {"reactions/hinge/|f|", "reactions/pin/|f|", "reactions/hinge/|tau|"} <= set(keys)
    first = replay.replay_data(str(tmp_path / "run.h5"), pick="peak")  # default: the largest force
    assert first["pick"]["load"] == "reactions/hinge/|f|" and first["instance"] == 1
    with pytest.raises(replay.ReplayError, match="load 'nope': not a peak load"):
        replay.replay_data(str(tmp_path / "run.h5"), pick="peak", load="nope")


def test_pick_by_peak_skips_failed_instances(tmp_path):
    write_run(tmp_path / "run.h5")
    with h5py.File(tmp_path / "run.h5", "a") as f:
        f["status"][1] = 2
    d = replay.replay_data(str(tmp_path / "run.h5"), pick="peak", load="reactions/hinge/|f|")
    assert d["instance"] != 1


def test_errors_name_the_file_and_the_reason(tmp_path):
    with pytest.raises(replay.ReplayError, match="no such file"):
        replay.replay_data(str(tmp_path / "missing.h5"))
    (tmp_path / "text.h5").write_text("not hdf5")
    with pytest.raises(replay.ReplayError, match="not an HDF5 file"):
        replay.replay_data(str(tmp_path / "text.h5"))
    with h5py.File(tmp_path / "other.h5", "w") as f:
        f["x"] = [1]
    with pytest.raises(replay.ReplayError, match="not a SimPhant results file"):
        replay.replay_data(str(tmp_path / "other.h5"))
    write_run(tmp_path / "nostate.h5", state=False)
    with pytest.raises(replay.ReplayError, match="no recorded /state frames"):
        replay.replay_data(str(tmp_path / "nostate.h5"))
    write_run(tmp_path / "run.h5")
    with pytest.raises(replay.ReplayError, match=r"instance 3: out of range \(the file has 3 instances"):
        replay.replay_data(str(tmp_path / "run.h5"), instance=3)


def stl_triangle(path):
    """A binary STL file of one triangle."""
    with open(path, "wb") as f:
        f.write(b"\0" * 80 + struct.pack("<I", 1) + struct.pack("<12f", 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0) + b"\0\0")


def test_mesh_shapes_are_numbered_and_missing_ones_fall_back(tmp_path):
    scene = json.loads(json.dumps(SCENE))
    scene["bodies"][0]["visual"] = {"type": "mesh", "file": "meshes/a.stl", "scale": 0.001}
    scene["bodies"][1]["visual"] = {"type": "mesh", "file": "meshes/missing.stl"}
    (tmp_path / "meshes").mkdir()
    stl_triangle(tmp_path / "meshes" / "a.stl")
    write_run(tmp_path / "run.h5", scene=scene)
    d = replay.replay_data(str(tmp_path / "run.h5"))
    a, b = d["bodies"]
    assert a["shapes"][0]["mesh"] == 0 and a["shapes"][0]["scale"] == [0.001] * 3
    assert d["meshes"] == ["a.stl"] and a["shapes"][0]["file"] == "a.stl"  # no server folders in the data
    assert b["source"] == "inertia" and b["shapes"][0]["type"] == "ellipsoid"
    assert any("missing.stl: no such file" in n for n in d["notes"])
    files = replay.mesh_files(str(tmp_path / "run.h5"))
    assert files == [str((tmp_path / "meshes" / "a.stl").resolve())]
    assert replay.mesh_path(files, 0, [str(tmp_path)]) == files[0]
    assert replay.mesh_path(files, 0, [str(tmp_path / "x"), str(tmp_path / "meshes")]) == files[0]
    with pytest.raises(replay.ReplayError, match="outside"):
        replay.mesh_path(files, 0, [str(tmp_path / "meshes" / "elsewhere")])
    with pytest.raises(replay.ReplayError, match="no such mesh"):
        replay.mesh_path(files, 1)


def test_a_diverged_instance_replays_as_strict_json(tmp_path):
    write_run(tmp_path / "run.h5")
    with h5py.File(tmp_path / "run.h5", "a") as f:
        f["state"][30:, 0] = np.nan  # frozen at non-finite values
        f["status"][0] = 2
        f["status_time"][0] = np.inf
        del f["params/bodies.a.mass"]
        f["params/bodies.a.mass"] = [np.nan, 2.0, 3.0]
    d = replay.replay_data(str(tmp_path / "run.h5"), instance=0)
    json.dumps(d, allow_nan=False)  # what the service answers (starlette refuses NaN)
    assert d["status"] == 2 and d["status_time"] is None and d["params"] == {"bodies.a.mass": None}
    p = replay.decode_poses(d)
    assert np.isnan(p[30:]).all() and np.isfinite(p[:30]).all()


def test_pick_by_peak_prefers_the_reductions_over_time(tmp_path):
    """/reductions/reactions (every step, docs/report.md "Peak loads") wins over the
    recorded frames: here it names instance 2, the frames instance 1."""
    write_run(tmp_path / "run.h5")
    with h5py.File(tmp_path / "run.h5", "a") as f:
        rmax = np.ones((3, 2, 8))
        rmax[2, 0, 6] = 900.0  # |f| of joint hinge, instance 2
        g = f.create_group("reductions/reactions")
        g["max"] = rmax
        g["min"] = -np.ones((3, 2, 8))
        g.attrs["components"] = np.array(["f_x", "f_y", "f_z", "tau_x", "tau_y", "tau_z", "|f|", "|tau|"],
                                         dtype=h5py.string_dtype())
    d = replay.replay_data(str(tmp_path / "run.h5"), pick="peak", load="reactions/hinge/|f|")
    assert d["instance"] == 2 and d["pick"]["value"] == 900.0
    assert next(x for x in d["loads"] if x["key"] == "reactions/hinge/|f|")["source"].startswith("/reductions")


def test_an_ellipsoid_with_its_joints_at_the_centre_clears_the_neighbouring_joints():
    # a slider's joints at its centre of mass (a ram): the neighbours' joints bound it
    body = {"name": "ram", "shapes": [geo.inertia_ellipsoid(1.0, [0.02, 0.02, 0.02])], "source": "inertia"}
    full = body["shapes"][0]["radii"][0]  # a sphere of radius sqrt(5 / 2 * 0.02) = 0.224 m
    geo.fit_inertia_shape(body, [[0, 0, 0]], others=[[0, 0, 0.1], [0, 0, 0]])
    e = body["shapes"][0]
    assert e["scale"] == pytest.approx(geo.ELLIPSOID_REACH * 0.1 / full)
    assert max(e["radii"]) == pytest.approx(0.06)  # 60 % of the way to the neighbour's joint
    assert len(body["shapes"]) == 1  # no rod to a joint at the centre of mass
    # nothing near: drawn at full size, translucent
    body = {"name": "free", "shapes": [geo.inertia_ellipsoid(1.0, [0.02, 0.02, 0.02])], "source": "inertia"}
    geo.fit_inertia_shape(body, [], others=[[5, 0, 0]])
    assert body["shapes"][0]["scale"] == 1.0 and body["shapes"][0]["opacity"] < 1


def test_contacts_of_the_frames_shown_are_those_of_the_run(cli, tmp_path):
    """examples/ball_on_block.json run by the CLI (every step recorded, so the ball's
    impacts on the block are in the frames): the collision shapes as the scene gives them
    (the ground's plane, the block's box, the ball's sphere, in their bodies' frames); per
    frame shown and pair, the contact points' normal forces sum to the file's /contacts
    normal_force and their count is its count (float32 rounding), with the instance's own
    swept restitution (the impacts' damping depends on it); the points lie on the ball's
    surface, midway into the overlap."""
    from conftest import EXAMPLES, run_cli

    out = tmp_path / "bob.h5"
    r = run_cli(cli, "run", str(EXAMPLES / "ball_on_block.json"), "--instances", "3", "--t-end", "0.3",
                "--frames", "every", "--threads", "1", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = replay.replay_data(str(out), instance=2, max_frames=10000)
    c = d["contacts"]
    assert c["pairs"] == ["contact ground block[0]", "contact ground ball[0]", "contact block[0] ball[0]"]
    shapes = {(s["body"], s["shape"]["type"]): s["shape"] for s in c["shapes"]}
    assert set(shapes) == {(-1, "plane"), (0, "box"), (1, "sphere")}
    assert shapes[(0, "box")]["size"] == pytest.approx([0.2, 0.2, 0.1]) and shapes[(1, "sphere")]["radius"] == 0.05
    assert shapes[(1, "sphere")]["origin"]["position"] == [0, 0, 0]
    idx = np.asarray(d["frame_index"])
    pts = np.frombuffer(__import__("base64").b64decode(c["points"]), "<f4").reshape(len(idx), 3, 4, 7)
    with h5py.File(out, "r") as f:
        recorded = np.asarray(f["contacts"][:, 2])[idx]  # (F, P, 4)
        ball = np.asarray(f["state"][:, 2, 1, :3])[idx]
    fn = pts[..., 6].astype(np.float64)
    np.testing.assert_allclose(np.nansum(fn, axis=2), recorded[..., 0], rtol=1e-6, atol=1e-6 * c["max"])
    np.testing.assert_array_equal(np.isfinite(fn).sum(axis=2), recorded[..., 3])
    hits = np.flatnonzero(recorded[:, 2, 3] > 0)  # frames in which the ball presses on the block
    assert hits.size >= 3
    for k in hits:
        p = pts[k, 2, 0, :3].astype(np.float64)
        depth = recorded[k, 2, 2]
        assert abs(np.linalg.norm(p - ball[k]) - (0.05 - depth / 2)) < 1e-6


def test_contacts_of_a_robot_whose_urdf_lies_beside_its_scene(cli, tmp_path, monkeypatch):
    """A robot scene naming its URDF relative to the scene file (examples/arm7.urdf copied
    beside it), run in that folder and replayed from another working directory: the
    stored scene compiles against the run's folder, so the replay has the wrist's sphere
    and the ground plane."""
    import shutil

    from conftest import EXAMPLES, run_cli

    run_dir = tmp_path / "run"
    run_dir.mkdir()
    shutil.copy(EXAMPLES / "arm7.urdf", run_dir / "arm7.urdf")
    scene = json.loads((EXAMPLES / "arm7.json").read_text())
    scene["robot"]["collision"] = {"panda_link7": {"type": "sphere", "radius": 0.05}}
    scene["contact"] = {"ground": {"point": [0, 0, -0.5]},
                        "materials": {"default": {"stiffness": 1e4, "restitution": 0.5, "friction": 0.5}}}
    scene["solver"] = {"type": "aba", "dt": 0.001, "t_end": 0.05, "record_every": 10}
    (run_dir / "arm.json").write_text(json.dumps(scene))
    r = run_cli(cli, "run", "arm.json", "--threads", "1", "--out", "arm.h5", cwd=run_dir)
    assert r.returncode == 0, r.stderr
    monkeypatch.chdir(tmp_path)  # not the run's folder
    d = replay.replay_data(str(run_dir / "arm.h5"))
    assert d["contacts"] is not None, d["notes"]
    kinds = sorted(s["shape"]["type"] for s in d["contacts"]["shapes"])
    assert kinds == ["plane", "sphere"] and d["contacts"]["pairs"] == ["contact ground panda_link7[0]"]
