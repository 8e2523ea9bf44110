"""simphant.gym's Reacher-v5 (python/simphant/gym/mujoco_tasks.py) in lockstep with
Gymnasium's own Reacher-v5 on MuJoCo.

Each SimPhant env (num_envs 1, and 8 on the cpu and cpu-simd backends) starts from the
states of as many `gymnasium.make("Reacher-v5")` envs after their own reset (copied in by
a reset event; SimPhant's q = qpos - ref), and both take the same random actions for a
whole episode (50 steps, then both truncate). The actions are small (|a| <= 0.05), so the
elbow stays well inside its range [-3, 3] rad (asserted: |qpos| < 2.9, and MuJoCo's
constraint force is 0), where MuJoCo's limit constraint and SimPhant's limit law are
both inactive; the model has no contact (contype 0 everywhere).

The last two observation entries and the reward read the fingertip and target body
origins. Gymnasium takes xipos after mj_step, which with RK4 holds the kinematics of the
last substep's final Runge-Kutta stage, not of the new state; SimPhant's are at the new
state. So these are compared to 1e-8 with the values recomputed from Gymnasium's state
after mj_kinematics, and with Gymnasium's reported values to the size of that lag; the
first eight observation entries (qpos, qvel) are compared to 1e-8 as reported.
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import require

mujoco = require("mujoco", "the lockstep check against Gymnasium's MuJoCo envs")
require("imageio", "Gymnasium's MuJoCo envs import it")
gym = require("gymnasium", "the lockstep check against Gymnasium's MuJoCo envs")

import simphant.gym  # noqa: E402

TOL = 1e-8
LAG = 1e-5  # the stale RK4 stage against the new state [m, and reward]: measured 2.6e-7


def _fresh_vec(g) -> np.ndarray:
    """fingertip - target (body origins = xipos: sphere geoms at the origins) at the
    Gymnasium env's current qpos (mj_kinematics on a copy)."""
    u = g.unwrapped
    d = mujoco.MjData(u.model)
    d.qpos[:] = u.data.qpos
    mujoco.mj_kinematics(u.model, d)
    body = lambda name: mujoco.mj_name2id(u.model, mujoco.mjtObj.mjOBJ_BODY, name)  # noqa: E731
    return d.xipos[body("fingertip")] - d.xipos[body("target")]


def lockstep(n: int, backend: str = "auto") -> dict:
    gyms = [gym.make("Reacher-v5") for _ in range(n)]
    gym_obs = np.stack([g.reset(seed=17 + i)[0] for i, g in enumerate(gyms)])
    ref = gyms[0].unwrapped.model.qpos0.copy()
    states = np.stack([np.concatenate([g.unwrapped.data.qpos - ref, g.unwrapped.data.qvel]) for g in gyms])

    def copy_states(env, ids, rng):
        s = env.sim.get_state(ids)
        s.y[:] = states[ids]
        env.sim.set_state(s)

    env = simphant.gym.make("Reacher-v5", num_envs=n, backend=backend, reset_events=[copy_states])
    assert env.sim.backend.startswith("reduced-aba")
    obs, _ = env.reset(seed=0)
    err = {"obs": float(np.max(np.abs(obs - gym_obs))), "tip": 0.0, "reward": 0.0, "tip_vs_gym": 0.0,
           "reward_vs_gym": 0.0, "steps": 0, "max_abs_elbow": 0.0}
    assert err["obs"] <= TOL, err
    rng = np.random.default_rng(5)
    for k in range(1, 51):
        actions = rng.uniform(-0.05, 0.05, (n, 2))
        obs, reward, term, trunc, _ = env.step(actions)
        for i in range(n):
            o, r, t, tr, _ = gyms[i].step(actions[i])
            err["steps"] += 1
            elbow = gyms[i].unwrapped.data.qpos[1]
            err["max_abs_elbow"] = max(err["max_abs_elbow"], abs(elbow))
            assert abs(elbow) < 2.9 and not np.any(gyms[i].unwrapped.data.qfrc_constraint)
            err["obs"] = max(err["obs"], float(np.max(np.abs(obs[i, :8] - o[:8]))))
            vec = _fresh_vec(gyms[i])
            err["tip"] = max(err["tip"], float(np.max(np.abs(obs[i, 8:] - vec[:2]))))
            err["tip_vs_gym"] = max(err["tip_vs_gym"], float(np.max(np.abs(obs[i, 8:] - o[8:]))))
            r_fresh = -np.linalg.norm(vec) - np.sum(actions[i] ** 2)
            err["reward"] = max(err["reward"], abs(reward[i] - r_fresh))
            err["reward_vs_gym"] = max(err["reward_vs_gym"], abs(reward[i] - r))
            assert not term[i] and not t
            assert bool(trunc[i]) == tr == (k == 50), k
    assert err["obs"] <= TOL and err["tip"] <= TOL and err["reward"] <= TOL, err
    assert err["tip_vs_gym"] <= LAG and err["reward_vs_gym"] <= LAG, err
    print(f"\nReacher-v5 num_envs={n} backend={env.sim.backend}: {err}")
    for g in gyms:
        g.close()
    return err


