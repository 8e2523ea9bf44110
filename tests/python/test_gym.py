"""simphant.gym.VectorEnv against Gymnasium's checks and by hand."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.utils.passive_env_checker import (_check_box_action_space, _check_box_observation_space, check_obs,
                                                 check_space)
from gymnasium.vector import AutoresetMode

import simphant
from simphant.gym import VectorEnv

try:
    import torch
except ImportError:
    torch = None


def make(examples, **kw):
    args = dict(num_envs=4, observation=["crank.omega", "piston.r"], action_low=-1.0, action_high=1.0,
                reward=lambda sim, obs, u: -np.abs(obs[:, 1] - 5.0), frame_skip=5, backend="cpu", threads=1)
    args.update(kw)
    return VectorEnv(examples / "slider_crank.json", **args)


def test_too_many_envs_are_refused_before_allocating(examples):
    """The Simulator's memory guard: 1e8 environments are a MemoryError at once."""
    with pytest.raises(MemoryError, match="100000000 instances needs about"):
        make(examples, num_envs=100_000_000)


def test_spaces_and_metadata(examples):
    env = make(examples)
    assert isinstance(env, gym.vector.VectorEnv)
    assert env.num_envs == 4 and env.action_names == ["motor"]
    assert env.single_observation_space.shape == (6,) and env.observation_space.shape == (4, 6)
    assert env.single_action_space.shape == (1,) and env.action_space.shape == (4, 1)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    check_space(env.single_action_space, "action", _check_box_action_space)
    check_space(env.single_observation_space, "observation", _check_box_observation_space)


def test_reset_and_step_shapes_and_dtypes(examples):
    env = make(examples)
    obs, info = env.reset(seed=1)
    check_obs(obs, env.observation_space, "reset")
    assert obs.dtype == np.float64 and isinstance(info, dict)
    env.action_space.seed(0)
    obs2, reward, term, trunc, info = env.step(env.action_space.sample())
    check_obs(obs2, env.observation_space, "step")
    assert reward.shape == (4,) and reward.dtype == np.float64
    assert term.shape == trunc.shape == (4,) and term.dtype == trunc.dtype == np.bool_
    assert not np.shares_memory(obs, obs2)  # returned data is not reused
    assert env.sim.steps_taken == 5  # frame_skip


def test_observation_matches_the_simulator(examples):
    env = make(examples)
    obs, _ = env.reset()
    env.step(np.full((4, 1), 0.5))
    x = env.sim.states()
    obs, *_ = env.step(np.full((4, 1), 0.5))
    x = env.sim.states()
    np.testing.assert_array_equal(obs[:, :3], x[:, 0, 10:13])
    np.testing.assert_array_equal(obs[:, 3:], x[:, 2, 0:3])


def test_actions_are_clipped(examples):
    a, b = make(examples), make(examples)
    a.reset()
    b.reset()
    a.step(np.full((4, 1), 7.0))
    b.step(np.full((4, 1), 1.0))
    np.testing.assert_array_equal(a.sim.states(), b.sim.states())


def test_seeding_is_reproducible(examples):
    def episode(seed):
        env = make(examples, randomize=True, max_episode_steps=3)
        out = [env.reset(seed=seed)[0]]
        for k in range(8):
            out.append(env.step(np.full((4, 1), 0.1 * k))[0])
        return out

    assert data_equivalence(episode(5), episode(5), exact=True)
    assert not data_equivalence(episode(5), episode(6), exact=True)


def test_next_step_autoreset(examples):
    env = make(examples, max_episode_steps=3)
    first, _ = env.reset()
    u = np.full((4, 1), 0.8)
    for k in range(3):
        obs, reward, term, trunc, _ = env.step(u)
    assert trunc.all() and not term.any()
    obs, reward, term, trunc, _ = env.step(u)  # the autoreset step
    np.testing.assert_array_equal(obs, first)
    assert np.all(reward == 0) and not term.any() and not trunc.any()
    obs, *_ = env.step(u)
    assert not np.array_equal(obs, first)


def test_same_step_autoreset(examples):
    env = make(examples, max_episode_steps=2, autoreset_mode=AutoresetMode.SAME_STEP)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    first, _ = env.reset()
    u = np.full((4, 1), 0.8)
    env.step(u)
    obs, reward, term, trunc, info = env.step(u)
    assert trunc.all()
    np.testing.assert_array_equal(obs, first)
    assert info["_final_obs"].all() and not np.array_equal(info["final_obs"][0], first[0])


