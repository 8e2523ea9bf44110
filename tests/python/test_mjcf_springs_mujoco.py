"""MJCF joint springs (<joint stiffness springref>) and <compiler settotalmass>
(src/simphant/mjcf/, docs/mjcf.md) against MuJoCo itself:

- Gymnasium's half_cheetah.xml (shipped in python/simphant/gym/assets/, MIT): settotalmass
  14 kg, a spring and armature on each of its six leg hinges. Per body mass, CoM and
  inertia against the compiled mjModel; the springs against jnt_stiffness and
  qpos_spring; 1 s trajectories of solvers aba and cga (RK4 at the file's 0.01 s) against MuJoCo's
  RK4 from 20 random states (MuJoCo's limits and contacts off, SimPhant's limits off and
  no contact shapes).
- A synthetic chain with springref and ref in degrees on hinges and a slide: the same
  trajectories for aba, and for dae (maximal coordinates, which integrate differently:
  the difference falls as dt^4 and is below 1e-8 at a sixteenth of the step).
- <flag spring="disable"> drops the springs, as MuJoCo runs without them.
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import ROOT, require
from mujoco_compare import rel

mujoco = require("mujoco", "the MJCF spring cross-check against MuJoCo")

import simphant  # noqa: E402

CHEETAH = str(ROOT / "python" / "simphant" / "gym" / "assets" / "half_cheetah.xml")
STATES = 20

SYNTHETIC = """<mujoco model="springs">
  <compiler angle="degree"/>
  <option timestep="0.005" integrator="RK4"/>
  <worldbody>
    <body name="cart" pos="0 0 1">
      <joint name="slide" type="slide" axis="1 0 0" stiffness="50" springref="0.2" ref="0.05" damping="0.3"/>
      <geom type="box" size="0.1 0.1 0.05" mass="2"/>
      <body name="arm" pos="0 0 -0.1">
        <joint name="hinge0" axis="0 1 0" stiffness="8" springref="30" ref="10"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 -0.2" size="0.03" mass="0.7"/>
        <body name="tip" pos="0.3 0 -0.2">
          <joint name="hinge1" axis="1 0 0" stiffness="3" springref="-20"/>
          <geom type="sphere" size="0.05" pos="0 0.1 0" mass="0.4"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _quat_mat(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _quiet_model(path):
    level = simphant.log_level()
    simphant.set_log_level("error")  # MuJoCo's file: contact and visual attributes are warned of
    try:
        return simphant._simphant.mjcf_model(path)
    finally:
        simphant.set_log_level(level)


def rollout_difference(path, solver, divide, states, seed=3):
    """max |q - (qpos - qpos0)| and the relative qd difference after 1 s from random states,
    both RK4 at the file's timestep / divide; MuJoCo's limits and contacts off."""
    m = mujoco.MjModel.from_xml_path(path)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    m.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_LIMIT | mujoco.mjtDisableBit.mjDSBL_CONTACT
    m.opt.timestep = m.opt.timestep / divide
    dt = float(m.opt.timestep)
    steps = int(round(1.0 / dt))
    rng = np.random.default_rng(seed)
    revolute = np.array([m.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE for j in range(m.njnt)])
    worst_q = worst_qd = 0.0
    for _ in range(states):
        qpos = m.qpos0 + rng.uniform(-1.0, 1.0, m.nq)
        qvel = rng.uniform(-1.0, 1.0, m.nv)
        scene = {"name": "springs", "robot": {"mjcf": path, "q0": (qpos - m.qpos0).tolist(), "qd0": qvel.tolist(),
                                              "urdf_dynamics": {"limits": False}},
                 "solver": {"type": solver, "dt": dt, "t_end": 1.0, "integrator": "rk4"}}
        level = simphant.log_level()
        simphant.set_log_level("error")
        try:
            sim = simphant.Simulator(scene, instances=1, backend="cpu")
        finally:
            simphant.set_log_level(level)
        sim.step(steps)
        q_s, qd_s, _ = sim.joint_state()
        d = mujoco.MjData(m)
        d.qpos[:] = qpos
        d.qvel[:] = qvel
        for _ in range(steps):
            mujoco.mj_step(m, d)
        dq = q_s[0] - (d.qpos - m.qpos0)
        dq[revolute] = (dq[revolute] + np.pi) % (2 * np.pi) - np.pi  # dae reads angles within pi of q0
        worst_q = max(worst_q, float(np.max(np.abs(dq))))
        worst_qd = max(worst_qd, rel(qd_s[0], d.qvel))
    return worst_q, worst_qd


def test_settotalmass_and_springs_match_mujocos_model():
    m = mujoco.MjModel.from_xml_path(CHEETAH)
    ours = _quiet_model(CHEETAH)
    links = {link["name"]: link for link in ours["links"]}
    worst = 0.0
    for b in range(1, m.nbody):
        link = links[mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)]
        R = _quat_mat(m.body_iquat[b])
        worst = max(worst, abs(link["mass"] - m.body_mass[b]) / m.body_mass[b], rel(link["com"], m.body_ipos[b]),
                    rel(np.array(link["inertia"]), R @ np.diag(m.body_inertia[b]) @ R.T))
    assert sum(link["mass"] for link in ours["links"]) == pytest.approx(14.0, rel=1e-14)
    assert worst < 1e-12, worst
    for j, link in enumerate(ours["links"]):
        assert link["joint"] == mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        assert link["stiffness"] == m.jnt_stiffness[j]
        assert link["spring_q"] == pytest.approx(m.qpos_spring[j] - m.qpos0[j], abs=1e-15)
        assert link["armature"] == m.dof_armature[j]


