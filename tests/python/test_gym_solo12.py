"""Contact in Python and the legged task built on it: Simulator.contacts() and
contact_wrenches() against the quasi-static balance of a standing Solo-12, mdp.projected_gravity against a rotation
matrix, VectorEnv's action_offset, joint_state_noise on a floating base, and
Solo12StandUp-v0's observation, reward and episode."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import require

require("gymnasium", "simphant.gym is a Gymnasium env")

import simphant  # noqa: E402
import simphant.gym as sg  # noqa: E402
from simphant.gym import VectorEnv, mdp  # noqa: E402
from simphant.gym import legged_tasks as lt  # noqa: E402

G = 9.81


def solo12_mass() -> float:
    """The sum of the <mass> elements of example-robot-data's solo12.urdf [kg]."""
    import importlib.metadata
    import xml.etree.ElementTree as ET

    robots = importlib.metadata.distribution("example-robot-data").locate_file(
        "cmeel.prefix/share/example-robot-data/robots")
    root = ET.parse(str(robots / "solo_description" / "robots" / "solo12.urdf")).getroot()
    return sum(float(m.get("value")) for m in root.iter("mass"))


def solo_stand_scene(examples):
    scene = json.loads((examples / "solo12_stand.json").read_text())
    scene["solver"]["type"] = "aba"
    scene["solver"].pop("projection", None)
    return scene


def test_contacts_carry_the_weight_of_a_standing_robot(examples):
    """examples/solo12_stand.json (feet on a linear spring-dashpot, K = 2e4 N/m) set down
    and held 1 s on its servos: the feet's normal forces sum to the robot's weight (to
    1e-3: the base still settles, measured 3.4e-5) and each foot's penetration is its
    force over K (to 1e-6: the dashpot's share, measured 4e-8); one contact per foot,
    friction below mu = 0.6 .. 1.0 times the load (the feet splay: measured 0.27 .. 0.29)."""
    scene = solo_stand_scene(examples)
    sim = simphant.Simulator(scene, instances=3, backend="cpu", threads=1)
    names = sim.contact_pair_names
    assert names == [f"contact ground {leg}_FOOT[0]" for leg in ("FL", "FR", "HL", "HR")]
    sim.step(10000)  # dt = 1e-4 s
    c = sim.contacts()
    assert c.shape == (3, 4, 4)
    np.testing.assert_allclose(c[:, :, 0].sum(1), solo12_mass() * G, rtol=1e-3)
    np.testing.assert_allclose(c[:, :, 2], c[:, :, 0] / 2e4, rtol=1e-6)
    assert np.all(c[:, :, 3] == 1) and np.all(c[:, :, 1] < 0.6 * c[:, :, 0])
    out = np.full_like(c, np.nan)
    assert sim.contacts(out) is out and np.array_equal(out, c)
    free = simphant.Simulator(examples / "pendulum.json", instances=2, backend="cpu")
    assert free.contact_pair_names == [] and free.contacts().shape == (2, 0, 4)
    # The wrenches: on level ground each pair's vertical force is its normal force; at
    # rest the feet's forces carry the weight and their moments about the centre of mass
    # cancel (1e-3 of the weight times 0.2 m, the feet's lever: the base still settles).
    w, com = sim.contact_wrenches(), sim.centre_of_mass()
    assert w.shape == (3, 4, 6) and com.shape == (3, 3)
    np.testing.assert_allclose(w[:, :, 2], c[:, :, 0], rtol=1e-12)
    f = w[:, :, :3].sum(1)
    np.testing.assert_allclose(f, np.tile([0.0, 0.0, solo12_mass() * G], (3, 1)), atol=1e-3 * solo12_mass() * G)
    moment = (w[:, :, 3:] - np.cross(com[:, None, :], w[:, :, :3])).sum(1)
    assert np.all(np.abs(moment) < 1e-3 * solo12_mass() * G * 0.2), moment
    out_w, out_c = np.full_like(w, np.nan), np.full_like(com, np.nan)
    assert sim.contact_wrenches(out_w) is out_w and np.array_equal(out_w, w)
    assert sim.centre_of_mass(out_c) is out_c and np.array_equal(out_c, com)
    assert free.contact_wrenches().shape == (2, 0, 6) and np.all(np.isfinite(free.centre_of_mass()))


