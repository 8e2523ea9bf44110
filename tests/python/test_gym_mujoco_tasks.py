"""simphant.gym's InvertedPendulum-v5 and InvertedDoublePendulum-v5
(python/simphant/gym/mujoco_tasks.py) in lockstep with Gymnasium's own MuJoCo envs.

Each SimPhant env (num_envs 1, and 8 on the cpu and cpu-simd backends) starts from the
states of as many `gymnasium.make(...)` envs after their own reset (copied in by a reset
event), and both take the same random actions for 50 steps while not terminated: the
observations and rewards agree to 1e-8 and the termination flags exactly. The actions
are small (|a| <= 0.3 of the ctrlrange, and the rollout ends at termination), so the
cart stays well inside the slider's range [-1, 1] (asserted: |x| < 0.9), where MuJoCo's
limit constraint is inactive (qfrc_constraint = 0, asserted) and SimPhant's limit law is
0; the two tasks are contact-free.

InvertedDoublePendulum's reward and termination read the tip site. Gymnasium takes
site_xpos after mj_step, which with RK4 holds the kinematics of the last substep's final
Runge-Kutta stage (q_n + h qd_3) rather than of the new state; SimPhant's tip is at the
new state. So its reward is compared to 1e-8 with the reward recomputed from Gymnasium's
state after mj_kinematics (the same formula), and with Gymnasium's reported reward to the
size of that lag (1e-4); terminations equal Gymnasium's flags (and, were the two tip
heights ever to straddle 1, the recomputed flag). The largest differences are printed
(pytest -s) for docs/python.md.
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import require

mujoco = require("mujoco", "the lockstep check against Gymnasium's MuJoCo envs")
require("imageio", "Gymnasium's MuJoCo envs import it")
gym = require("gymnasium", "the lockstep check against Gymnasium's MuJoCo envs")

import simphant.gym  # noqa: E402

STEPS = 50
TOL = 1e-8
SEED = 7
REPORT = {}


def _fresh_tip(env) -> np.ndarray:
    """Gymnasium env's tip site at its current qpos (mj_kinematics on a copy)."""
    u = env.unwrapped
    d = mujoco.MjData(u.model)
    d.qpos[:] = u.data.qpos
    mujoco.mj_kinematics(u.model, d)
    return d.site_xpos[0].copy()


def _idp_reward(env, x: float, y: float) -> float:
    v1, v2 = env.unwrapped.data.qvel[1:3]
    return 10.0 * (y > 1.0) - (0.01 * x ** 2 + (y - 2.0) ** 2) - (1e-3 * v1 ** 2 + 5e-3 * v2 ** 2)


def lockstep(task: str, n: int, backend: str = "auto") -> dict:
    gyms = [gym.make(task) for _ in range(n)]
    gym_obs = np.stack([g.reset(seed=SEED + i)[0] for i, g in enumerate(gyms)])
    states = np.stack([np.concatenate([g.unwrapped.data.qpos, g.unwrapped.data.qvel]) for g in gyms])

    def copy_states(env, ids, rng):  # after the task's own reset noise: Gymnasium's states
        s = env.sim.get_state(ids)
        s.y[:] = states[ids]
        env.sim.set_state(s)

    env = simphant.gym.make(task, num_envs=n, backend=backend, reset_events=[copy_states])
    assert env.sim.backend.startswith("reduced-aba")
    obs, _ = env.reset(seed=0)
    err = {"obs": float(np.max(np.abs(obs - gym_obs))), "reward": 0.0, "reward_vs_gym": 0.0, "steps": 0,
           "max_abs_x": float(np.max(np.abs(states[:, 0])))}
    assert err["obs"] <= TOL, err
    rng = np.random.default_rng(1)
    a_max = 0.3 * env.single_action_space.high
    live = np.ones(n, bool)
    for _ in range(STEPS):
        if not live.any():
            break
        actions = rng.uniform(-a_max, a_max, (n, 1))
        obs, reward, term, trunc, _ = env.step(actions)
        for i in np.flatnonzero(live):
            o, r, t, tr, _ = gyms[i].step(actions[i])
            err["steps"] += 1
            x = gyms[i].unwrapped.data.qpos[0]
            err["max_abs_x"] = max(err["max_abs_x"], abs(x))
            assert abs(x) < 0.9, "the cart must stay inside its limits (MuJoCo's constraint inactive)"
            assert not np.any(gyms[i].unwrapped.data.qfrc_constraint), "MuJoCo's limit constraint became active"
            err["obs"] = max(err["obs"], float(np.max(np.abs(obs[i] - o))))
            if task == "InvertedDoublePendulum-v5":
                tip = _fresh_tip(gyms[i])
                r_fresh, t_fresh = _idp_reward(gyms[i], tip[0], tip[2]), bool(tip[2] <= 1)
                err["reward"] = max(err["reward"], abs(reward[i] - r_fresh))
                err["reward_vs_gym"] = max(err["reward_vs_gym"], abs(reward[i] - r))
                stale_y = gyms[i].unwrapped.data.site_xpos[0][2]
                assert bool(term[i]) == (t if (stale_y <= 1) == (tip[2] <= 1) else t_fresh)
            else:
                err["reward"] = max(err["reward"], abs(reward[i] - r))
                assert bool(term[i]) == t
            assert not trunc[i] and not tr
            if t:
                live[i] = False
    assert err["steps"] >= 2 * n, err  # the comparison ran
    assert err["obs"] <= TOL and err["reward"] <= TOL, err
    assert err["reward_vs_gym"] <= 1e-4, err
    REPORT[(task, n, env.sim.backend)] = err
    print(f"\n{task} num_envs={n} backend={env.sim.backend}: {err}")
    for g in gyms:
        g.close()
    return err


