"""MJCF models with joint armature against MuJoCo on the same file: Gymnasium's reacher.xml
(shipped in python/simphant/gym/assets/) and MuJoCo Menagerie's Franka Panda
(panda_nohand.xml) and UR5e (ur5e.xml), copied unchanged to tests/data/mjcf/menagerie/.

MuJoCo is given the Menagerie files without their mesh geoms and mesh assets (the meshes
are not copied; every body has an <inertial>, so the meshes add no mass and MuJoCo's
compiled masses are those of the full file). SimPhant imports the unchanged files.

Checked per model, at 20 random states (qpos, qvel, qacc uniform in [-1, 1]):
- per link mass, CoM and inertia against the compiled mjModel (welded bodies merged as
  the importer merges them), joint armature and damping;
- M(q) against mj_fullM (which holds the armature), the bias forces against mj_rne, and
  the inverse dynamics M qdd + bias against mj_rne (flg_acc = 1) plus armature * qacc
  (MuJoCo adds the armature in mj_crb, not in mj_rne);
- 1 s trajectories of solver aba (rk4) against MuJoCo's RK4 at one timestep, limits,
  contact and actuation disabled in both (MuJoCo's position actuators act at ctrl = 0; SimPhant
  records the actuators and applies none), damping and armature on in both.
Solver dae has no rotor inertia on a joint coordinate: a model with armature is refused
there, naming the joint (docs/robots.md, "Armature").
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from conftest import ROOT, require
from mujoco_compare import joint_space_differences, rel

mujoco = require("mujoco", "the MJCF cross-check against MuJoCo")

import simphant  # noqa: E402

STATES = 20
#: MuJoCo's joint limits and contacts off: SimPhant's limit law differs (a penalty spring),
#: and the arms' collision geoms touch when they fold (SimPhant has no contact).
OFF = mujoco.mjtDisableBit.mjDSBL_LIMIT | mujoco.mjtDisableBit.mjDSBL_CONTACT
MENAGERIE = ROOT / "tests" / "data" / "mjcf" / "menagerie"
#: name -> (file, RK4 timestep of the trajectory check [s]): each file's own timestep
#: (Menagerie's arms: MuJoCo's default 0.002 s).
MODELS = {
    "reacher": (ROOT / "python" / "simphant" / "gym" / "assets" / "reacher.xml", 0.01),
    "panda_nohand": (MENAGERIE / "panda_nohand.xml", 0.002),
    "ur5e": (MENAGERIE / "ur5e.xml", 0.002),
}


def mujoco_model(name):
    """MuJoCo's model of the file, without mesh geoms and mesh assets."""
    path, _ = MODELS[name]
    root = ET.parse(path).getroot()
    for parent in list(root.iter()):
        for child in list(parent):
            if child.tag == "mesh" or (child.tag == "geom" and (child.get("mesh") or child.get("type") == "mesh")):
                parent.remove(child)
    # mesh-typed defaults would still be applied to geoms of those classes: none remain
    return mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))


def scene_of(name, solver="aba", dt=None, t_end=None, **robot):
    path, dt_check = MODELS[name]
    dt = dt_check if dt is None else dt
    t_end = dt if t_end is None else t_end
    return {"name": name, "robot": {"mjcf": str(path), **robot},
            "solver": {"type": solver, "dt": dt, "t_end": t_end, "integrator": "rk4"}}


def composite(m, d, b):
    """Mass, CoM and inertia about the CoM of MuJoCo body b with every descendant body
    welded to it (no joint), in b's frame at qpos0."""
    members = [b] + [c for c in range(b + 1, m.nbody)
                     if m.body_jntnum[c] == 0 and _welded_to(m, c) == b]
    mass = sum(m.body_mass[c] for c in members)
    R_b, p_b = d.xmat[b].reshape(3, 3), d.xpos[b]
    com_w = sum(m.body_mass[c] * d.xipos[c] for c in members) / mass
    inertia_w = np.zeros((3, 3))
    for c in members:
        R = d.ximat[c].reshape(3, 3)
        r = d.xipos[c] - com_w
        inertia_w += R @ np.diag(m.body_inertia[c]) @ R.T + m.body_mass[c] * (r @ r * np.eye(3) - np.outer(r, r))
    return mass, R_b.T @ (com_w - p_b), R_b.T @ inertia_w @ R_b