@pytest.mark.parametrize("solver", ["aba", "cga"])
def test_half_cheetah_trajectory_matches_mujoco_rk4(solver):
    """The same scheme on the same coordinates (RK4, 0.01 s): rounding."""
    worst_q, worst_qd = rollout_difference(CHEETAH, solver, 1, STATES)
    print(f"half_cheetah {solver}: after 1 s, max |q - qpos| {worst_q:.2e}, qd relative {worst_qd:.2e}")
    assert worst_q < 1e-8 and worst_qd < 1e-8


def test_springref_in_degrees_with_ref(tmp_path):
    path = tmp_path / "springs.xml"
    path.write_text(SYNTHETIC)
    m = mujoco.MjModel.from_xml_path(str(path))
    ours = _quiet_model(str(path))
    assert [link["stiffness"] for link in ours["links"]] == list(m.jnt_stiffness)
    np.testing.assert_allclose([link["spring_q"] for link in ours["links"]], m.qpos_spring - m.qpos0,
                               rtol=0, atol=1e-15)
    assert ours["links"][1]["spring_q"] == pytest.approx(np.radians(20), abs=1e-15)  # springref 30 - ref 10 degrees
    worst_q, _ = rollout_difference(str(path), "aba", 1, STATES)
    print(f"springs aba: after 1 s, max |q - qpos| {worst_q:.2e}")
    assert worst_q < 1e-8


def test_dae_springs_converge_to_mujoco_rk4(tmp_path):
    """The dae's joint laws carry the springs: its difference from MuJoCo falls as dt^4
    (the two discretisations) and is below 1e-8 at a sixteenth of the file's step."""
    path = tmp_path / "springs.xml"
    path.write_text(SYNTHETIC)
    coarse, _ = rollout_difference(str(path), "dae", 1, 3)
    half, _ = rollout_difference(str(path), "dae", 2, 3)
    fine, _ = rollout_difference(str(path), "dae", 16, 5)
    print(f"springs dae: dt {coarse:.2e}, dt / 2 {half:.2e} (ratio {coarse / half:.1f}), dt / 16 {fine:.2e}")
    assert 10 < coarse / half < 24
    assert fine < 1e-8


def test_spring_flag_disable_drops_the_springs(tmp_path):
    path = tmp_path / "nospring.xml"
    path.write_text(SYNTHETIC.replace('<option timestep="0.005" integrator="RK4"/>',
                                      '<option timestep="0.005" integrator="RK4"><flag spring="disable"/></option>'))
    m = mujoco.MjModel.from_xml_path(str(path))
    assert m.opt.disableflags & mujoco.mjtDisableBit.mjDSBL_SPRING
    ours = _quiet_model(str(path))
    assert all(link["stiffness"] == 0 for link in ours["links"])
    worst_q, _ = rollout_difference(str(path), "aba", 1, 5)
    assert worst_q < 1e-8


def test_dae_warns_of_a_sprung_hinge_that_can_turn_past_pi(tmp_path, capfd):
    """The dae reads a hinge's angle within q0 +- pi: a spring on an unlimited hinge would
    jump by 2 pi stiffness past that, so the scene compile warns (aba and cga do not wrap)."""
    path = tmp_path / "springs.xml"
    path.write_text(SYNTHETIC)
    scene = {"name": "springs", "robot": {"mjcf": str(path)},
             "solver": {"type": "dae", "dt": 0.005, "t_end": 0.01, "integrator": "rk4"}}
    level = simphant.log_level()
    simphant.set_log_level("warn")
    try:
        capfd.readouterr()
        simphant.load_scene(scene)
        dae = capfd.readouterr().err
        scene["solver"]["type"] = "aba"
        simphant.load_scene(scene)
        aba = capfd.readouterr().err
    finally:
        simphant.set_log_level(level)
    sprung = [line for line in dae.splitlines() if "has a spring and can turn more than pi" in line]
    assert {line.split("joint '")[1].split("'")[0] for line in sprung} == {"hinge0", "hinge1"}, dae
    assert "has a spring" not in aba