@pytest.mark.parametrize("task", ["InvertedPendulum-v5", "InvertedDoublePendulum-v5"])
def test_one_env_in_lockstep_with_gymnasium(task):
    lockstep(task, 1)


@pytest.mark.parametrize("backend", ["cpu", "cpu-simd"])
@pytest.mark.parametrize("task", ["InvertedPendulum-v5", "InvertedDoublePendulum-v5"])
def test_batch_of_eight_in_lockstep_with_gymnasium(task, backend):
    lockstep(task, 8, backend)


def test_definitions_match_gymnasium():
    for task, frame_skip in (("InvertedPendulum-v5", 2), ("InvertedDoublePendulum-v5", 5)):
        g = gym.make(task)
        env = simphant.gym.make(task)
        u = g.unwrapped
        assert env.frame_skip == u.frame_skip == frame_skip
        assert env.sim.dt == u.model.opt.timestep
        assert env.max_episode_steps == g.spec.max_episode_steps == 1000
        np.testing.assert_array_equal(env.single_action_space.low, g.action_space.low)
        np.testing.assert_array_equal(env.single_action_space.high, g.action_space.high)
        assert env.single_observation_space.shape == g.observation_space.shape
        # the motor mapping from the MJCF actuator table: force = gear * ctrl on the slider
        np.testing.assert_array_equal(env.gear[:, 0], u.model.actuator_gear[0, 0] * (np.arange(u.model.nv) == 0))
        g.close()


def test_reset_noise_and_registry():
    env = simphant.gym.make("InvertedDoublePendulum-v5", num_envs=2000)
    obs, _ = env.reset(seed=3)
    q, qd, _ = env.sim.joint_state()
    assert np.all(np.abs(q) <= 0.1) and q.std() == pytest.approx(0.2 / np.sqrt(12), rel=0.05)
    assert qd.std() == pytest.approx(0.1, rel=0.05)  # normal qvel noise, v5's default
    assert np.all(obs[:, 8] == 0)
    env = simphant.gym.make("InvertedPendulum-v5", num_envs=2000, reset_noise_scale=0.05)
    env.reset(seed=3)
    q, qd, _ = env.sim.joint_state()
    assert np.all(np.abs(q) <= 0.05) and np.all(np.abs(qd) <= 0.05)
    assert qd.std() == pytest.approx(0.1 / np.sqrt(12), rel=0.05)
    v = gym.make_vec("simphant/InvertedPendulum-v5", num_envs=3)
    assert v.num_envs == 3 and v.single_action_space.shape == (1,)
    with pytest.raises(ValueError, match="solver"):
        simphant.gym.make("InvertedPendulum-v5", solver="dae")
    # a switch is True or False: "no" is refused, not read as true
    for task, option in (("Hopper-v5", "terminate_when_unhealthy"),
                         ("HalfCheetah-v5", "exclude_current_positions_from_observation")):
        with pytest.raises(ValueError, match=rf"^{option}: True or False \(got 'no'\)"):
            simphant.gym.make(task, num_envs=1, **{option: "no"})