def test_partial_reset_and_termination(examples):
    env = make(examples, terminated=lambda sim, obs: obs[:, 1] > 1.0)
    env.reset()
    for _ in range(20):
        obs, reward, term, trunc, _ = env.step(np.full((4, 1), 1.0))
        if term.any():
            break
    assert term.any()
    env.reset(options={"reset_mask": np.array([True, False, False, False])})
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(options={"reset_mask": np.ones(3, bool)})


def test_randomize_changes_parameters(examples):
    env = make(examples, randomize=True, max_episode_steps=2)
    env.reset(seed=3)
    e0 = env.sim.get_state().episodes.copy()
    env.reset()
    assert np.all(env.sim.get_state().episodes == e0 + 1)
    fixed = make(examples, randomize=False)
    fixed.reset(seed=3)
    fixed.reset()
    assert np.all(fixed.sim.get_state().episodes == 0)


def test_callable_observation_and_bad_specs(examples):
    env = make(examples, observation=[lambda sim: sim.energy()[:, None], "conrod.p"])
    obs, _ = env.reset()
    assert obs.shape == (4, 5)
    np.testing.assert_array_equal(obs[:, 0], env.sim.energy())
    with pytest.raises(ValueError, match="no body 'wheel'"):
        make(examples, observation=["wheel.r"])
    with pytest.raises(ValueError, match="field"):
        make(examples, observation=["crank.q"])
    with pytest.raises(ValueError, match="joint coordinates"):
        make(examples, observation=["joint_q"])
    with pytest.raises(ValueError, match="actuators"):
        VectorEnv(examples / "pendulum.json", action_low=-1, action_high=1)


def test_gymnasium_vector_wrappers_accept_it(examples):
    env = gym.wrappers.vector.RecordEpisodeStatistics(make(examples, max_episode_steps=2))
    env.reset(seed=0)
    infos = [env.step(np.zeros((4, 1)))[4] for _ in range(3)]
    assert "episode" in infos[1] and np.all(infos[1]["episode"]["l"] == 2)


@pytest.mark.skipif(torch is None, reason="torch is not installed (pip install torch)")
def test_torch_vector_env(examples):
    from simphant.gym import TorchVectorEnv

    env = TorchVectorEnv(examples / "slider_crank.json", num_envs=4, observation=["crank.omega"], action_low=-1.0,
                         action_high=1.0, reward=lambda sim, obs, u: -obs[:, 1].abs(), max_episode_steps=2,
                         backend="cpu")
    ref = make(examples, observation=["crank.omega"], reward=lambda sim, obs, u: -np.abs(obs[:, 1]),
               max_episode_steps=2, frame_skip=1)
    obs, _ = env.reset(seed=2)
    ref_obs, _ = ref.reset(seed=2)
    assert isinstance(obs, torch.Tensor) and obs.dtype == torch.float64 and obs.device.type == "cpu"
    for k in range(3):
        u = torch.full((4, 1), 0.3 * k, dtype=torch.float64)
        obs, reward, term, trunc, _ = env.step(u)
        r_obs, r_reward, r_term, r_trunc, _ = ref.step(u.numpy())
        np.testing.assert_array_equal(obs.numpy(), r_obs)
        np.testing.assert_array_equal(reward.numpy(), r_reward)
        np.testing.assert_array_equal(trunc.numpy(), r_trunc)
        assert term.dtype == torch.bool
    # float32 observations: the float64 ones rounded; rewards stay float64
    env32 = TorchVectorEnv(examples / "slider_crank.json", num_envs=4, observation=["crank.omega", "piston.r"],
                           action_low=-1.0, action_high=1.0, backend="cpu", dtype=np.float32)
    ref = make(examples, frame_skip=1)
    env32.reset(seed=2)
    ref.reset(seed=2)
    obs, reward, *_ = env32.step(torch.full((4, 1), 0.5, dtype=torch.float64))
    r_obs, *_ = ref.step(np.full((4, 1), 0.5))
    assert obs.dtype == torch.float32 and reward.dtype == torch.float64
    np.testing.assert_array_equal(obs.numpy(), r_obs.astype(np.float32))


def test_default_backend_is_auto(examples):
    """Without backend= the env runs on the backend Simulator's "auto" picks: the GPU when
    there is one, else cpu-simd for 8 or more instances (the slider-crank runs there)."""
    env = VectorEnv(examples / "slider_crank.json", num_envs=8, observation=["crank.omega"], action_low=-1.0,
                    action_high=1.0, threads=1)
    assert env.sim.backend == simphant.Simulator(examples / "slider_crank.json", 8, backend="auto", threads=1).backend
    if not simphant.cuda_available():
        assert env.sim.backend == "cpu-simd"
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step(np.full((8, 1), 0.5))
    assert obs.shape == (8, 3) and np.all(np.isfinite(obs))


