"""MJCF import (src/simphant/mjcf/, docs/mjcf.md) against MuJoCo itself, on Gymnasium's
inverted_pendulum.xml and inverted_double_pendulum.xml (shipped with the package in python/simphant/gym/assets/,
MIT): per body mass, CoM and inertia against the compiled mjModel; the joint-space mass
matrix (mj_fullM) and bias forces (mj_rne) through simphant.Robot at 20 random states;
and 1 s trajectories of the scene {"robot": {"mjcf": ...}} with solver aba (rk4, the file's
timestep) and dae (rk4, converging to it as dt^4) against MuJoCo's RK4 from 20 random
states (limits off in both, damping on in both)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import ROOT, require
from mujoco_compare import joint_space_differences, rel

mujoco = require("mujoco", "the MJCF cross-check against MuJoCo")

import simphant  # noqa: E402

FILES = ["inverted_pendulum", "inverted_double_pendulum"]
STATES = 20


def path_of(name):
    return str(ROOT / "python" / "simphant" / "gym" / "assets" / f"{name}.xml")


def scene_of(name, solver="aba", dt=0.01, t_end=0.01, **robot):
    return {"name": name, "robot": {"mjcf": path_of(name), **robot},
            "solver": {"type": solver, "dt": dt, "t_end": t_end, "integrator": "rk4"}}


def random_states(m, seed):
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1.0, 1.0, (STATES, m.nq))
    qd = rng.uniform(-1.0, 1.0, (STATES, m.nv))
    return q, qd


def quat_mat(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


@pytest.mark.parametrize("name", FILES)
def test_mass_properties_match_mujoco(name):
    """Every moving body: mass, CoM and inertia about the CoM in the body frame (the link
    frame: the joints sit at pos 0) as MuJoCo's compiler infers them from the geoms."""
    m = mujoco.MjModel.from_xml_path(path_of(name))
    robot = simphant.Robot(scene_of(name))
    assert robot.links == [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(1, m.nbody)]
    # The link frames at q = 0 are MuJoCo's body frames at qpos0 (= ref = 0 here).
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    fk = robot.forward_kinematics(np.zeros(robot.nq))
    assert np.max(np.abs(fk[:, :3] - d.xpos[1:])) < 1e-14
    ours = simphant._simphant.mjcf_model(path_of(name))
    assert [link["name"] for link in ours["links"]] == robot.links
    assert np.allclose(ours["gravity"], m.opt.gravity, rtol=0, atol=0)
    assert ours["timestep"] == m.opt.timestep and ours["integrator"] == "RK4"
    worst = 0.0
    for b in range(1, m.nbody):
        R = quat_mat(m.body_iquat[b])
        inertia = R @ np.diag(m.body_inertia[b]) @ R.T
        link = ours["links"][b - 1]
        assert np.all(m.jnt_pos[b - 1] == 0)  # link frame = body frame
        worst = max(worst, abs(link["mass"] - m.body_mass[b]) / m.body_mass[b],
                    rel(link["com"], m.body_ipos[b]), rel(np.array(link["inertia"]), inertia))
        assert link["damping"] == m.dof_damping[b - 1]
        assert link["limited"] == bool(m.jnt_limited[b - 1])
        if link["limited"]:
            assert np.allclose([link["lower"], link["upper"]], m.jnt_range[b - 1], rtol=1e-15, atol=0)
    act = ours["actuators"]
    assert [a["joint"] for a in act] == [mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, m.actuator_trnid[i, 0])
                                         for i in range(m.nu)]
    assert [a["gear"] for a in act] == list(m.actuator_gear[:, 0])
    assert [a["ctrlrange"] for a in act] == [tuple(r) for r in m.actuator_ctrlrange]
    print(f"{name}: mass properties, worst relative difference {worst:.2e}")
    assert worst < 1e-12


@pytest.mark.parametrize("name", FILES)
def test_mass_matrix_and_bias_match_mujoco(name):
    """M(q) against mj_fullM and the bias forces C(q, qd) qd + g(q) against mj_rne
    (flg_acc = 0), and M qdd + bias with a random qdd (flg_acc = 1), at 20 random states."""
    m = mujoco.MjModel.from_xml_path(path_of(name))
    assert np.all(m.dof_armature == 0)
    robot = simphant.Robot(scene_of(name))
    q, qd = random_states(m, 1)
    qdd = np.random.default_rng(2).uniform(-1.0, 1.0, (STATES, m.nv))
    worst_m, worst_b, worst_id = joint_space_differences(mujoco, m, robot, q + m.qpos0, qd, qdd)
    print(f"{name}: M {worst_m:.2e}, bias {worst_b:.2e}, inverse dynamics {worst_id:.2e}")
    assert worst_m < 1e-12 and worst_b < 1e-12 and worst_id < 1e-12