def _welded_to(m, c):
    while m.body_jntnum[c] == 0 and c != 0:
        c = m.body_parentid[c]
    return c


@pytest.mark.parametrize("name", list(MODELS))
def test_mass_properties_armature_damping_match_mujoco(name):
    m = mujoco_model(name)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)  # qpos0: SimPhant's q = 0
    ours = simphant._simphant.mjcf_model(str(MODELS[name][0]))
    links = ours["links"]
    assert len(links) == m.nv == m.njnt
    worst = 0.0
    for j, link in enumerate(links):
        assert link["joint"] == mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        assert link["armature"] == m.dof_armature[j] and link["damping"] == m.dof_damping[j]
        assert np.all(m.jnt_pos[j] == 0)  # the link frame is the body frame
        b = m.jnt_bodyid[j]
        if "/" in link["name"]:  # a body's earlier joints: massless links
            assert link["mass"] == 0
            continue
        assert link["name"] == mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        mass, com, inertia = composite(m, d, b)
        worst = max(worst, abs(link["mass"] - mass) / mass, rel(link["com"], com), rel(np.array(link["inertia"]), inertia))
    print(f"{name}: mass properties, worst relative difference {worst:.2e}; armature {list(m.dof_armature)}")
    assert worst < 1e-12


@pytest.mark.parametrize("name", list(MODELS))
def test_mass_matrix_bias_inverse_dynamics_match_mujoco(name):
    m = mujoco_model(name)
    assert np.any(m.dof_armature > 0)
    robot = simphant.Robot(scene_of(name))
    rng = np.random.default_rng(11)
    qpos = m.qpos0 + rng.uniform(-1.0, 1.0, (STATES, m.nq))
    qvel = rng.uniform(-1.0, 1.0, (STATES, m.nv))
    qacc = rng.uniform(-1.0, 1.0, (STATES, m.nv))
    worst_m, worst_b, worst_id = joint_space_differences(mujoco, m, robot, qpos, qvel, qacc)
    print(f"{name}: M {worst_m:.2e}, bias {worst_b:.2e}, inverse dynamics {worst_id:.2e}")
    assert worst_m < 1e-12 and worst_b < 1e-12 and worst_id < 1e-12


@pytest.mark.parametrize("name", list(MODELS))
def test_aba_trajectory_matches_mujoco_rk4(name):
    m = mujoco_model(name)
    _, dt = MODELS[name]
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= OFF | mujoco.mjtDisableBit.mjDSBL_ACTUATION
    m.opt.timestep = dt
    steps = int(round(1.0 / dt))
    rng = np.random.default_rng(3)
    qpos = m.qpos0 + rng.uniform(-1.0, 1.0, (STATES, m.nq))
    qvel = rng.uniform(-1.0, 1.0, (STATES, m.nv))
    q0 = qpos - m.qpos0
    worst_q = worst_qd = 0.0
    d = mujoco.MjData(m)
    for i in range(STATES):
        scene = scene_of(name, dt=dt, t_end=1.0, q0=q0[i].tolist(), qd0=qvel[i].tolist(),
                         urdf_dynamics={"limits": False})
        sim = simphant.Simulator(scene, instances=1, backend="cpu")
        sim.step(steps)
        q_s, qd_s, _ = sim.joint_state()
        mujoco.mj_resetData(m, d)
        d.qpos[:] = qpos[i]
        d.qvel[:] = qvel[i]
        for _ in range(steps):
            mujoco.mj_step(m, d)
        worst_q = max(worst_q, float(np.max(np.abs(q_s[0] + m.qpos0 - d.qpos))))
        worst_qd = max(worst_qd, rel(qd_s[0], d.qvel))
    print(f"{name} aba, dt {dt}: after 1 s, max |q + ref - qpos| {worst_q:.2e}, qd relative {worst_qd:.2e}")
    assert worst_q < 1e-8


