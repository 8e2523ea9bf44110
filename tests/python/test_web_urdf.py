"""URDF visuals of robot scenes in the replay (simphant.serve.replay_urdf): shapes placed
in the body frame at the merged links' centre of mass, STL collision meshes in place of
other visual formats, joint markers at the link frames; checked by hand on a small URDF
and against Pinocchio's forward kinematics for the Franka Panda."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from conftest import require

h5py = pytest.importorskip("h5py")
require("fastapi")

from simphant.serve import replay, replay_geometry as geo  # noqa: E402
from simphant.serve.replay_urdf import resolve_mesh, resolve_urdf, rpy_matrix  # noqa: E402

from conftest import run_cli  # noqa: E402
from test_web_replay import stl_triangle  # noqa: E402

URDF = """<robot name="two">
  <material name="red"><color rgba="1 0 0 1"/></material>
  <link name="base"/>
  <link name="upper">
    <inertial><origin xyz="0 0 0.2"/><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0 0 0.2" rpy="0 0 0"/><geometry><box size="0.05 0.05 0.4"/></geometry><material name="red"/></visual>
  </link>
  <link name="tool">
    <inertial><origin xyz="0.1 0 0"/><mass value="1"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><sphere radius="0.03"/></geometry></visual>
  </link>
  <link name="lower">
    <inertial><origin xyz="0 0 0.15"/><mass value="1"/><inertia ixx="0.05" iyy="0.05" izz="0.005" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="package://two/meshes/lower.dae"/></geometry></visual>
    <collision><origin xyz="0 0 0.15"/><geometry><mesh filename="package://two/meshes/lower.stl" scale="0.001 0.001 0.001"/></geometry></collision>
  </link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
  <joint name="mount" type="fixed"><parent link="upper"/><child link="tool"/><origin xyz="0 0 0.4" rpy="0 0 1.5707963267948966"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/><origin xyz="0 0 0.4"/><axis xyz="0 2 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