def mujoco_rollout(m, q0, qd0, steps):
    d = mujoco.MjData(m)
    d.qpos[:] = q0
    d.qvel[:] = qd0
    for _ in range(steps):
        mujoco.mj_step(m, d)
    return d.qpos.copy(), d.qvel.copy()


def rollout_difference(name, solver, divide, states):
    """max |q_simphant - qpos_mujoco| and max relative qd difference after 1 s from `states`
    random states, both integrators run with the file's timestep / divide."""
    m = mujoco.MjModel.from_xml_path(path_of(name))
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_LIMIT
    m.opt.timestep = m.opt.timestep / divide
    dt = float(m.opt.timestep)
    steps = int(round(1.0 / dt))
    q, qd = random_states(m, 3)
    revolute = np.array([m.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE for j in range(m.njnt)])
    worst_q = worst_qd = 0.0
    for i in range(states):
        scene = scene_of(name, solver, dt=dt, t_end=1.0, q0=q[i].tolist(), qd0=qd[i].tolist(),
                         urdf_dynamics={"limits": False})
        sim = simphant.Simulator(scene, instances=1, backend="cpu")
        sim.step(steps)
        assert abs(sim.time - steps * dt) < 1e-9
        q_s, qd_s, _ = sim.joint_state()
        q_m, qd_m = mujoco_rollout(m, q[i], qd[i], steps)
        dq = q_s[0] - q_m
        # dae reads a revolute angle back from the body poses, in (q0 - pi, q0 + pi]
        # (docs/robots.md, "Angle wrapping"): compare modulo 2 pi.
        dq[revolute] = (dq[revolute] + np.pi) % (2 * np.pi) - np.pi
        worst_q = max(worst_q, float(np.max(np.abs(dq))))
        worst_qd = max(worst_qd, rel(qd_s[0], qd_m))
    return worst_q, worst_qd


@pytest.mark.parametrize("name", FILES)
def test_aba_trajectory_matches_mujoco_rk4(name):
    """1 s from 20 random states: solver aba (joint coordinates, rk4) against MuJoCo's RK4
    with the file's timestep, joint limits disabled in both, joint damping on in both (no
    actuation: ctrl = 0, tau = 0). The same scheme on the same coordinates: rounding."""
    worst_q, worst_qd = rollout_difference(name, "aba", 1, STATES)
    print(f"{name} aba: after 1 s, max |q - qpos| {worst_q:.2e}, qd relative {worst_qd:.2e}")
    assert worst_q < 1e-8


#: Timestep divisor at which the dae's difference from MuJoCo is below 1e-8.
DAE_DIVIDE = {"inverted_pendulum": 16, "inverted_double_pendulum": 32}


@pytest.mark.parametrize("name", FILES)
def test_dae_trajectory_converges_to_mujoco_rk4(name):
    """Solver dae integrates the bodies' maximal coordinates with rk4: a different
    discretisation from RK4 in joint coordinates, so at the file's timestep the two differ
    by their truncation errors (measured 2.3e-5 rad, inverted pendulum, dt 0.02; 1.8e-3 rad,
    double pendulum, dt 0.01). The difference falls as dt^4 (a quarter of the step: / 256;
    a check that both converge to one solution, i.e. that the model is the same), and at a
    finer step it is below 1e-8."""
    coarse, _ = rollout_difference(name, "dae", 1, 5)
    quarter, _ = rollout_difference(name, "dae", 4, 5)
    print(f"{name} dae: dt {coarse:.2e}, dt / 4 {quarter:.2e} (ratio {coarse / quarter:.0f})")
    assert 100 < coarse / quarter < 600
    fine, fine_qd = rollout_difference(name, "dae", DAE_DIVIDE[name], STATES)
    print(f"{name} dae: dt / {DAE_DIVIDE[name]}: max |q - qpos| {fine:.2e}, qd relative {fine_qd:.2e}")
    assert fine < 1e-8


