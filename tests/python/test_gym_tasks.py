"""simphant.gym's registered tasks, its mdp pieces (goals, link-frame observations,
rewards, reset events), render() and the video writer."""
from __future__ import annotations

import importlib.util

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.passive_env_checker import check_obs

import simphant
import simphant.gym as sg
from simphant.gym import VectorEnv, mdp
from simphant.gym.builtin import panda_home_action


def panda(**kw):
    args = dict(num_envs=3, backend="cpu", threads=1)
    args.update(kw)
    return sg.make("PandaReach-v0", **args)


def test_task_list_make_and_gymnasium_registry():
    assert {"SliderCrankSpeed-v0", "PandaReach-v0"} <= set(sg.tasks())
    assert sg.tasks() == sorted(sg.tasks())
    with pytest.raises(KeyError, match="no task 'Nope-v0'.*SliderCrankSpeed-v0"):
        sg.make("Nope-v0")
    # a misspelt option: the task, the option, and what the task takes (its own, VectorEnv's)
    with pytest.raises(TypeError, match=r"^SliderCrankSpeed-v0: no option 'torque_limt' \(the task's options: "
                                        r"episode_time, target, torque_limit; VectorEnv's: action_high, .*backend"):
        sg.make("SliderCrankSpeed-v0", torque_limt=3.0)
    with pytest.raises(TypeError, match=r"^SliderCrankSpeed-v0: no option 'torque_limt'"):  # through Gymnasium too
        gym.make_vec("simphant/SliderCrankSpeed-v0", num_envs=2, torque_limt=3.0)
    # a step count is a whole number: a fraction is refused, not truncated
    for bad in (2.7, 0, True, float("nan")):
        with pytest.raises(ValueError, match=r"^frame_skip: a whole number >= 1 \(got "):
            sg.make("SliderCrankSpeed-v0", frame_skip=bad)
    for good in (4.0, np.array(4), np.int32(4)):
        assert sg.make("SliderCrankSpeed-v0", num_envs=1, frame_skip=good).frame_skip == 4
    # so are the env count and the episode length, each named as the caller wrote it
    for option in ("num_envs", "max_episode_steps"):
        for bad in (2.5, 0, True):
            with pytest.raises(ValueError, match=rf"^{option}: a whole number >= 1 \(got "):
                sg.make("SliderCrankSpeed-v0", **{"num_envs": 1, option: bad})
    assert sg.make("SliderCrankSpeed-v0", num_envs=2.0, max_episode_steps=np.int64(3)).max_episode_steps == 3
    # a task whose factory takes no **kwargs: its own options alone
    sg.register("Fixed-v0", lambda num_envs=None, *, size=1: sg.make("SliderCrankSpeed-v0", num_envs=num_envs),
                gymnasium_registry=False)
    try:
        with pytest.raises(TypeError, match=r"^Fixed-v0: no option 'backend' \(the task's options: size\)$"):
            sg.make("Fixed-v0", backend="cpu")
    finally:
        sg.registry._TASKS.pop("Fixed-v0", None)
    env = sg.make("SliderCrankSpeed-v0", num_envs=5, backend="cpu", threads=1)
    assert isinstance(env, VectorEnv) and env.num_envs == 5 and env.observation_space.shape == (5, 4)
    v = gym.make_vec("simphant/SliderCrankSpeed-v0", num_envs=3, backend="cpu", threads=1)
    assert isinstance(v, VectorEnv) and v.num_envs == 3 and v.spec.id == "simphant/SliderCrankSpeed-v0"


def test_the_slider_crank_task_scene_is_the_example(examples):
    """The task's scene is the package's copy of examples/slider_crank.json (an installed
    package has no examples/)."""
    import json

    from simphant.gym.builtin import SLIDER_CRANK_SCENE

    assert SLIDER_CRANK_SCENE == json.loads((examples / "slider_crank.json").read_text())


def test_register_a_task():
    def factory(num_envs=None, **kw):
        return sg.make("SliderCrankSpeed-v0", num_envs=num_envs, target=5.0, **kw)

    sg.register("SlowCrank-v1", factory, "the slider-crank at 5 rad/s")
    try:
        assert "SlowCrank-v1" in sg.tasks() and sg.task_spec("SlowCrank-v1").description.startswith("the slider")
        env = sg.make("SlowCrank-v1", num_envs=2, backend="cpu")
        assert np.all(env.reset(seed=0)[0][:, 3] == 5.0)
        assert gym.make_vec("simphant/SlowCrank-v1", num_envs=2, backend="cpu").num_envs == 2
        with pytest.raises(ValueError, match="already registered"):
            sg.register("SlowCrank-v1", factory)
        sg.register("SlowCrank-v1", factory, overwrite=True)
        with pytest.raises(ValueError, match="must look like"):
            sg.register("slow crank", factory)
    finally:
        sg.registry._TASKS.pop("SlowCrank-v1", None)
        gym.registry.pop("simphant/SlowCrank-v1", None)