def test_float32_observations(examples):
    env, ref = make(examples, dtype=np.float32), make(examples)
    assert env.single_observation_space.dtype == np.float32 and env.observation_space.dtype == np.float32
    obs, _ = env.reset(seed=4)
    r_obs, _ = ref.reset(seed=4)
    check_obs(obs, env.observation_space, "reset")
    for _ in range(3):
        obs, reward, *_ = env.step(np.full((4, 1), 0.6))
        r_obs, r_reward, *_ = ref.step(np.full((4, 1), 0.6))
        assert obs.dtype == np.float32 and reward.dtype == np.float64
        np.testing.assert_array_equal(obs, r_obs.astype(np.float32))
        np.testing.assert_array_equal(reward, r_reward)
    single = make(examples, observation=["crank.omega"], dtype=np.float32)
    assert single.reset()[0].dtype == np.float32
    with pytest.raises(ValueError, match="dtype"):
        make(examples, dtype=np.int32)


def test_reset_events_run_on_every_reset(examples):
    """Reset events see the ids of each reset (reset, masked reset, both autoreset modes)
    after the simulator reset them; their rng is np_random, seeded by reset(seed=...)."""
    calls = []

    def record(env, ids, rng):
        calls.append((ids.copy(), rng.uniform()))
        env.sim.set_inputs(np.full((len(ids), 1), 0.25), ids)

    env = make(examples, max_episode_steps=2, reset_events=[record])
    env.reset(seed=7)
    assert len(calls) == 1 and np.array_equal(calls[0][0], np.arange(4)) and calls[0][0].dtype == np.int64
    env.reset(options={"reset_mask": np.array([False, True, False, True])})
    np.testing.assert_array_equal(calls[1][0], [1, 3])
    u = np.zeros((4, 1))
    env.step(u)
    env.step(u)
    assert len(calls) == 2  # truncated now: NEXT_STEP resets at the next step
    env.step(u)
    assert len(calls) == 3 and np.array_equal(calls[2][0], np.arange(4))
    same = make(examples, max_episode_steps=1, reset_events=[record], autoreset_mode=AutoresetMode.SAME_STEP)
    same.reset(seed=7)
    assert calls[-1][1] == calls[0][1]  # the same seed, the same draws
    same.step(u)
    assert len(calls) == 5 and np.array_equal(calls[4][0], np.arange(4))


def test_observation_columns_in_both_state_layouts(examples):
    """The columns an observation reads from states() and from State.y (the layout of a
    device state view, which TorchVectorEnv reads on a cuda backend) pick the same numbers."""
    from simphant.gym.observation import Observation

    sim = simphant.Simulator(examples / "slider_crank.json", instances=3, backend="cpu")
    sim.set_inputs(np.full((3, 1), 0.7))
    sim.step(30)
    spec = Observation(sim, ["conrod.omega", "piston.v", "crank.p", "state"])
    flat, y = sim.states().reshape(3, -1), sim.get_state().y
    for part in spec.parts:
        np.testing.assert_array_equal(flat[:, part[1]], y[:, part[2]])


@pytest.mark.parametrize("solver", ["dae", "aba"])
def test_robot_joint_observations(examples, solver):
    """A robot scene: joint coordinates as the observation, joint torques as the action,
    in maximal coordinates (dae) and in joint coordinates (aba, the reduced backend)."""
    doc = simphant.load_scene(examples / "arm7.json").to_dict()
    doc["solver"]["type"] = solver
    doc["robot"]["urdf"] = str(examples / "arm7.urdf")
    env = VectorEnv(doc, num_envs=3, observation=["joint_q", "joint_qd"], action_low=-5.0, action_high=5.0,
                    backend="cpu", threads=1)
    assert env.action_names[0] == "tau_panda_joint1" and env.single_action_space.shape == (7,)
    obs, _ = env.reset()
    q, qd, _ = env.sim.joint_state()
    np.testing.assert_array_equal(obs, np.concatenate([q, qd], axis=1))
    np.testing.assert_allclose(obs[0, :7], doc["robot"]["q0"], atol=1e-9)
    obs, *_ = env.step(np.ones((3, 7)))
    assert obs.shape == (3, 14) and np.all(np.isfinite(obs))
    if solver == "aba":
        assert env.sim.state_size == 14
        np.testing.assert_array_equal(env.sim.state_view(), obs)  # y = [q, qd]
