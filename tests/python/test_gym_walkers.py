"""simphant.gym's Hopper-v5, Walker2d-v5 and HalfCheetah-v5 (python/simphant/gym/mujoco_tasks.py) against
Gymnasium's own envs on MuJoCo.

- In flight, the definitions and the tree's dynamics: each SimPhant env starts from the
  state of a `gymnasium.make(task)` env lifted 1 m (no contact), with the limited hinges
  well inside their ranges (MuJoCo's limit constraints inactive; asserted through
  qfrc_constraint = 0 at every step), and both take the same random actions, some beyond
  the ctrlrange (clipped, and charged unclipped). With one RK4 step per MuJoCo timestep
  (substeps=1, MuJoCo's own integration) the observations and rewards agree to 1e-8 and
  the termination flags exactly; a narrowed healthy_z_range (lower bound 2 m) and pitch
  rates of up to 2 rad/s make episodes end by height and by pitch within the rollout, so
  both termination rules are exercised (the cheetah never terminates: it falls for 10
  steps). With the default substeps they agree to 1e-8 with MuJoCo run at the same finer
  step, and differ from MuJoCo at its own step by that step's truncation error (printed).
- On the ground, the contact law: from Gymnasium's own reset states with the hinges that
  rest on their upper stop (the thighs and legs, where the reset leaves them and where
  MuJoCo's soft limit constraint and SimPhant's limit spring differ) bent 0.1 rad off it,
  without actions, the feet land at once and the torso's height, pitch and the reward
  stay within the difference of the two contact laws stated in docs/python.md ("Hopper-v5,
  Walker2d-v5 and HalfCheetah-v5") over 50 steps.
- HalfCheetah's file integrates with MuJoCo's Euler: the checks above switch Gymnasium's
  model to RK4, and one more compares with the file's Euler as shipped.
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import require, states_event

mujoco = require("mujoco", "the comparison with Gymnasium's planar runners")
require("imageio", "Gymnasium's MuJoCo envs import it")
gym = require("gymnasium", "the comparison with Gymnasium's planar runners")

import simphant.gym  # noqa: E402

TOL = 1e-8
TASKS = ["Hopper-v5", "Walker2d-v5", "HalfCheetah-v5"]
#: HalfCheetah's file integrates with MuJoCo's Euler; the comparisons switch Gymnasium's
#: model to RK4 (SimPhant's integrator), and test_half_cheetah_against_mujocos_euler
#: measures what the file's Euler changes.
RK4_ONLY = {"HalfCheetah-v5"}
#: landing: max |difference| of rootz [m], rooty [rad] and the reward over 0.4 s
#: (measured: hopper 6.4 mm, 2.8e-3 rad, 0.031; walker 2.1 mm, 8.5e-3 rad, 0.063; cheetah,
#: over 2.5 s, 14 mm, 0.016 rad, 0.14)
LANDING_BOUND = {"Hopper-v5": (0.01, 6e-3, 0.05), "Walker2d-v5": (5e-3, 0.015, 0.1),
                 "HalfCheetah-v5": (0.025, 0.025, 0.2)}


def make_gym(task, divide=1, **kw):
    """Gymnasium's env, RK4 (RK4_ONLY), its timestep divided by `divide` and its
    frame_skip multiplied by it (the same env step, in finer MuJoCo steps)."""
    g = gym.make(task, **kw)
    u = g.unwrapped
    if task in RK4_ONLY:
        u.model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    u.model.opt.timestep /= divide
    u.frame_skip *= divide
    return g


def _limited_hinges(m):
    """qpos indices of the limited hinges and their ranges."""
    idx = [j for j in range(m.njnt) if m.jnt_limited[j] and m.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE]
    return np.array([m.jnt_qposadr[j] for j in idx]), m.jnt_range[idx]


def _flight_states(gyms, rng, lift):
    """Gymnasium's reset states lifted by `lift` [m], the limited hinges in the middle fifth of their
    ranges, random velocities; even envs tumble (pitch rate up to 2 rad/s), odd ones fall
    level. Written into the Gymnasium envs too."""
    out = []
    for i, g in enumerate(gyms):
        u = g.unwrapped
        qpos, qvel = u.data.qpos.copy(), u.data.qvel.copy()
        idx, rng_j = _limited_hinges(u.model)
        mid, half = rng_j.mean(axis=1), 0.1 * (rng_j[:, 1] - rng_j[:, 0])
        qpos[idx] = rng.uniform(mid - half, mid + half)
        qpos[1] += lift
        qvel[:] = rng.uniform(-1.0, 1.0, len(qvel))
        qvel[idx] = rng.uniform(-0.3, 0.3, len(idx))
        if i % 2 == 0:
            qpos[2] = rng.uniform(-0.15, 0.15)
            qvel[2] = rng.uniform(-2.0, 2.0)
        else:
            qpos[2], qvel[2] = 0.0, rng.uniform(-0.1, 0.1)
        u.set_state(qpos, qvel)
        out.append(np.concatenate([qpos - u.model.qpos0, qvel]))
    return np.array(out)


def flight(task, n, substeps, divide=1):
    """SimPhant with `substeps` against Gymnasium's env in steps of its timestep / divide.
    The cheetah never terminates: lifted 3 m, it falls for 10 steps (0.5 s) in the air."""
    cheetah = task == "HalfCheetah-v5"
    kw = {} if cheetah else dict(healthy_z_range=(2.0, float("inf")), healthy_angle_range=(-0.2, 0.2))
    gyms = [make_gym(task, divide, **kw) for _ in range(n)]
    for i, g in enumerate(gyms):
        g.reset(seed=5 + i)
    rng = np.random.default_rng(3)
    states = _flight_states(gyms, rng, 3.0 if cheetah else 1.0)
    gym_obs = np.stack([g.unwrapped._get_obs() for g in gyms])
    sub = {} if substeps is None else {"substeps": substeps}
    env = simphant.gym.make(task, num_envs=n, backend="cpu", reset_events=[states_event(states)], **sub, **kw)
    assert env.sim.backend.startswith("reduced-aba")
    obs, _ = env.reset(seed=0)
    err = {"obs": float(np.max(np.abs(obs - gym_obs))), "reward": 0.0, "steps": 0, "ended_z": 0, "ended_angle": 0}
    live = np.ones(n, bool)
    idx, rng_j = _limited_hinges(gyms[0].unwrapped.model)
    mid = rng_j.mean(axis=1)
    for _ in range(10 if cheetah else 60):
        if not live.any():
            break
        # a PD law toward the middle of the ranges (so no stop is reached) plus noise, on
        # each Gymnasium env's state; the first action of every third env beyond the ctrlrange
        qpos = np.stack([g.unwrapped.data.qpos for g in gyms])
        qvel = np.stack([g.unwrapped.data.qvel for g in gyms])
        actions = 2.0 * (mid - qpos[:, idx]) - 0.2 * qvel[:, idx] + rng.uniform(-0.3, 0.3, (n, len(idx)))
        actions[:, 0] = np.where(np.arange(n) % 3 == 0, 1.3, actions[:, 0])
        obs, reward, term, trunc, _ = env.step(actions)
        for i in np.flatnonzero(live):
            o, r, t, tr, _ = gyms[i].step(actions[i])
            d = gyms[i].unwrapped.data
            assert d.ncon == 0 and not np.any(d.qfrc_constraint), "contact or a joint limit became active"
            err["steps"] += 1
            err["obs"] = max(err["obs"], float(np.max(np.abs(obs[i] - o))))
            err["reward"] = max(err["reward"], abs(reward[i] - r))
            assert bool(term[i]) == t and not trunc[i] and not tr
            if t:
                live[i] = False
                err["ended_z" if d.qpos[1] <= 2.0 else "ended_angle"] += 1
    print(f"\n{task} in flight, num_envs={n}, substeps={substeps}: {err}")
    assert cheetah or not live.any(), "every episode ends within the rollout"
    return err


@pytest.mark.parametrize("n", [1, 6])
@pytest.mark.parametrize("task", TASKS)
def test_flight_in_lockstep_with_gymnasium(task, n):
    err = flight(task, n, 1)
    assert err["obs"] <= TOL and err["reward"] <= TOL, err
    if n > 1 and task not in RK4_ONLY:
        assert err["ended_z"] >= 1 and err["ended_angle"] >= 1, err


#: The default substeps against MuJoCo's RK4 at the file's timestep: the difference is the
#: truncation error of MuJoCo's coarser step (measured in the observation: hopper 6.5e-9,
#: walker 8.4e-6 on its light legs, cheetah 5.9e-3 on its stiff leg springs; docs/python.md)
DEFAULT_SUBSTEPS = {"Hopper-v5": 4, "Walker2d-v5": 4, "HalfCheetah-v5": 5}


@pytest.mark.parametrize("task", TASKS)
def test_flight_with_the_default_substeps(task):
    """The default substeps agree with MuJoCo's RK4 run at the same step (its timestep
    divided as SimPhant's) to 1e-8: the env's dt is the file's timestep / substeps."""
    err = flight(task, 6, None, DEFAULT_SUBSTEPS[task])
    assert err["obs"] <= TOL and err["reward"] <= TOL, err
    coarse = flight(task, 6, None, 1)
    print(f"{task}: the default substeps against MuJoCo's own step: {coarse['obs']:.2e}")


