"""simphant.gym's Ant-v5 (python/simphant/gym/mujoco_ant.py) against Gymnasium's own Ant-v5 on
MuJoCo.

- In flight, the definitions and the tree's dynamics on a floating base: each SimPhant env
  starts from the state of a `gymnasium.make("Ant-v5")` env lifted 3 m, turned to a random
  orientation and spinning at up to 2 rad/s, with the hinges well inside their ranges
  (MuJoCo's limit constraints inactive and no contact: asserted at every step), and both
  take the same actions (a PD law toward the middle of the ranges plus noise; a first
  action beyond the ctrlrange). With one RK4 step per MuJoCo timestep (substeps=1) the
  105 observations agree to 1e-8 (measured 5.4e-9: the two RK4 forms of the quaternion's
  motion, docs/python.md "Ant-v5"), the termination flags exactly (a healthy_z_range from
  3 m ends every episode in the rollout), and the reward to 1e-8 once Gymnasium's forward
  term is taken from qpos (Gymnasium reads the torso's xpos, which MuJoCo's mj_step leaves
  at the start of the env step's last timestep; the raw difference is printed).
- cfrc_ext: the ant standing on its four feet after 3 s without actions, in both. The
  same bodies touch (the four lower legs); over all bodies the forces sum to the weight
  and the moments about the centre of mass to zero (1e-3 of M g and of M g x 1 m: the ant
  still sags slowly on its damped joints); each foot carries M g / 4 in both to 1e-3 of
  M g, and the remaining components agree within the difference of the two stances
  (SimPhant's limit springs and compliant contact against MuJoCo's constraints: the
  torso 1.5 cm lower; measured below).
- The task's spaces, the reset's distribution and the observation's options.
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import require, states_event

mujoco = require("mujoco", "the comparison with Gymnasium's Ant-v5")
require("imageio", "Gymnasium's MuJoCo envs import it")
gym = require("gymnasium", "the comparison with Gymnasium's Ant-v5")

import simphant.gym  # noqa: E402
from simphant.gym import mujoco_ant, mujoco_data  # noqa: E402
from gym_step_check import one_step_errors  # noqa: E402

TOL = 1e-8
#: the ant's mass [kg] (MuJoCo's sum(body_mass) of ant.xml) times g
MG = 0.9108800827073914 * 9.81


def _actuated(m):
    """Per actuator: its joint's qpos and dof addresses and the middle of its range."""
    j = m.actuator_trnid[:, 0]
    return m.jnt_qposadr[j], m.jnt_dofadr[j], m.jnt_range[j].mean(axis=1)


def test_flight_in_lockstep_with_gymnasium():
    n, dt = 4, 0.05
    kw = dict(healthy_z_range=(3.0, 10.0))
    gyms = [gym.make("Ant-v5", **kw) for _ in range(n)]
    rng = np.random.default_rng(3)
    states = []
    for i, g in enumerate(gyms):
        g.reset(seed=5 + i)
        u = g.unwrapped
        m = u.model
        qpos, qvel = u.data.qpos.copy(), u.data.qvel.copy()
        hinges = [j for j in range(m.njnt) if m.jnt_limited[j]]
        rng_j = m.jnt_range[hinges]
        mid, half = rng_j.mean(axis=1), 0.1 * (rng_j[:, 1] - rng_j[:, 0])
        qpos[m.jnt_qposadr[hinges]] = rng.uniform(mid - half, mid + half)
        qpos[2] += 3.0
        quat = rng.normal(size=4)
        qpos[3:7] = quat / np.linalg.norm(quat)
        qvel[:3] = rng.uniform(-1.0, 1.0, 3)
        qvel[3:6] = rng.uniform(-2.0, 2.0, 3)
        qvel[6:] = rng.uniform(-0.3, 0.3, 8)
        u.set_state(qpos, qvel)
        states.append(np.concatenate([qpos, qvel]))
    env = simphant.gym.make("Ant-v5", num_envs=n, backend="cpu", substeps=1,
                            reset_events=[states_event(np.array(states))], **kw)
    assert env.sim.backend.startswith("reduced-aba")
    obs, _ = env.reset(seed=0)
    gym_obs = np.stack([g.unwrapped._get_obs() for g in gyms])
    err = {"obs": float(np.max(np.abs(obs - gym_obs))), "reward": 0.0, "raw_reward": 0.0, "steps": 0}
    qadr, dadr, mid = _actuated(gyms[0].unwrapped.model)
    live = np.ones(n, bool)
    for k in range(20):
        if not live.any():
            break
        qpos = np.stack([g.unwrapped.data.qpos for g in gyms])
        qvel = np.stack([g.unwrapped.data.qvel for g in gyms])
        actions = 2.0 * (mid - qpos[:, qadr]) - 0.2 * qvel[:, dadr] + rng.uniform(-0.3, 0.3, (n, 8))
        if k == 0:
            actions[:, 0] = np.where(np.arange(n) % 2 == 0, 1.3, -1.3)  # clipped, charged unclipped
        obs, reward, term, trunc, _ = env.step(actions)
        for i in np.flatnonzero(live):
            x0 = gyms[i].unwrapped.data.qpos[0]
            o, r, t, tr, info = gyms[i].step(actions[i])
            d = gyms[i].unwrapped.data
            assert d.ncon == 0 and not np.any(d.qfrc_constraint), "contact or a joint limit became active"
            r_qpos = r - info["x_velocity"] + (d.qpos[0] - x0) / dt
            err["steps"] += 1
            err["obs"] = max(err["obs"], float(np.max(np.abs(obs[i] - o))))
            err["reward"] = max(err["reward"], abs(reward[i] - r_qpos))
            err["raw_reward"] = max(err["raw_reward"], abs(reward[i] - r))
            assert bool(term[i]) == t and not trunc[i] and not tr
            live[i] = not t
    print(f"\nAnt-v5 in flight, num_envs={n}, substeps=1: {err}")
    assert not live.any(), "every episode ends within the rollout"
    assert err["obs"] <= TOL and err["reward"] <= TOL, err