def test_slider_crank_speed_task():
    env = sg.make("SliderCrankSpeed-v0", num_envs=4, backend="cpu", threads=1, max_episode_steps=3)
    assert env.action_names == ["motor"] and env.frame_skip == 10
    np.testing.assert_array_equal(env.single_action_space.high, [2.0])
    obs, _ = env.reset(seed=0)
    check_obs(obs, env.observation_space, "reset")
    obs, reward, term, trunc, _ = env.step(np.full((4, 1), 1.5))
    omega = env.sim.states()[:, 0, 10:13]
    np.testing.assert_array_equal(obs[:, :3], omega)
    assert np.all(obs[:, 3] == 8.0)
    np.testing.assert_allclose(reward, -((omega[:, 1] - 8.0) / 8.0) ** 2, rtol=1e-14)
    assert np.all(omega[:, 1] > 0)  # a positive torque turns the crank forwards about +y

    # targets drawn per env and per episode, reproducibly
    def targets(seed):
        e = sg.make("SliderCrankSpeed-v0", num_envs=6, backend="cpu", target=(6.0, 10.0), max_episode_steps=1)
        first = e.reset(seed=seed)[0][:, 3]
        e.step(np.zeros((6, 1)))
        return first, e.step(np.zeros((6, 1)))[0][:, 3]  # the autoreset step: new goals

    a, b = targets(1)
    assert np.all((a >= 6) & (a <= 10)) and len(set(a)) == 6 and not np.array_equal(a, b)
    np.testing.assert_array_equal(a, targets(1)[0])
    with pytest.raises(ValueError, match="target"):
        sg.make("SliderCrankSpeed-v0", target=(5.0, 1.0))


def test_panda_reach_task():
    env = panda()
    assert env.single_action_space.shape == (9,) and env.single_observation_space.shape == (24,)
    assert env.sim.backend.startswith("reduced-aba")
    obs, _ = env.reset(seed=3)
    goal = env.goal.goals.copy()
    assert np.all((goal >= [0.3, -0.3, 0.3]) & (goal <= [0.6, 0.3, 0.7]))
    np.testing.assert_array_equal(obs[:, 21:24], goal)
    q, qd, _ = env.sim.joint_state()
    np.testing.assert_array_equal(obs[:, :9], q)
    hold = panda_home_action(3)
    for _ in range(5):
        obs, reward, term, trunc, _ = env.step(hold)
    wrist = env.sim.link_frames(["panda_link7"])[:, 0, 0:3]
    np.testing.assert_array_equal(obs[:, 18:21], wrist)
    np.testing.assert_allclose(reward, -np.linalg.norm(wrist - goal, axis=1), rtol=1e-14)
    # the servos hold the initial pose up to their sag under gravity and the payload (no
    # gravity compensation; measured 23 mm after 0.1 s)
    np.testing.assert_allclose(wrist, np.array([[0.3069, 0.0, 0.6973]]).repeat(3, 0), atol=0.04)
    # a policy that moves joint 1 swings the wrist about z
    for _ in range(30):
        obs, *_ = env.step(hold + np.array([0.8, 0, 0, 0, 0, 0, 0, 0, 0]))
    assert np.all(obs[:, 19] > 0.1)


def test_panda_reach_joint_noise_and_exp_reward():
    env = panda(q_noise=0.05, reward_kernel="exp")
    obs, _ = env.reset(seed=0)
    q0 = np.array(sg.builtin.PANDA_SCENE["robot"]["q0"])
    dq = obs[:, :9] - q0
    assert np.all(np.abs(dq) > 0) and np.all(np.abs(dq) < 0.3)
    _, reward, *_ = env.step(panda_home_action(3))
    assert np.all((reward > 0) & (reward <= 1))


def test_mdp_terms(examples):
    sim = simphant.Simulator(sg.builtin.PANDA_SCENE, instances=2, backend="cpu")
    sim.step(3)
    f = sim.link_frames(["panda_link3", "panda_link7"])
    np.testing.assert_array_equal(mdp.link_frame(["panda_link3", "panda_link7"], "orientation")(sim),
                                  f[:, :, 3:7].reshape(2, 8))
    np.testing.assert_array_equal(mdp.link_position("panda_link7")(sim), f[:, 1, 0:3])
    np.testing.assert_array_equal(mdp.link_frame("panda_link3", "frame")(sim), f[:, 0, :])
    with pytest.raises(ValueError, match="field"):
        mdp.link_frame("panda_link3", "pose")
    crank = simphant.Simulator(examples / "slider_crank.json", instances=2, backend="cpu")
    crank.step(20)
    np.testing.assert_array_equal(mdp.body_state("conrod", "v", [0, 2])(crank), crank.states()[:, 1, [7, 9]])
    with pytest.raises(ValueError, match="no body 'wheel'"):
        mdp.body_state("wheel")(crank)

    # rewards: kernels, constant goals, sums, action penalties
    pos = mdp.link_position("panda_link7")
    d = np.linalg.norm(f[:, 1, 0:3] - [0.5, 0.0, 0.5], axis=1)
    u = np.ones((2, 9))
    np.testing.assert_allclose(mdp.distance_reward(pos, np.array([0.5, 0.0, 0.5]))(sim, None, u), -d)
    np.testing.assert_allclose(mdp.distance_reward(pos, np.array([0.5, 0.0, 0.5]), "squared", 2.0)(sim, None, u),
                               -(2 * d) ** 2)
    np.testing.assert_allclose(mdp.distance_reward(pos, np.array([0.5, 0.0, 0.5]), "exp")(sim, None, u),
                               np.exp(-d ** 2))
    total = mdp.reward_sum(mdp.distance_reward(pos, np.array([0.5, 0.0, 0.5])), (0.1, mdp.action_penalty(2.0)))
    np.testing.assert_allclose(total(sim, None, u), -d - 0.1 * 2.0 * 9)
    with pytest.raises(ValueError, match="kernel"):
        mdp.distance_reward(pos, pos, "huber")

    # goals
    g = mdp.GoalSampler([0, 1], [0, 2])
    assert g.observe(sim).shape == (2, 2) and np.all(g.observe(sim) == [0, 1.5])
    with pytest.raises(ValueError, match="low must not exceed high"):
        mdp.GoalSampler(1.0, 0.0)
    with pytest.raises(ValueError, match="one shape"):
        mdp.GoalSampler([0, 0], [1, 1, 1])