@pytest.mark.parametrize("name", ["panda_nohand", "ur5e"])
def test_dae_refuses_armature_naming_the_joint(name):
    """(Reacher is refused by dae earlier: its target body's first slide joint is a massless link.)"""
    first = simphant._simphant.mjcf_model(str(MODELS[name][0]))["links"]
    joint = next(link["joint"] for link in first if link["armature"] > 0)
    with pytest.raises(ValueError, match=f"/robot/mjcf: robot joint '{joint}': armature 0.1 kg m\\^2.*'dae'"):
        simphant.Simulator(scene_of(name, solver="dae"), instances=1, backend="cpu")


def test_step_size_check_knows_the_armature(tmp_path, cli):
    """The UR5e's elbow: damping 200 N m s/rad on its smallest effective inertia (the
    armature 0.1 kg m^2 included) is a mode near |lambda| = 1300 1/s (RK4's bound:
    |lambda| dt <= 2.785). simphant check passes Menagerie's timestep 0.002 s (a warning
    near the bound) and calls 0.0025 s unstable, naming the file's key and the joint; with
    the armature set to 0 (scene key robot.armature) 0.002 s is unstable too."""
    import json
    import subprocess

    from conftest import python_env

    verdicts = {}
    no_armature = {link["joint"]: 0.0 for link in simphant._simphant.mjcf_model(str(MODELS["ur5e"][0]))["links"]}
    for dt, armature in ((0.002, None), (0.0025, None), (0.002, no_armature)):
        doc = scene_of("ur5e", dt=dt, t_end=1.0)
        if armature:
            doc["robot"]["armature"] = armature  # the scene key overrides the file's values
        (tmp_path / "scene.json").write_text(json.dumps(doc))
        proc = subprocess.run([cli, "check", str(tmp_path / "scene.json"), "--json"], capture_output=True,
                              text=True, env=python_env(), timeout=120)
        modes = json.loads(proc.stdout)["step_stability"]["modes"]
        elbow = [m for m in modes if m["name"].startswith("joint 'elbow_joint'")]
        assert elbow and elbow[0]["field"] == "/robot/mjcf", modes
        verdicts[(dt, armature is None)] = elbow[0]["verdict"]
    assert verdicts == {(0.002, True): "warn", (0.0025, True): "unstable", (0.002, False): "unstable"}, verdicts


def _actuated_rollout(name, ctrl, inputs, dt):
    """1 s at dt with the file's actuators applied in both (limits and contact off):
    MuJoCo's ctrl against SimPhant's inputs (robot.actuators "mjcf"), from 20 random states."""
    m = mujoco_model(name)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= OFF
    m.opt.timestep = dt
    steps = int(round(1.0 / dt))
    rng = np.random.default_rng(8)
    qpos = m.qpos0 + rng.uniform(-1.0, 1.0, (STATES, m.nq))
    qvel = rng.uniform(-1.0, 1.0, (STATES, m.nv))
    scene = scene_of(name, dt=dt, t_end=1.0, actuators="mjcf", urdf_dynamics={"limits": False})
    sim = simphant.Simulator(scene, instances=STATES, backend="cpu")
    s = sim.get_state()
    s.y[:, :m.nq] = qpos - m.qpos0
    s.y[:, m.nq:] = qvel
    sim.set_state(s)
    sim.set_inputs(inputs)
    sim.step(steps)
    q_s, qd_s, tau_s = sim.joint_state()
    d = mujoco.MjData(m)
    worst_q = worst_tau = 0.0
    saturated = 0
    for i in range(STATES):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        for _ in range(steps):
            mujoco.mj_step(m, d)
        mujoco.mj_forward(m, d)  # actuator forces at the final state
        worst_q = max(worst_q, float(np.max(np.abs(q_s[i] + m.qpos0 - d.qpos))))
        worst_tau = max(worst_tau, rel(tau_s[i], d.qfrc_actuator))
        saturated += int(np.sum(np.abs(d.actuator_force) >= m.actuator_forcerange[:, 1] - 1e-12))
    print(f"{name} with its actuators: after 1 s, max |q + ref - qpos| {worst_q:.2e}, "
          f"actuator force relative {worst_tau:.2e}, {saturated} saturated at the end")
    return worst_q, worst_tau, saturated