def _cfrc_ext(env):
    sim = env.sim
    bodies = mujoco_data.mujoco_bodies(mujoco_ant.asset_path("ant.xml"))
    ids = mujoco_data.cfrc_ext_map(sim.contact_pair_names, bodies)
    return mujoco_data.cfrc_ext(sim, mujoco_data.pair_sides(ids, len(bodies)))[0]


def test_cfrc_ext_of_the_standing_ant_against_mujoco():
    env = simphant.gym.make("Ant-v5", num_envs=1, backend="cpu", reset_noise_scale=0.0)
    env.reset(seed=0)
    g = gym.make("Ant-v5", reset_noise_scale=0.0)
    g.reset(seed=0)
    zero = np.zeros((1, 8))
    for _ in range(60):
        obs, *_ = env.step(zero)
        o, *_ = g.step(zero[0])
    ours, theirs = _cfrc_ext(env), g.unwrapped.data.cfrc_ext.copy()
    assert ours.shape == theirs.shape == (14, 6)
    touching = np.flatnonzero(np.any(ours != 0, axis=1))
    assert list(touching) == list(np.flatnonzero(np.any(theirs != 0, axis=1))) == [4, 7, 10, 13], \
        "the four lower legs (MuJoCo's bodies 4, 7, 10, 13) touch, in both"
    for c in (ours, theirs):
        total = c.sum(axis=0)
        assert np.allclose(total[3:], [0.0, 0.0, MG], atol=1e-3 * MG), total  # the weight
        assert np.allclose(total[:3], 0.0, atol=1e-3 * MG * 1.0), total  # no moment about the CoM
    assert np.allclose(ours[touching, 5], MG / 4, atol=1e-3 * MG) and \
        np.allclose(theirs[touching, 5], MG / 4, atol=1e-3 * MG), "each foot carries a quarter of the weight"
    diff = np.abs(ours - theirs)[touching]
    print(f"\nstanding ant: torso {obs[0, 0]:.4f} m (MuJoCo {o[0]:.4f}); |d cfrc_ext| moments "
          f"{diff[:, :3].max():.3g} N m, horizontal forces {diff[:, 3:5].max():.3g} N, vertical {diff[:, 5].max():.3g} N")
    # the lever arms differ by the stances (measured 0.0063 N m of 1.04), the friction that
    # holds the spread legs by the contact laws (measured 0.092 N of 0.90)
    assert diff[:, :3].max() <= 0.02 and diff[:, 3:5].max() <= 0.15
    # robot.limit_law "solreflimit" brings the ankles in from outside their ranges as MuJoCo
    # does (docs/mjcf.md, "Joint limits"; with the step's stiffer stops the ant lay on its
    # stops at 0.383 m)
    assert abs(obs[0, 0] - o[0]) <= 0.03