@pytest.mark.parametrize("task", TASKS)
def test_landing_within_the_contact_laws_difference(task):
    n, steps = 8, 50
    gyms = [make_gym(task) for _ in range(n)]
    states = []
    for i, g in enumerate(gyms):
        g.reset(seed=20 + i)
        u = g.unwrapped
        qpos = u.data.qpos.copy()
        idx, rng_j = _limited_hinges(u.model)
        qpos[idx[rng_j[:, 1] == 0]] -= 0.1  # off their upper stops: the two limit laws differ
        u.set_state(qpos, u.data.qvel)
        states.append(np.concatenate([qpos - u.model.qpos0, u.data.qvel]))
    env = simphant.gym.make(task, num_envs=n, backend="cpu", reset_events=[states_event(np.array(states))])
    env.reset(seed=0)
    worst = np.zeros(3)  # max |difference| of rootz [m], rooty [rad], the reward
    landed = 0  # MuJoCo's largest contact count
    zero = np.zeros((n, env.single_action_space.shape[0]))
    for _ in range(steps):
        obs, reward, term, _, _ = env.step(zero)
        for i in range(n):
            o, r, t, _, _ = gyms[i].step(zero[i])
            landed = max(landed, gyms[i].unwrapped.data.ncon)
            worst = np.maximum(worst, np.abs([obs[i, 0] - o[0], obs[i, 1] - o[1], reward[i] - r]))
            assert not term[i] and not t, "every runner lands and stays up for the 0.4 s"
    print(f"\n{task} landing, {n} envs x {steps} steps: max |d rootz| {worst[0]:.3g} m, "
          f"|d rooty| {worst[1]:.3g} rad, |d reward| {worst[2]:.3g}")
    assert landed >= 1
    assert np.all(worst < LANDING_BOUND[task]), worst