@pytest.mark.parametrize("name, dt", [("panda_nohand", 5e-4), ("ur5e", 0.002)])
def test_position_actuators_match_mujoco(name, dt):
    """robot.actuators "mjcf": the arms' position actuators (<general> affine for the Panda,
    <position> for the UR5e; gear 1, ref 0, so the input is MuJoCo's ctrl) as servos with the
    file's kp, kv and forcerange. Random targets inside the ctrlrange from 20 random
    states: 1 s trajectories agree to 1e-8 with MuJoCo's RK4, and the actuator forces at the
    end equal qfrc_actuator; forces saturate at the forcerange, so the clamp is exercised.
    The Panda's servos (kv up to 450 N m s/rad) need dt 5e-4 with RK4 (below)."""
    m = mujoco_model(name)
    rng = np.random.default_rng(9)
    ctrl = rng.uniform(m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1], (STATES, m.nu))
    worst_q, worst_tau, saturated = _actuated_rollout(name, ctrl, ctrl, dt)
    assert worst_q < 1e-8 and worst_tau < 1e-8
    assert saturated > 0


def test_file_servos_in_the_step_size_check(tmp_path, cli):
    """The Panda's servos from its file at Menagerie's 0.002 s: RK4 is unstable for six of
    seven joints (Menagerie runs it with MuJoCo's implicitfast), and simphant check names
    /robot/mjcf, where the gains come from; at 5e-4 s every mode is stable."""
    import json
    import subprocess

    from conftest import python_env

    verdicts = {}
    for dt in (0.002, 5e-4):
        doc = scene_of("panda_nohand", dt=dt, t_end=1.0, actuators="mjcf", urdf_dynamics={"limits": False})
        (tmp_path / "scene.json").write_text(json.dumps(doc))
        proc = subprocess.run([cli, "check", str(tmp_path / "scene.json"), "--json"], capture_output=True,
                              text=True, env=python_env(), timeout=120)
        modes = json.loads(proc.stdout)["step_stability"]["modes"]
        assert all(m["field"] == "/robot/mjcf" for m in modes), modes
        verdicts[dt] = sorted(m["verdict"] for m in modes)
    assert verdicts[0.002].count("unstable") == 6 and set(verdicts[5e-4]) == {"ok"}, verdicts


def test_motors_with_gear_and_ctrlrange_match_mujoco():
    """Reacher's motors (gear 200, ctrlrange [-1, 1]) with robot.actuators "mjcf": the input
    is the torque gear ctrl, bounded at 200 N m (the ctrlrange); controls beyond the range
    (|ctrl| up to 1.5, clamped by MuJoCo) give the same motion."""
    rng = np.random.default_rng(10)
    ctrl = rng.uniform(-1.5, 1.5, (STATES, 2))
    inputs = np.zeros((STATES, 4))
    inputs[:, :2] = 200.0 * ctrl
    worst_q, worst_tau, _ = _actuated_rollout("reacher", ctrl, inputs, MODELS["reacher"][1])
    assert worst_q < 1e-8 and worst_tau < 1e-8