def test_the_default_step_against_a_fine_one():
    """One env step (50 ms) of the default step (5 RK4 substeps of 2 ms per 10 ms timestep)
    against 40 substeps (0.25 ms) from the same state, along 4 episodes of 40 steps of
    uniform random actions (the ant lands, its ankles come in from outside their ranges,
    it kicks and slides)."""
    err = one_step_errors("Ant-v5", 4, 40, 40, seed=2)
    worst, median = err.max(axis=0), np.median(err, axis=0)
    print(f"\nAnt-v5 default step against 0.25 ms, per env step: torso position max {worst[0]:.3g} m "
          f"(median {median[0]:.3g}), hinges max {worst[1]:.3g} rad (median {median[1]:.3g}), rates max "
          f"{worst[2]:.3g} (median {median[2]:.3g}) [m/s, rad/s]")
    # measured: position max 0.020 m (median 5.1e-4), hinges max 0.0095 rad (median 0.0027); the
    # largest errors come where a foot starts sliding within a step (the regularised friction)
    assert median[0] <= 2e-3 and median[1] <= 1e-2 and worst[1] <= 0.05, (worst, median)


def test_spaces_reset_and_observation_options():
    env = simphant.gym.make("Ant-v5", num_envs=3, backend="cpu")
    assert env.single_observation_space.shape == (105,)
    assert env.single_action_space.shape == (8,)
    assert np.all(env.single_action_space.low == -1) and np.all(env.single_action_space.high == 1)
    obs, _ = env.reset(seed=4)
    s = env.sim.get_state(np.arange(3)).y
    assert np.allclose(np.linalg.norm(s[:, 3:7], axis=1), 1.0, atol=1e-15), "a unit quaternion"
    assert np.all(np.abs(s[:, :3] - [0.0, 0.0, 0.75]) <= 0.1) and np.all(np.abs(s[:, 7:15]) <= 0.1)
    assert np.all(obs[:, 27:] == 0), "dropped from 0.75 m: nothing touches at the reset"
    assert np.array_equal(obs[:, :27], np.concatenate([s[:, 2:15], s[:, 15:]], axis=1))
    obs2, _ = env.reset(seed=4)
    assert np.array_equal(obs, obs2), "the seed fixes the reset"
    for _ in range(30):
        obs, reward, term, _, _ = env.step(np.zeros((3, 8)))
    assert np.all(np.abs(obs[:, 27:]) <= 1.0) and np.any(np.abs(obs[:, 27:]) == 1.0), \
        "standing, the feet's cfrc_ext is clipped to [-1, 1]"
    assert not term.any()
    short = simphant.gym.make("Ant-v5", num_envs=1, backend="cpu", include_cfrc_ext_in_observation=False)
    assert short.single_observation_space.shape == (27,)
    full = simphant.gym.make("Ant-v5", num_envs=1, backend="cpu", exclude_current_positions_from_observation=False)
    assert full.single_observation_space.shape == (107,)


def test_a_failed_instance_is_not_paid_to_survive():
    """An instance whose step fails (a base speed of 1e200 m/s) keeps its last finite state;
    it terminates and gets no healthy reward."""
    env = simphant.gym.make("Ant-v5", num_envs=2, backend="cpu")
    env.reset(seed=0)
    s = env.sim.get_state(np.array([1]))
    s.y[:, 15:18] = 1e200
    env.sim.set_state(s)
    _, reward, term, _, _ = env.step(np.zeros((2, 8)))
    assert list(term) == [False, True]
    assert reward[1] <= 0.0 < reward[0], reward


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="solver"):
        simphant.gym.make("Ant-v5", solver="dae")
    with pytest.raises(ValueError, match=r"^include_cfrc_ext_in_observation: True or False \(got 'no'\)"):
        simphant.gym.make("Ant-v5", num_envs=1, include_cfrc_ext_in_observation="no")
    env = simphant.gym.make("Ant-v5", num_envs=4, backend="cpu")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions: must have shape \(4, 8\) \(got \(8, 4\)\)"):
        env.step(np.zeros((8, 4)))  # transposed: refused, not reshaped
    scene = simphant.gym.mujoco_tasks.mjcf_scene(mujoco_ant.asset_path("ant.xml"))
    assert scene["robot"]["base"] == {"position": [0.0, 0.0, 0.75], "orientation": [1.0, 0.0, 0.0, 0.0]}
    assert mujoco_data.cfrc_ext_map(["contact ball[0] box[0]", "contact ground box[1]"],
                                    ["world", "ball", "box"]).tolist() == [[1, 2], [0, 2]]
    with pytest.raises(ValueError, match="does not name bodies"):
        mujoco_data.cfrc_ext_map(["contact ball[0] cone[0]"], ["world", "ball", "box"])