@pytest.mark.parametrize("task, n_obs, gear, noise", [
    ("Hopper-v5", 11, [200.0] * 3, 5e-3), ("Walker2d-v5", 17, [100.0] * 6, 5e-3),
    ("HalfCheetah-v5", 17, [120.0, 90.0, 60.0, 120.0, 60.0, 30.0], 0.1)])
def test_definitions_and_options(task, n_obs, gear, noise):
    g = gym.make(task)
    u = g.unwrapped
    env = simphant.gym.make(task)
    sub = DEFAULT_SUBSTEPS[task]
    assert env.frame_skip == sub * u.frame_skip and env.sim.dt * sub == pytest.approx(u.model.opt.timestep, rel=1e-15)
    assert env.max_episode_steps == g.spec.max_episode_steps == 1000
    np.testing.assert_array_equal(env.single_action_space.low, g.action_space.low)
    np.testing.assert_array_equal(env.single_action_space.high, g.action_space.high)
    assert env.single_observation_space.shape == g.observation_space.shape == (n_obs,)
    nv = u.model.nv
    np.testing.assert_array_equal(env.gear, np.eye(nv)[:, 3:] * np.array(gear))
    full = simphant.gym.make(task, exclude_current_positions_from_observation=False)
    assert full.single_observation_space.shape == (n_obs + 1,)
    env = simphant.gym.make(task.split("-")[0], num_envs=3000)
    obs, _ = env.reset(seed=2)
    q, qd, _ = env.sim.joint_state()
    assert np.all(np.abs(q) <= noise) and q.std() == pytest.approx(2 * noise / np.sqrt(12), rel=0.05)
    if task == "HalfCheetah-v5":  # qvel noise_scale * N(0, 1), observed unclipped
        assert qd.std() == pytest.approx(noise, rel=0.05)
    else:
        assert np.all(np.abs(qd) <= noise)
    np.testing.assert_allclose(obs[:, 0], u.model.qpos0[1] + q[:, 1], rtol=0, atol=1e-15)  # rootz as MuJoCo's qpos
    with pytest.raises(ValueError, match="substeps"):
        simphant.gym.make(task, substeps=0)