</robot>
"""


def test_urdf_shapes_at_the_merged_centre_of_mass(tmp_path):
    (tmp_path / "two" / "urdf").mkdir(parents=True)
    (tmp_path / "two" / "meshes").mkdir()
    (tmp_path / "two" / "urdf" / "two.urdf").write_text(URDF)
    stl_triangle(tmp_path / "two" / "meshes" / "lower.stl")
    scene = {"robot": {"urdf": "two/urdf/two.urdf", "q0": [0, 0], "payload": {"link": "tool", "mass": 1.0,
                                                                               "com": [0, 0, 0.1]}},
             "solver": {"type": "aba", "dt": 0.001, "t_end": 0.01}}
    with h5py.File(tmp_path / "run.h5", "w") as f:
        f.attrs["scene"] = json.dumps(scene)
        f.attrs["scene_file"] = str(tmp_path / "scene.json")
        f.attrs["body_names"] = np.array(["upper", "lower"], dtype=h5py.string_dtype())
        f["time"] = [0.0, 0.1]
        st = np.zeros((2, 1, 2, 13))
        st[..., 3] = 1
        f["state"] = st
        f["status"] = np.zeros(1, np.int8)
    d = replay.replay_data(str(tmp_path / "run.h5"))
    upper, lower = d["bodies"]
    # upper merges tool (fixed at z 0.4, turned 90 deg about z: its CoM (0.1, 0, 0) lands at
    # (0, 0.1, 0.4)) and the payload (1 kg at tool (0, 0, 0.1) -> (0, 0, 0.5)):
    com = (2 * np.array([0, 0, 0.2]) + 1 * np.array([0, 0.1, 0.4]) + 1 * np.array([0, 0, 0.5])) / 4
    box, sphere = upper["shapes"]
    assert box["type"] == "box" and box["color"] == "#ff0000"
    np.testing.assert_allclose(box["origin"]["position"], np.array([0, 0, 0.2]) - com, atol=1e-15)
    np.testing.assert_allclose(sphere["origin"]["position"], np.array([0, 0, 0.4]) - com, atol=1e-15)
    np.testing.assert_allclose(sphere["origin"]["orientation"], [math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4)],
                               atol=1e-12)
    # lower: the .dae visual replaced by its STL collision mesh, scale kept
    (mesh,) = lower["shapes"]
    assert mesh["type"] == "mesh" and mesh["scale"] == [0.001] * 3 and d["meshes"] == ["lower.stl"]
    np.testing.assert_allclose(mesh["origin"]["position"], [0, 0, 0], atol=1e-15)  # collision origin = CoM
    assert any("lower: visual meshes not in STL; drawn from its 1 collision" in n for n in d["notes"])
    shoulder, elbow = d["joints"]
    assert shoulder["body"] == 0 and elbow["body"] == 1 and elbow["axis"] == [0, 1, 0]
    assert d["ground"] == []  # the base link has no visual
    np.testing.assert_allclose(shoulder["anchor"], -com, atol=1e-15)  # the link frame's origin in B
    np.testing.assert_allclose(elbow["anchor"], [0, 0, -0.15], atol=1e-15)


def _replay_of(tmp_path, urdf_text, body_names):
    (tmp_path / "r.urdf").write_text(urdf_text)
    scene = {"robot": {"urdf": "r.urdf", "floating_base": True}, "solver": {"type": "aba", "dt": 0.001, "t_end": 0.01}}
    n = len(body_names)
    with h5py.File(tmp_path / "run.h5", "w") as f:
        f.attrs["scene"] = json.dumps(scene)
        f.attrs["scene_file"] = str(tmp_path / "scene.json")
        f.attrs["body_names"] = np.array(body_names, dtype=h5py.string_dtype())
        f["time"] = [0.0]
        st = np.zeros((1, 1, n, 13))
        st[..., 3] = 1
        f["state"] = st
        f["status"] = np.zeros(1, np.int8)
    return replay.replay_data(str(tmp_path / "run.h5"))


def test_a_floating_base_is_a_body_not_ground(tmp_path):
    # Made floating from the root link: body 0 is the root "base" (with a visual), no ground.
    base_visual = '<link name="base"><inertial><mass value="3"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ' \
                  'ixz="0" iyz="0"/></inertial><visual><geometry><sphere radius="0.1"/></geometry></visual></link>'
    urdf = URDF.replace('<link name="base"/>', base_visual)
    d = _replay_of(tmp_path, urdf, ["base", "upper", "lower"])
    assert [b["name"] for b in d["bodies"]] == ["base", "upper", "lower"]
    assert d["bodies"][0]["shapes"][0]["type"] == "sphere" and d["ground"] == []
    assert [j["body"] for j in d["joints"]] == [1, 2]
    # A `floating` joint from a world link: the world's shapes are ground, the joint has no marker.
    world = '<link name="world"><visual><geometry><box size="1 1 0.01"/></geometry></visual></link>' \
            '<joint name="root" type="floating"><parent link="world"/><child link="base"/></joint>'
    d = _replay_of(tmp_path, urdf.replace("</robot>", world + "</robot>"), ["base", "upper", "lower"])
    assert [j["name"] for j in d["joints"]] == ["shoulder", "elbow"]
    assert len(d["ground"]) == 1 and d["ground"][0]["type"] == "box"


def test_rpy_is_fixed_axis_roll_pitch_yaw():
    r, p, y = 0.3, -0.7, 1.1
    rx = np.array([[1, 0, 0], [0, math.cos(r), -math.sin(r)], [0, math.sin(r), math.cos(r)]])
    ry = np.array([[math.cos(p), 0, math.sin(p)], [0, 1, 0], [-math.sin(p), 0, math.cos(p)]])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    np.testing.assert_allclose(rpy_matrix([r, p, y]), rz @ ry @ rx, atol=1e-15)
    q = geo.quat_from_matrix(rz @ ry @ rx)
    np.testing.assert_allclose([geo.quat_rotate(q, e) for e in np.eye(3)], (rz @ ry @ rx).T, atol=1e-15)


def test_missing_urdf_draws_points_with_a_note(tmp_path):
    scene = {"robot": {"urdf": "nowhere.urdf"}, "solver": {"dt": 0.001, "t_end": 0.01}}
    with h5py.File(tmp_path / "run.h5", "w") as f:
        f.attrs["scene"] = json.dumps(scene)
        f.attrs["body_names"] = np.array(["l1"], dtype=h5py.string_dtype())
        f["time"] = [0.0]
        st = np.zeros((1, 1, 1, 13))
        st[..., 3] = 1
        f["state"] = st
        f["status"] = np.zeros(1, np.int8)
    d = replay.replay_data(str(tmp_path / "run.h5"))
    assert d["bodies"][0]["shapes"] == [] and "not found" in d["notes"][0]


def test_panda_link_frames_equal_pinocchio_forward_kinematics(cli, tmp_path):
    """The link frame origin the replay draws (r + A(p) anchor, anchor = -CoM of the merged
    link with its payload) equals Pinocchio's frame placement at q0, for every link of the
    Panda (link7 carries link8, the hand and a 1 kg payload)."""
    pin = pytest.importorskip("pinocchio")
    urdf = resolve_urdf("example-robot-data:panda_description/urdf/panda.urdf", ".")
    if urdf is None:
        pytest.skip("example-robot-data is not installed")
    q0 = [0.0, -0.785398, 0.0, -2.356194, 0.0, 1.570796, 0.785398, 0.02, 0.02]
    scene = {"robot": {"urdf": "example-robot-data:panda_description/urdf/panda.urdf", "q0": q0,
                       "payload": {"link": "panda_link7", "mass": 1.0, "com": [0.0, 0.0, 0.2]},
                       "gravity": [0, 0, -9.81]},
             "solver": {"type": "aba", "dt": 0.001, "t_end": 0.002}}
    (tmp_path / "panda.json").write_text(json.dumps(scene))
    r = run_cli(cli, "run", str(tmp_path / "panda.json"), "--instances", "1", "--out", str(tmp_path / "p.h5"),
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = replay.replay_data(str(tmp_path / "p.h5"))
    model = pin.buildModelFromUrdf(urdf)
    data = model.createData()
    pin.forwardKinematics(model, data, np.array(q0))
    pin.updateFramePlacements(model, data)
    poses = replay.decode_poses(d)
    anchors = {j["body"]: j["anchor"] for j in d["joints"]}
    assert len(d["bodies"]) == 9 and sorted(anchors) == list(range(9))
    for k, b in enumerate(d["bodies"]):
        x = poses[0, k].astype(float)
        origin = x[:3] + geo.quat_rotate([x[6], x[3], x[4], x[5]], anchors[k])
        # float32 poses of positions below 1 m: 1e-7 m; the quaternion's 6e-8 on 0.2 m arms
        np.testing.assert_allclose(origin, data.oMf[model.getFrameId(b["name"])].translation, atol=2e-7,
                                   err_msg=b["name"])
        assert b["source"] == "urdf" and b["shapes"], b["name"]  # drawn from the STL collision meshes
    # the base link panda_link0, fixed to the world, drawn at its place
    assert [s["type"] for s in d["ground"]] == ["mesh"] and d["meshes"][d["ground"][0]["mesh"]] == "link0.stl"


def test_package_mesh_names_are_found_above_the_urdf(tmp_path):
    (tmp_path / "share" / "pkg" / "urdf").mkdir(parents=True)
    (tmp_path / "share" / "pkg" / "meshes").mkdir()
    stl_triangle(tmp_path / "share" / "pkg" / "meshes" / "m.stl")
    urdf_dir = str(tmp_path / "share" / "pkg" / "urdf")
    assert resolve_mesh("package://pkg/meshes/m.stl", urdf_dir) == str(tmp_path / "share" / "pkg" / "meshes" / "m.stl")
    assert resolve_mesh("package://other-name/meshes/m.stl", str(tmp_path / "share" / "pkg")) == \
        str(tmp_path / "share" / "pkg" / "meshes" / "m.stl")
    assert resolve_mesh("../meshes/m.stl", urdf_dir) == urdf_dir + "/../meshes/m.stl"