def test_actuators_key_errors(tmp_path):
    doc = scene_of("ur5e", actuators="all")
    with pytest.raises(ValueError, match="/robot/actuators: must be \"mjcf\""):
        simphant.Simulator(doc, instances=1, backend="cpu")
    doc = scene_of("ur5e", actuators="mjcf", servos={"elbow_joint": {"mode": "position", "kp": 10}})
    with pytest.raises(ValueError, match="/robot/servos/elbow_joint: joint 'elbow_joint' is driven by the file's "
                                         "actuator 'elbow'"):
        simphant.Simulator(doc, instances=1, backend="cpu")
    xml = (tmp_path / "two.xml")
    xml.write_text('<mujoco><worldbody><body><joint name="j"/><geom size="0.1"/></body></worldbody>'
                   '<actuator><motor name="a" joint="j" forcerange="-1 2"/></actuator></mujoco>')
    doc = {"robot": {"mjcf": str(xml), "actuators": "mjcf"}, "solver": {"type": "aba", "dt": 0.01, "t_end": 0.01}}
    with pytest.raises(ValueError, match="/robot/mjcf: the file's actuators cannot be applied: actuator 'a': an "
                                         "asymmetric forcerange"):
        simphant.Simulator(doc, instances=1, backend="cpu")
    doc = scene_of("ur5e", actuators="mjcf", tau=[0, 0, 2.0, 0, 0, 0])
    with pytest.raises(ValueError, match="/robot/tau/2: joint 'elbow_joint' is driven by the file's position or "
                                         "velocity actuator"):
        simphant.Simulator(doc, instances=1, backend="cpu")
    doc = scene_of("ur5e", actuators="mjcf", servos=[1, 2])
    with pytest.raises(ValueError, match="/robot/servos: must be an object"):
        simphant.Simulator(doc, instances=1, backend="cpu")
    urdf = {"robot": {"urdf": str(ROOT / "examples" / "arm7.urdf"), "actuators": "mjcf"},
            "solver": {"type": "aba", "dt": 0.001, "t_end": 0.01}}
    with pytest.raises(ValueError, match="/robot/actuators: applies to an MJCF robot"):
        simphant.Simulator(urdf, instances=1, backend="cpu")


def test_an_arm_file_as_the_scene_applies_its_actuators():
    """ur5e.xml given as the scene: its position actuators act (robot.actuators "mjcf"),
    holding the arm against gravity at MuJoCo's ctrl 0 (qpos 0); 1 s from rest agrees with
    MuJoCo's RK4 at the file's timestep (contact off; no limit is reached)."""
    path = str(MODELS["ur5e"][0])
    sim = simphant.Simulator(path, instances=1, backend="cpu")
    assert sim.dt == 0.002
    np.testing.assert_array_equal(sim.joint_state()[2][0], np.zeros(6))  # the servo targets: ctrl 0
    sim.step(500)
    q_s, _, tau_s = sim.joint_state()
    m = mujoco_model("ur5e")
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    d = mujoco.MjData(m)
    for _ in range(500):
        mujoco.mj_step(m, d)
    mujoco.mj_forward(m, d)
    assert not np.any(d.efc_type == mujoco.mjtConstraint.mjCNSTR_LIMIT_JOINT)
    assert np.max(np.abs(q_s[0] - d.qpos)) < 1e-8
    assert 1e-4 < np.max(np.abs(d.qpos)) < 0.05  # it sags a little under gravity, held by the servos
    assert rel(tau_s[0], d.qfrc_actuator) < 1e-8