def test_autoreset_and_cga_solver():
    env = simphant.gym.make("InvertedPendulum-v5", num_envs=4, solver="cga", backend="cpu")
    obs, _ = env.reset(seed=0)
    ended = False
    for _ in range(200):  # full push: the pole falls within a few steps
        obs, r, term, trunc, _ = env.step(np.full((4, 1), 3.0))
        if ended:  # NEXT_STEP autoreset: the step after the end starts a new episode
            assert np.all(np.abs(obs[prev]) <= 0.01) and np.all(r[prev] == 0) and not term[prev].any()
            break
        if term.any():
            assert np.all(r[term] == 0) and np.all(np.abs(obs[term, 1]) > 0.2)
            ended, prev = True, term.copy()
    assert ended


def test_bench_script_runs(capsys):
    """bench/gym_mujoco_tasks.py (docs/performance.md), one short round at 1 env."""
    import importlib.util

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("gym_mujoco_bench", ROOT / "bench" / "gym_mujoco_tasks.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--envs", "1", "--rounds", "1", "--seconds", "0.05", "--async-max", "0"]) == 0
    out = capsys.readouterr().out
    assert "| 1 |" in out and "skipped" in out


def test_action_map_is_checked():
    scene = simphant.gym.mujoco_tasks.mjcf_scene(simphant.gym.mujoco_tasks.asset_path("inverted_pendulum.xml"))
    with pytest.raises(ValueError, match="action_map"):
        simphant.gym.VectorEnv(scene, 2, ["joint_q"], action_low=-1, action_high=1, action_map=np.ones((3, 1)))
    env = simphant.gym.VectorEnv(scene, 2, ["joint_q"], action_low=-1, action_high=1,
                                 action_map=[[2.0, 0.0], [0.0, -3.0]], backend="cpu")
    assert env.single_action_space.shape == (2,)
    env.reset(seed=0)
    env.step(np.array([[0.5, 0.25], [4.0, -1.0]]))  # clipped to [-1, 1], then mapped
    np.testing.assert_array_equal(env.sim.joint_state()[2], [[1.0, -0.75], [2.0, 3.0]])
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        env.step(np.zeros((2, 1)))


def _state_event(state):
    """A reset event that writes `state` ([qpos, qvel]) into every reset env."""

    def event(env, ids, rng):
        s = env.sim.get_state(ids)
        s.y[:] = state
        env.sim.set_state(s)

    return event


def test_truncation_at_step_1000_like_gymnasium():
    """InvertedPendulum-v5 from rest (reset_noise_scale 0) under a stabilising feedback
    a = 0.3 x + 3 theta + 0.3 xdot + 0.3 thetadot (each env from its own observation; the
    pole is held upright, the cart within 0.02 m of 0): neither env terminates and both
    truncate at step 1000 exactly (v5's max_episode_steps), with reward 1 on every step;
    the next step starts a new episode (NEXT_STEP autoreset)."""
    env = simphant.gym.make("InvertedPendulum-v5", reset_noise_scale=0.0, backend="cpu")
    g = gym.make("InvertedPendulum-v5", reset_noise_scale=0.0)
    obs, _ = env.reset(seed=0)
    o, _ = g.reset(seed=0)
    gain = np.array([0.3, 3.0, 0.3, 0.3])
    for k in range(1, 1001):
        obs, r, term, trunc, _ = env.step(np.clip(obs @ gain, -3, 3)[:, None])
        o, gr, gt, gtr, _ = g.step(np.clip([o @ gain], -3, 3))
        assert not term[0] and not gt, k
        assert bool(trunc[0]) == gtr == (k == 1000), k
        assert r[0] == gr == 1.0
    assert abs(o[0]) < 0.05
    np.testing.assert_allclose(obs[0], o, rtol=0, atol=1e-6)  # the same closed loop
    obs, r, term, trunc, _ = env.step(np.zeros((1, 1)))  # the autoreset step
    assert r[0] == 0 and not term[0] and not trunc[0]
    np.testing.assert_array_equal(obs[0], np.zeros(4))  # reset to rest
    g.close()


@pytest.mark.parametrize("task", ["InvertedPendulum-v5", "InvertedDoublePendulum-v5"])
def test_max_episode_steps_override_truncates(task):
    """max_episode_steps (a VectorEnv argument) overrides v5's 1000, as gymnasium.make's does."""
    env = simphant.gym.make(task, max_episode_steps=3, reset_noise_scale=0.0, backend="cpu")
    g = gym.make(task, max_episode_steps=3, reset_noise_scale=0.0)
    env.reset(seed=0)
    g.reset(seed=0)
    for k in range(1, 4):
        _, _, term, trunc, _ = env.step(np.zeros((1, 1)))
        _, _, gt, gtr, _ = g.step(np.zeros(1))
        assert not term[0] and not gt
        assert bool(trunc[0]) == gtr == (k == 3)
    g.close()