def test_joint_state_noise_needs_joint_coordinates(examples):
    env = VectorEnv(examples / "slider_crank.json", num_envs=2, observation=["crank.omega"], action_low=-1,
                    action_high=1, backend="cpu", reset_events=[mdp.joint_state_noise(0.1)])
    with pytest.raises(ValueError, match="joint coordinates"):
        env.reset(seed=0)


def frames_of(env, steps, action):
    out = [env.render()]
    for _ in range(steps):
        env.step(action)
        out.append(env.render())
    return out


def test_render_slider_crank(examples):
    env = sg.make("SliderCrankSpeed-v0", num_envs=3, backend="cpu", render_mode="rgb_array", render_width=160,
                  render_height=120)
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] == pytest.approx(200.0)
    env.reset(seed=0)
    frames = frames_of(env, 10, np.full((3, 1), 2.0))
    assert all(isinstance(f, tuple) and len(f) == 3 for f in frames)  # one frame per env (Gymnasium's convention)
    first, last = frames[0][0], frames[-1][0]
    assert first.shape == (120, 160, 3) and first.dtype == np.uint8
    assert len(np.unique(first.reshape(-1, 3), axis=0)) > 10  # not blank: background, links, joints
    assert np.mean(np.any(first != first[0, 0], axis=-1)) > 0.01
    assert np.any(first != last)  # the crank turned
    np.testing.assert_array_equal(frames[0][0], frames[0][1])  # the same state, the same picture
    one = sg.make("SliderCrankSpeed-v0", num_envs=3, backend="cpu", render_mode="rgb_array", render_envs=[2])
    one.reset(seed=0)
    assert len(one.render()) == 1
    assert sg.make("SliderCrankSpeed-v0", num_envs=2, backend="cpu").render() is None
    with pytest.raises(ValueError, match="render_mode"):
        sg.make("SliderCrankSpeed-v0", num_envs=2, render_mode="human")
    with pytest.raises(IndexError, match="render_envs"):
        sg.make("SliderCrankSpeed-v0", num_envs=2, render_mode="rgb_array", render_envs=[2])


def test_render_robot_and_camera():
    env = panda(render_mode="rgb_array", render_envs=[0], camera=sg.Camera(azimuth=-60, elevation=20))
    env.reset(seed=0)
    frames = frames_of(env, 15, panda_home_action(3) + np.array([1.2, 0.4, 0, 0, 0, 0, 0, 0, 0]))
    a, b = frames[0][0], frames[-1][0]
    assert a.shape == (240, 320, 3) and np.mean(np.any(a != a[0, 0], axis=-1)) > 0.01
    assert np.mean(np.any(a != b, axis=-1)) > 0.002


def test_video_writer(tmp_path):
    env = sg.make("SliderCrankSpeed-v0", num_envs=1, backend="cpu", render_mode="rgb_array", render_width=96,
                  render_height=64)
    env.reset(seed=0)
    frames = [f[0] for f in frames_of(env, 11, np.full((1, 1), 2.0))]
    assert all(np.any(frames[k] != frames[k + 1]) for k in range(11))
    path = tmp_path / "crank.gif"
    assert sg.write_video(path, frames, fps=25) == 12
    from PIL import Image

    with Image.open(path) as im:
        assert im.n_frames == 12 and im.size == (96, 64)
        im.seek(5)
        np.testing.assert_allclose(np.asarray(im.convert("RGB"), float), frames[5], atol=40)
    with pytest.raises(ValueError, match="uint8"):
        with sg.VideoWriter(tmp_path / "bad.gif") as w:
            w.append(np.zeros((4, 4, 3)))
    if importlib.util.find_spec("imageio") is None:
        with pytest.raises(ImportError, match="imageio"):
            sg.VideoWriter(tmp_path / "crank.mp4")