def test_scene_keys(tmp_path):
    """robot.mjcf: exactly one of urdf / mjcf (an error naming /robot), a path relative to
    the scene file, the file's gravity unless robot.gravity is given."""
    import json
    import shutil

    shutil.copy(path_of("inverted_double_pendulum"), tmp_path / "cartpole.xml")
    doc = scene_of("inverted_double_pendulum")
    doc["robot"]["mjcf"] = "cartpole.xml"
    (tmp_path / "scene.json").write_text(json.dumps(doc))
    robot = simphant.Robot(str(tmp_path / "scene.json"))
    assert robot.links == ["cart", "pole", "pole2"]
    q = np.array([0.0, 0.3, -0.2])
    g_file = robot.inverse_dynamics(q, np.zeros(3), np.zeros(3))
    doc["robot"]["gravity"] = [0.0, 0.0, -9.81]
    (tmp_path / "scene.json").write_text(json.dumps(doc))
    g_scene = simphant.Robot(str(tmp_path / "scene.json")).inverse_dynamics(q, np.zeros(3), np.zeros(3))
    # The file's gravity has 1e-5 m/s^2 along x: only the slider's force differs.
    assert abs((g_file[0] - g_scene[0]) - (-1e-5 * (10.47197551 + 2 * 4.19873858))) < 1e-9
    assert np.allclose(g_file[1:], g_scene[1:], rtol=1e-3)
    both = scene_of("inverted_pendulum")
    both["robot"]["urdf"] = "x.urdf"
    with pytest.raises(ValueError, match="/robot.*not both"):
        simphant.Robot(both)
    bad = scene_of("inverted_pendulum")
    bad["robot"]["mjcf"] = str(tmp_path / "missing.xml")
    with pytest.raises(ValueError, match="/robot/mjcf"):
        simphant.Robot(bad)


def test_solver_dt_defaults_to_the_file_timestep():
    """solver.dt absent: the MJCF file's <option timestep> (0.02 s, 0.01 s); given: the
    scene's; a URDF robot scene still requires it, naming /solver/dt."""
    for name, dt in (("inverted_pendulum", 0.02), ("inverted_double_pendulum", 0.01)):
        doc = scene_of(name)
        del doc["solver"]["dt"]
        doc["solver"]["t_end"] = 0.1
        sim = simphant.Simulator(doc, instances=1, backend="cpu")
        assert sim.dt == dt
        sim.step(5)
        assert sim.time == pytest.approx(5 * dt, rel=1e-15)
        doc["solver"]["dt"] = 0.005
        assert simphant.Simulator(doc, instances=1, backend="cpu").dt == 0.005
    urdf = {"robot": {"urdf": str(ROOT / "examples" / "arm7.urdf")},
            "solver": {"type": "aba", "t_end": 1.0}}
    with pytest.raises(ValueError, match="/solver/dt: required key is missing"):
        simphant.Simulator(urdf, instances=1, backend="cpu")