#: A synthetic arm for the actuator mapping: negative and non-unit gears, nonzero refs,
#: armature, a <position>, an affine <general> servo on a joint with actuatorfrcrange
#: (tighter than gear x forcerange), a <velocity> and a <general> motor with a gain and
#: a ctrlrange.
ACTUATED_ARM = """<mujoco model="arm"><compiler angle="radian"/><option timestep="0.001" integrator="RK4"/>
<worldbody>
 <body name="a"><joint name="j1" axis="0 1 0" ref="0.4" damping="0.3" armature="0.05"/>
  <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/>
  <body name="b" pos="0 0 -0.5"><joint name="j2" axis="1 0 0" ref="-0.3" armature="0.02" actuatorfrcrange="-4 4"/>
   <geom type="capsule" fromto="0 0 0 0.3 0 -0.3" size="0.04"/>
   <body name="c" pos="0.3 0 -0.3"><joint name="j3" type="slide" axis="0 0 1" ref="0.1"/>
    <geom type="box" size="0.05 0.05 0.05"/>
    <body name="d"><joint name="j4" axis="0 0 1" ref="0.2"/><geom type="box" pos="0.1 0 0" size="0.1 0.02 0.02"/></body>
   </body>
  </body>
 </body>
</worldbody>
<actuator>
 <position name="p1" joint="j1" gear="-2.5" kp="30" kv="2" forcerange="-8 8"/>
 <general name="p2" joint="j2" gear="1.7" biastype="affine" gainprm="20" biasprm="0 -20 -1.5" forcerange="-5 5"/>
 <velocity name="v3" joint="j3" gear="-3" kv="4" forcerange="-6 6"/>
 <general name="m4" joint="j4" gear="-2" gainprm="0.7" ctrlrange="-1 1" ctrllimited="true"/>
</actuator></mujoco>"""


def test_actuator_mapping_with_gears_refs_and_bounds_matches_mujoco(tmp_path):
    """ACTUATED_ARM with robot.actuators "mjcf": SimPhant's inputs ctrl / g - ref (position),
    ctrl / g (velocity) and g gain ctrl (motor) against MuJoCo's ctrl in [-1.5, 1.5] (the
    motor's beyond its ctrlrange), 1 s from 10 random states at the file's 0.001 s: q to
    1e-8 and the actuator forces to 1e-8 relative, with forces saturated at forcerange and
    at the joint's actuatorfrcrange (4 N m, below 1.7 x 5)."""
    path = tmp_path / "arm.xml"
    path.write_text(ACTUATED_ARM)
    m = mujoco.MjModel.from_xml_path(str(path))
    m.opt.disableflags |= OFF
    n, steps = 10, 1000
    rng = np.random.default_rng(1)
    qpos = m.qpos0 + rng.uniform(-1, 1, (n, 4))
    qvel = rng.uniform(-1, 1, (n, 4))
    ctrl = rng.uniform(-1.5, 1.5, (n, 4))
    ref, g = m.qpos0.copy(), m.actuator_gear[:, 0]
    inputs = np.stack([ctrl[:, 0] / g[0] - ref[0], ctrl[:, 1] / g[1] - ref[1], ctrl[:, 2] / g[2],
                       g[3] * 0.7 * ctrl[:, 3]], axis=1)
    doc = {"name": "arm", "robot": {"mjcf": str(path), "actuators": "mjcf"},
           "solver": {"type": "aba", "t_end": 1.0, "integrator": "rk4"}}
    sim = simphant.Simulator(doc, instances=n, backend="cpu")
    assert sim.dt == 0.001  # the file's timestep
    s = sim.get_state()
    s.y[:, :4] = qpos - ref
    s.y[:, 4:] = qvel
    sim.set_state(s)
    sim.set_inputs(inputs)
    sim.step(steps)
    q_s, _, tau_s = sim.joint_state()
    d = mujoco.MjData(m)
    worst_q = worst_tau = 0.0
    joint_bound_hit = 0
    for i in range(n):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        for _ in range(steps):
            mujoco.mj_step(m, d)
        mujoco.mj_forward(m, d)
        worst_q = max(worst_q, float(np.max(np.abs(q_s[i] + ref - d.qpos))))
        worst_tau = max(worst_tau, rel(tau_s[i], d.qfrc_actuator))
        joint_bound_hit += int(abs(d.qfrc_actuator[1]) >= 4 - 1e-12)
    print(f"actuated arm: max |q + ref - qpos| {worst_q:.2e}, forces {worst_tau:.2e}, j2 at 4 N m: {joint_bound_hit}")
    assert worst_q < 1e-8 and worst_tau < 1e-8
    assert joint_bound_hit > 0