def test_half_cheetah_against_mujocos_euler():
    """Gymnasium's HalfCheetah-v5 as shipped integrates with MuJoCo's semi-implicit Euler at
    0.01 s: from its own reset states, without actions (under random actions the cheetah
    tumbles within a second, and any difference grows), SimPhant's RK4 env differs from it
    by Euler's error and the contact laws (stated in docs/python.md)."""
    n, steps = 8, 20
    gyms = [gym.make("HalfCheetah-v5") for _ in range(n)]
    states = []
    for i, g in enumerate(gyms):
        g.reset(seed=40 + i)
        u = g.unwrapped
        states.append(np.concatenate([u.data.qpos - u.model.qpos0, u.data.qvel]))
    env = simphant.gym.make("HalfCheetah-v5", num_envs=n, backend="cpu", reset_events=[states_event(np.array(states))])
    env.reset(seed=0)
    worst = np.zeros(3)
    actions = np.zeros((n, 6))
    for _ in range(steps):
        obs, reward, _, _, _ = env.step(actions)
        for i in range(n):
            o, r, _, _, _ = gyms[i].step(actions[i])
            worst = np.maximum(worst, np.abs([obs[i, 0] - o[0], obs[i, 1] - o[1], reward[i] - r]))
    print(f"\nHalfCheetah-v5 against Gymnasium's Euler env, {n} envs x {steps} steps: max |d rootz| {worst[0]:.3g} m, "
          f"|d rooty| {worst[1]:.3g} rad, |d reward| {worst[2]:.3g}")
    # measured 2.0 cm, 0.020 rad, 0.23
    assert np.all(worst < (0.03, 0.03, 0.35)), worst


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_forward_reward_uses_the_step_displacement_across_autoresets(mode):
    """x_velocity is rootx's displacement over the step; after an autoreset the new
    episode's first step differences from the reset state, not the ended episode's.
    NEXT_STEP: the reset step has reward 0 and the next step starts from the reset state.
    SAME_STEP: the ending step's reward is its own displacement, to the state before the
    reset (rootx is infos["final_obs"][i][0] with the positions observed), and the next
    step starts from the reset state."""
    n = 4
    same = mode == "same_step"
    env = simphant.gym.make("Hopper-v5", num_envs=n, backend="cpu", healthy_reward=0.0, ctrl_cost_weight=0.0,
                            healthy_angle_range=(-0.05, 0.05), exclude_current_positions_from_observation=False,
                            autoreset_mode=gym.vector.AutoresetMode.SAME_STEP if same else
                            gym.vector.AutoresetMode.NEXT_STEP)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(120):
        x0 = env.sim.joint_state()[0][:, 0].copy()
        obs, r, term, trunc, info = env.step(rng.uniform(-1, 1, (n, 3)))
        x1 = obs[:, 0].copy()  # rootx (MuJoCo's qpos[0] = SimPhant's q: its ref is 0)
        if same:
            done = term | trunc
            ends += int(done.sum())
            for i in np.flatnonzero(done):
                x1[i] = info["final_obs"][i][0]
            ok = np.ones(n, bool)
        else:
            ok = ~((r == 0) & ~term)  # NEXT_STEP autoreset: reward 0, the action ignored
            ends += int((~ok).sum())
        np.testing.assert_allclose(r[ok], ((x1 - x0) / 0.008)[ok], rtol=1e-12, atol=1e-12)
    assert ends >= 1