def test_check_names_the_mjcf_key(tmp_path, cli):
    """simphant check's step-size modes name the scene key of the file's values: a hinge's
    MJCF damping is /robot/mjcf, not /robot/urdf."""
    import json
    import subprocess

    from conftest import python_env

    doc = scene_of("inverted_double_pendulum")
    (tmp_path / "scene.json").write_text(json.dumps(doc))
    proc = subprocess.run([cli, "check", str(tmp_path / "scene.json"), "--json"], capture_output=True, text=True,
                          env=python_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    modes = json.loads(proc.stdout)["step_stability"]["modes"]
    damping = [m for m in modes if m["name"] == "joint 'hinge' (damping)"]
    assert damping and damping[0]["field"] == "/robot/mjcf", modes


#: A synthetic MJCF covering what the Gymnasium files do not: non-identity body frames
#: (euler in eulerseq zyx, xyaxes, axisangle, zaxis), joint pos offsets, a slide and a
#: hinge in one body, a welded body, an <inertial> with fullinertia, childclass, fromto
#: capsule / cylinder / box / ellipsoid, nonzero ref (hinge and slide), off-axis gravity.
SYNTHETIC = """<mujoco model="synthetic">
  <compiler angle="degree" eulerseq="zyx"/>
  <option gravity="0.3 -0.2 -9.81" timestep="0.01" integrator="RK4"/>
  <default>
    <joint damping="0.1"/>
    <geom density="800"/>
    <default class="light">
      <geom density="300"/>
      <joint axis="0 1 0"/>
    </default>
  </default>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="base" pos="0.1 0.2 0.3" euler="10 20 30">
      <joint name="slide0" type="slide" axis="1 0.2 0" pos="0.05 0 0"/>
      <joint name="hinge0" axis="0 0.3 1" pos="0 0.1 0" ref="20"/>
      <geom type="capsule" fromto="0 0 0 0.3 0.1 0.05" size="0.04"/>
      <geom type="box" fromto="0 0 0 0 0.05 0.2" size="0.05 0.03"/>
      <body name="welded" pos="0.2 0 0.1" xyaxes="0 1 0 -1 0 0.2">
        <geom type="cylinder" fromto="0 0 0 0.1 0.1 0" size="0.03"/>
        <body name="arm" pos="0.1 0.05 0" axisangle="1 1 0 40" childclass="light">
          <joint name="hinge1" pos="0.02 0 0.01" ref="-15" range="-80 80"/>
          <geom type="ellipsoid" fromto="0 0 0 0 0.25 0.02" size="0.04 0.02"/>
          <body name="tip" pos="0 0.25 0" zaxis="0.3 0.4 1">
            <joint name="slide1" type="slide" axis="0 0 1" pos="0.01 0 0" ref="0.05"/>
            <inertial pos="0.01 0.02 0.03" mass="0.5" fullinertia="0.01 0.02 0.015 0.001 -0.002 0.0005"/>
            <geom type="sphere" size="0.02"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_synthetic_frames_and_ref_match_mujoco(tmp_path):
    """The synthetic file above: M(q) against mj_fullM and the bias forces and inverse
    dynamics against mj_rne at 20 random states (qpos, qvel, qacc uniform in [-1, 1]),
    SimPhant's q = qpos - ref (MjcfModel::qpos_ref = MuJoCo's qpos0); the limits are
    MuJoCo's jnt_range - ref."""
    path = tmp_path / "synthetic.xml"
    path.write_text(SYNTHETIC)
    m = mujoco.MjModel.from_xml_path(str(path))
    assert m.nv == 4 and np.all(m.dof_armature == 0)
    ours = simphant._simphant.mjcf_model(str(path))
    assert [link["joint"] for link in ours["links"]] == ["slide0", "hinge0", "hinge1", "slide1"]
    ref = np.array([link["ref"] for link in ours["links"]])
    assert np.allclose(ref, m.qpos0, rtol=1e-15, atol=0)
    assert np.allclose(ref, [0.0, np.radians(20), np.radians(-15), 0.05], rtol=1e-15, atol=0)
    assert np.array_equal([link["limited"] for link in ours["links"]], m.jnt_limited.astype(bool))
    hinge1 = ours["links"][2]
    assert np.allclose([hinge1["lower"], hinge1["upper"]], m.jnt_range[2] - m.qpos0[2], rtol=1e-15, atol=1e-16)
    assert [link["damping"] for link in ours["links"]] == list(m.dof_damping)
    robot = simphant.Robot({"name": "synthetic", "robot": {"mjcf": str(path), "urdf_dynamics": {"limits": False}},
                            "solver": {"type": "aba", "dt": 0.01, "t_end": 0.01, "integrator": "rk4"}})
    assert robot.links == ["base/slide0", "base", "arm", "tip"]
    rng = np.random.default_rng(5)
    qpos = rng.uniform(-1.0, 1.0, (STATES, m.nq))
    qvel = rng.uniform(-1.0, 1.0, (STATES, m.nv))
    qacc = rng.uniform(-1.0, 1.0, (STATES, m.nv))
    worst_m, worst_b, worst_id = joint_space_differences(mujoco, m, robot, qpos, qvel, qacc)
    print(f"synthetic: M {worst_m:.2e}, bias {worst_b:.2e}, inverse dynamics {worst_id:.2e}")
    assert worst_m < 1e-12 and worst_b < 1e-12 and worst_id < 1e-12


FLOATING = """<mujoco model="box">
  <option timestep="0.005" integrator="RK4"/>
  <worldbody>
    <body name="box" pos="0.1 0.2 1.5" euler="0 0 90">
      <freejoint name="root"/>
      <geom type="box" size="0.1 0.2 0.3"/>
      <body name="lid" pos="0 0 0.3">
        <joint name="hinge" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 0 0.2 0" size="0.02"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_an_mjcf_file_is_a_scene(tmp_path, cli):
    """An MJCF file given where a scene is expected (docs/mjcf.md, "An MJCF file as the
    scene"): dt from <option timestep>, the free body at its XML pose, solver aba; simphant
    run on it writes its output, and an unsupported element is refused naming it (exit 2)."""
    import subprocess

    from conftest import python_env

    (tmp_path / "box.xml").write_text(FLOATING)
    sim = simphant.Simulator(str(tmp_path / "box.xml"), backend="cpu")
    assert sim.dt == 0.005
    assert sim.body_names == ["box", "lid"]
    base = np.asarray(sim.states())[0, 0, :7]
    assert np.allclose(base, [0.1, 0.2, 1.5, np.sqrt(0.5), 0, 0, np.sqrt(0.5)], atol=1e-12)
    proc = subprocess.run([cli, "run", path_of("inverted_double_pendulum"), "-o", str(tmp_path / "idp.h5")],
                          capture_output=True, text=True, env=python_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "idp.h5").is_file()
    (tmp_path / "bad.xml").write_text('<mujoco><worldbody><body><joint type="ball"/></body></worldbody></mujoco>')
    proc = subprocess.run([cli, "run", str(tmp_path / "bad.xml"), "-o", str(tmp_path / "bad.h5")],
                          capture_output=True, text=True, env=python_env(), timeout=120)
    assert proc.returncode == 2 and "attribute 'type': ball joints" in proc.stderr, proc.stderr