def rotation(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def test_projected_gravity_is_the_down_direction_in_the_base_axes(examples):
    """Three random base orientations of Solo-12 at t = 0: the term equals R^T (0, 0, -1)
    with R from the quaternion written out here, to rounding."""
    rng = np.random.default_rng(4)
    term = mdp.projected_gravity("base_link")
    for _ in range(3):
        q = rng.standard_normal(4)
        q /= np.linalg.norm(q)
        scene = solo_stand_scene(examples)
        scene["robot"]["base"]["orientation"] = list(q)
        scene["robot"]["base"]["position"] = [0, 0, 1.0]  # clear of the ground
        sim = simphant.Simulator(scene, instances=2, backend="cpu")
        np.testing.assert_allclose(term(sim), np.tile(rotation(q).T @ [0, 0, -1], (2, 1)), atol=1e-15)


def test_action_offset_adds_to_the_mapped_action(examples):
    """The simulator's inputs are G @ clip(a) + offset; a bad offset names the argument."""
    g = np.diag(np.arange(1.0, 13.0))
    env = VectorEnv(solo_stand_scene(examples), num_envs=2, observation=["joint_q"], action_low=-1, action_high=1,
                    action_map=g, action_offset=lt.SOLO12_STANDING, backend="cpu")
    env.reset(seed=0)
    a = np.linspace(-2, 2, 24).reshape(2, 12)
    env.step(a)
    np.testing.assert_array_equal(np.asarray(env.sim.inputs_view()), np.clip(a, -1, 1) @ g.T + lt.SOLO12_STANDING)
    with pytest.raises(ValueError, match="action_offset: must be 12 finite numbers"):
        VectorEnv(solo_stand_scene(examples), num_envs=2, action_low=-1, action_high=1, action_offset=[0.0] * 3,
                  backend="cpu")


def test_joint_state_noise_on_a_floating_base(examples):
    """The noise moves the joint coordinates and rates and leaves the base's pose and twist."""
    scene = solo_stand_scene(examples)
    del scene["sweep"]  # every instance at the same initial state
    env = VectorEnv(scene, num_envs=400, observation=["joint_q"], action_low=-1, action_high=1,
                    backend="cpu", reset_events=[mdp.joint_state_noise(q_std=0.1, qd_std=0.3)])
    env.reset(seed=0)
    y, y0 = env.sim.get_state().y, simphant.Simulator(scene, instances=1, backend="cpu").get_state().y[0]
    base = np.r_[0:7, 19:25]  # p_B, quat_B | v_B, omega_B
    np.testing.assert_array_equal(y[:, base], np.tile(y0[base], (400, 1)))
    # sample standard deviations of 400 x 12 draws: within 5 % (4.4 standard errors)
    assert abs(np.std(y[:, 7:19] - y0[7:19]) / 0.1 - 1) < 0.05
    assert abs(np.std(y[:, 25:37] - y0[25:37]) / 0.3 - 1) < 0.05


def test_solo12_stand_up_task():
    """Observation layout, the feet's forces as Simulator.contacts has them, the reward
    lying and standing, and the episode's truncation after 100 steps."""
    env = sg.make("Solo12StandUp-v0", num_envs=4, backend="cpu")
    assert env.observation_space.shape == (4, 38) and env.action_space.shape == (4, 12)
    obs, _ = env.reset(seed=1)
    assert np.all(obs[:, 0] == 0.07) and np.all(obs[:, 34:] == 0)  # dropped from 7 cm
    stand = (np.array(lt.SOLO12_STANDING) - lt.SOLO12_LYING) / 1.5
    rewards = []
    for k in range(100):
        obs, r, term, trunc, _ = env.step(np.zeros((4, 12)) if k < 25 else np.tile(stand, (4, 1)))
        rewards.append(r)
        if k == 24:  # lying on the folded legs: the feet and knees carry it, the body clear of the ground
            c = env.sim.contacts()
            feet = [env.sim.contact_pair_names.index(p) for p in lt.SOLO12_FOOT_PAIRS]
            np.testing.assert_array_equal(obs[:, 34:], c[:, feet, 0])
            assert np.all(c[:, 0, 0] == 0) and np.all(obs[:, 34:] > 0)
            np.testing.assert_allclose(obs[:, 1:4], np.tile([0, 0, -1], (4, 1)), atol=0.02)
            assert np.all((0.02 < obs[:, 0]) & (obs[:, 0] < 0.04))
        assert not term.any() and trunc.all() == (k == 99)
    rewards = np.array(rewards)
    assert np.all((0.1 < rewards[24]) & (rewards[24] < 0.2))  # height / 0.2 of a level base about 3 cm up
    assert np.all(rewards[60:] > 0.95)  # standing: level, the base above 0.2 m
    assert np.all(obs[:, 0] > 0.2) and np.all(obs[:, 34:].sum(1) > 0.9 * solo12_mass() * G)
    with pytest.raises(ValueError, match="no contact pair 'contact ground nose.*pairs: contact ground base_link"):
        mdp.contact_force(["contact ground nose[0]"])(env.sim)
    with pytest.raises(ValueError, match="component must be one of"):
        mdp.contact_force(lt.SOLO12_FOOT_PAIRS, "torque")