@pytest.mark.parametrize("task", ["InvertedPendulum-v5", "InvertedDoublePendulum-v5"])
def test_velocity_observation_beyond_10(task):
    """A state with |qvel| > 10, set in both envs: InvertedDoublePendulum observes
    clip(qvel, -10, 10), InvertedPendulum qvel as it is; the observations agree at the
    state and after one env step (zero action, the cart well inside its limits)."""
    g = gym.make(task)
    g.reset(seed=0)
    u = g.unwrapped
    qpos = np.array([0.1, 0.05, -0.05][:u.model.nq])
    qvel = np.array([11.0, -13.0, 12.0][:u.model.nv])
    u.set_state(qpos, qvel)
    env = simphant.gym.make(task, backend="cpu", reset_events=[_state_event(np.concatenate([qpos, qvel]))])
    obs, _ = env.reset(seed=0)
    np.testing.assert_allclose(obs[0], u._get_obs(), rtol=0, atol=1e-15)
    if task == "InvertedDoublePendulum-v5":
        np.testing.assert_array_equal(obs[0, 5:8], [10.0, -10.0, 10.0])
    else:
        np.testing.assert_array_equal(obs[0, 2:], qvel)
    obs, *_ = env.step(np.zeros((1, 1)))
    o, *_ = g.step(np.zeros(1))
    assert abs(u.data.qpos[0]) < 0.9 and not np.any(u.data.qfrc_constraint)
    np.testing.assert_allclose(obs[0], o, rtol=0, atol=TOL)
    if task == "InvertedPendulum-v5":
        assert np.max(np.abs(o[2:])) > 10  # still beyond 10: observed unclipped
    else:
        assert np.max(np.abs(u.data.qvel)) > 10  # still beyond 10: clipped
    g.close()


@pytest.mark.parametrize("task", ["InvertedPendulum-v5", "InvertedDoublePendulum-v5", "Reacher-v5", "Hopper-v5",
                                  "Walker2d-v5", "HalfCheetah-v5", "Ant-v5", "Pusher-v5", "Humanoid-v5"])
def test_torch_env_equals_numpy_env(task):
    """torch=True (TorchVectorEnv on the CPU): the same seeded resets and actions give the
    same observations, rewards and flags as the NumPy env, bit for bit, over 60 steps with
    autoresets; the NumPy env is the one checked against Gymnasium above."""
    torch = require("torch", "the torch vector env")
    n = 4
    env_np = simphant.gym.make(task, num_envs=n, backend="cpu")
    env_t = simphant.gym.make(task, num_envs=n, backend="cpu", torch=True)
    obs_np, _ = env_np.reset(seed=11)
    obs_t, _ = env_t.reset(seed=11)
    assert isinstance(obs_t, torch.Tensor)
    np.testing.assert_array_equal(obs_t.numpy(), obs_np)
    rng = np.random.default_rng(12)
    high = env_np.single_action_space.high
    for _ in range(60):
        a = rng.uniform(-1.2 * high, 1.2 * high, (n, len(high)))
        o1, r1, t1, tr1, _ = env_np.step(a)
        o2, r2, t2, tr2, _ = env_t.step(torch.from_numpy(a))
        np.testing.assert_array_equal(o2.numpy(), o1)
        np.testing.assert_array_equal(r2.numpy(), r1)
        np.testing.assert_array_equal(t2.numpy(), t1)
        np.testing.assert_array_equal(tr2.numpy(), tr1)


def test_actuator_map_applies_a_general_motors_gain(tmp_path):
    """A <general> motor's force is gainprm[0] ctrl: the action map holds gear x gain."""
    xml = tmp_path / "g.xml"
    xml.write_text('<mujoco><worldbody><body><joint name="j"/><geom size="0.1"/></body></worldbody><actuator>'
                   '<general name="a" joint="j" gear="3" gainprm="2.5" ctrlrange="-1 1"/></actuator></mujoco>')
    g, low, high, names = simphant.gym.mujoco_tasks.actuator_map(str(xml))
    np.testing.assert_array_equal(g, [[7.5]])
    assert names == ["a"] and low[0] == -1 and high[0] == 1