def test_default_targets_are_mujocos_clamped_ctrl_zero():
    """Without inputs written, each servo's target is MuJoCo's ctrl 0 clamped to its
    ctrlrange: the Panda's joint4 (ctrlrange [-3.0718, -0.0698]) is pulled to -0.0698 rad
    in both. 0.2 s from qpos0 at rest (dt 5e-4; limits and contact off)."""
    m = mujoco_model("panda_nohand")
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= OFF
    m.opt.timestep = 5e-4
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    start = d.qfrc_actuator.copy()
    for _ in range(400):
        mujoco.mj_step(m, d)
    sim = simphant.Simulator(scene_of("panda_nohand", dt=5e-4, t_end=0.2, actuators="mjcf",
                                      urdf_dynamics={"limits": False}), instances=1, backend="cpu")
    # at rest at q = 0: joint4's servo pulls toward -0.0698 rad, 3500 x 0.0698 N m, clamped at 87
    np.testing.assert_array_equal(start, [0, 0, 0, -87, 0, 0, 0])
    np.testing.assert_array_equal(sim.joint_state()[2][0], start)
    sim.step(400)
    assert np.max(np.abs(sim.joint_state()[0][0] - d.qpos)) < 1e-8
    assert d.qpos[3] < -0.03  # joint4 moved toward its clamped target


def test_flags_actuation_and_clampctrl(tmp_path):
    """<flag actuation="disable">: robot.actuators "mjcf" is refused naming /robot/mjcf, and
    the file given as the scene runs with no actuator (a warning says why).
    <flag clampctrl="disable">: a motor's ctrlrange bounds nothing (as MuJoCo, ctrl not clamped)."""
    base = ('<mujoco><option timestep="0.01" integrator="RK4">{flag}</option><worldbody><body>'
            '<joint name="j" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/></body>'
            '</worldbody><actuator><motor name="m" joint="j" gear="2" ctrlrange="-1 1"/></actuator></mujoco>')
    off = tmp_path / "off.xml"
    off.write_text(base.format(flag='<flag actuation="disable"/>'))
    doc = {"robot": {"mjcf": str(off), "actuators": "mjcf"}, "solver": {"type": "aba", "t_end": 0.01}}
    with pytest.raises(ValueError, match="/robot/mjcf: the file's actuators cannot be applied: the file disables"):
        simphant.Simulator(doc, instances=1, backend="cpu")
    sim = simphant.Simulator(str(off), instances=1, backend="cpu")  # the file as the scene: no actuator
    sim.set_inputs(np.array([[5.0]]))
    np.testing.assert_array_equal(sim.joint_state()[2], [[5.0]])  # a plain torque input, unbounded
    free = tmp_path / "free.xml"
    free.write_text(base.format(flag='<flag clampctrl="disable"/>'))
    doc["robot"]["mjcf"] = str(free)
    sim = simphant.Simulator(doc, instances=1, backend="cpu")
    sim.set_inputs(np.array([[5.0]]))
    sim.step(1)
    np.testing.assert_array_equal(sim.joint_state()[2], [[5.0]])  # not bounded at 2 x 1
    fixed = tmp_path / "clamped.xml"
    fixed.write_text(base.format(flag=""))
    doc["robot"]["mjcf"] = str(fixed)
    sim = simphant.Simulator(doc, instances=1, backend="cpu")
    sim.set_inputs(np.array([[5.0]]))
    sim.step(1)
    np.testing.assert_array_equal(sim.joint_state()[2], [[2.0]])  # bounded at |gear| x 1