def test_one_env_in_lockstep_with_gymnasium():
    lockstep(1)


@pytest.mark.parametrize("backend", ["cpu", "cpu-simd"])
def test_batch_of_eight_in_lockstep_with_gymnasium(backend):
    lockstep(8, backend)


def test_definitions_match_gymnasium():
    g = gym.make("Reacher-v5")
    env = simphant.gym.make("Reacher-v5")
    u = g.unwrapped
    assert env.frame_skip == u.frame_skip == 2
    assert env.sim.dt == u.model.opt.timestep == 0.01
    assert env.max_episode_steps == g.spec.max_episode_steps == 50
    np.testing.assert_array_equal(env.single_action_space.low, g.action_space.low)
    np.testing.assert_array_equal(env.single_action_space.high, g.action_space.high)
    assert env.single_observation_space.shape == g.observation_space.shape == (10,)
    np.testing.assert_array_equal(env.gear, np.array([[200.0, 0], [0, 200.0], [0, 0], [0, 0]]))
    g.close()


def test_control_cost_charges_the_unclipped_action():
    """Gymnasium's reward charges |action|^2 as given; MuJoCo clamps the control to the
    ctrlrange. An action of 1.5 on the shoulder: torque 200 N m (clipped to 1), cost 2.25."""
    g = gym.make("Reacher-v5")
    g.reset(seed=2)
    state = np.concatenate([g.unwrapped.data.qpos - g.unwrapped.model.qpos0, g.unwrapped.data.qvel])

    def copy_state(env, ids, rng):
        s = env.sim.get_state(ids)
        s.y[:] = state
        env.sim.set_state(s)

    env = simphant.gym.make("Reacher-v5", backend="cpu", reset_events=[copy_state])
    env.reset(seed=0)
    a = np.array([1.5, -0.2])
    obs, reward, *_ = env.step(a[None])
    o, r, *_ = g.step(a)
    np.testing.assert_array_equal(env.sim.joint_state()[2][0], [200.0, -40.0, 0.0, 0.0])
    np.testing.assert_array_equal(env.last_actions[0], a)
    assert abs(obs[0, :8] - o[:8]).max() <= TOL
    assert abs(reward[0] - (-np.linalg.norm(_fresh_vec(g)) - 2.29)) <= TOL
    g.close()


def test_reset_draws_like_gymnasium():
    """2000 resets: arm qpos in [-0.1, 0.1], the goal inside the 0.2 disc and on the target's
    joints, arm qvel in [-0.005, 0.005], the target at rest."""
    env = simphant.gym.make("Reacher-v5", num_envs=2000, backend="cpu")
    obs, _ = env.reset(seed=4)
    q, qd, _ = env.sim.joint_state()
    assert np.all(np.abs(q[:, :2]) <= 0.1) and q[:, :2].std() == pytest.approx(0.2 / np.sqrt(12), rel=0.05)
    goal = obs[:, 4:6]
    assert np.all(np.linalg.norm(goal, axis=1) < 0.2) and goal.std() > 0.05
    np.testing.assert_allclose(q[:, 2:] + np.array([0.1, -0.1]), goal, rtol=0, atol=1e-15)
    assert np.all(np.abs(qd[:, :2]) <= 0.005) and np.all(qd[:, 2:] == 0)
    # the target body sits at the goal: fingertip - target = fingertip - (goal, .01)
    tip = env.fingertip(env.sim)
    np.testing.assert_allclose(obs[:, 8:], tip[:, :2] - goal, rtol=0, atol=1e-14)


def test_a_name_without_version_is_the_latest():
    env = simphant.gym.make("Reacher", num_envs=2, backend="cpu")
    assert env.max_episode_steps == 50 and env.single_observation_space.shape == (10,)
    assert simphant.gym.make("InvertedDoublePendulum").frame_skip == 5
    with pytest.raises(KeyError, match="no task 'Reach'"):
        simphant.gym.make("Reach")
