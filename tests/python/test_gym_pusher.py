"""simphant.gym's Pusher-v5 (python/simphant/gym/mujoco_pusher.py) against Gymnasium's own
Pusher-v5 on MuJoCo.

Lockstep without contact: each SimPhant env (num_envs 1, and 8 on the cpu and cpu-simd
backends) starts from the state of a `gymnasium.make("Pusher-v5")` env after
its own reset, with the elbow and wrist flex turned to -0.4 rad in both (the reset leaves
them at 0, the upper end of their ranges, where MuJoCo's limit constraint and SimPhant's
limit law differ). Both integrate with RK4 at the file's 0.01 s (the Gymnasium env's model
is switched from its file's Euler) and take the same actions for a whole episode (100
steps, then both truncate): a PD law towards a raised pose plus noise, computed from
Gymnasium's state, which keeps every hinge inside its range and the wrist clear of the
object and the table (asserted: MuJoCo's qfrc_constraint is 0, and SimPhant's wrist pairs
carry no force; the object rests on the table in both, a vertical force that moves no
joint). The first 14 observation entries (qpos, qvel of the arm) are compared as reported
to 1e-8. The last 9 (tips_arm, object, goal) and the reward read body origins, which
Gymnasium takes from xpos after mj_step: with RK4 the kinematics of the last substep's
final Runge-Kutta stage, not of the new state. So those are compared to 1e-8 with the
values recomputed from Gymnasium's state after mj_kinematics, and as reported to the size
of that lag.

With contact: a slow scripted push (the arm's PD actions recorded in MuJoCo, replayed
open loop) moves the object in both, to within the depth MuJoCo lets the wrist sink into it.
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import require, states_event

mujoco = require("mujoco", "the lockstep check against Gymnasium's MuJoCo envs")
require("imageio", "Gymnasium's MuJoCo envs import it")
gym = require("gymnasium", "the lockstep check against Gymnasium's MuJoCo envs")

import simphant.gym  # noqa: E402

TOL = 1e-8
LAG = 1e-5  # the stale RK4 stage against the new state [m, and reward]: measured 1.6e-7
WRIST_PAIRS = ("r_wrist_roll_link",)

#: A raised pose inside every range (the wrist 0.2 m above the object's top) and the
#: PD law's gains towards it [N m / rad, N m s / rad].
POSE = np.array([0.2, 0.2, 0.3, -0.9, 0.4, -0.5, 0.3])
KP, KD = 1.0, 0.5


def _fresh(g) -> np.ndarray:
    """tips_arm, object, goal origins (9,) at the Gymnasium env's current qpos."""
    u = g.unwrapped
    d = mujoco.MjData(u.model)
    d.qpos[:] = u.data.qpos
    mujoco.mj_kinematics(u.model, d)
    return np.concatenate([d.body(b).xpos for b in ("tips_arm", "object", "goal")])


def _gym_env(seed: int):
    g = gym.make("Pusher-v5")
    g.reset(seed=seed)
    u = g.unwrapped
    u.model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    qpos, qvel = u.data.qpos.copy(), u.data.qvel.copy()
    qpos[3] = qpos[5] = -0.4
    u.set_state(qpos, qvel)
    return g


def lockstep(n: int, backend: str = "auto") -> dict:
    gyms = [_gym_env(31 + i) for i in range(n)]
    states = np.stack([np.concatenate([g.unwrapped.data.qpos, g.unwrapped.data.qvel]) for g in gyms])
    gym_obs = np.stack([g.unwrapped._get_obs() for g in gyms])
    env = simphant.gym.make("Pusher-v5", num_envs=n, backend=backend, reset_events=[states_event(states)])
    assert env.sim.backend.startswith("reduced-aba")
    wrist = [k for k, name in enumerate(env.sim.contact_pair_names) if any(w in name for w in WRIST_PAIRS)]
    assert len(wrist) == 6  # 3 capsules x (the table, the object)
    obs, _ = env.reset(seed=0)
    err = {"obs": float(np.max(np.abs(obs - gym_obs))), "points": 0.0, "reward": 0.0, "points_vs_gym": 0.0,
           "reward_vs_gym": 0.0, "steps": 0}
    assert err["obs"] <= TOL, err
    rng = np.random.default_rng(8)
    ranges = gyms[0].unwrapped.model.jnt_range[:7]
    for k in range(1, 101):
        actions = np.stack([KP * (POSE - g.unwrapped.data.qpos[:7]) - KD * g.unwrapped.data.qvel[:7] for g in gyms])
        actions += rng.uniform(-0.1, 0.1, actions.shape)
        obs, reward, term, trunc, _ = env.step(actions)
        assert np.all(env.sim.contacts()[:, wrist, 0] == 0)
        for i, g in enumerate(gyms):
            o, r, t, tr, _ = g.step(actions[i])
            err["steps"] += 1
            q = g.unwrapped.data.qpos[:7]
            assert np.all((ranges[:, 0] < q) & (q < ranges[:, 1])) and not np.any(g.unwrapped.data.qfrc_constraint)
            err["obs"] = max(err["obs"], float(np.max(np.abs(obs[i, :14] - o[:14]))))
            fresh = _fresh(g)
            err["points"] = max(err["points"], float(np.max(np.abs(obs[i, 14:] - fresh))))
            err["points_vs_gym"] = max(err["points_vs_gym"], float(np.max(np.abs(obs[i, 14:] - o[14:]))))
            tips, obj, goal = fresh[:3], fresh[3:6], fresh[6:]
            r_fresh = -0.5 * np.linalg.norm(obj - tips) - np.linalg.norm(obj - goal) - 0.1 * np.sum(actions[i] ** 2)
            err["reward"] = max(err["reward"], abs(reward[i] - r_fresh))
            err["reward_vs_gym"] = max(err["reward_vs_gym"], abs(reward[i] - r))
            assert not term[i] and not t
            assert bool(trunc[i]) == (k == 100), k
    assert err["obs"] <= TOL and err["points"] <= TOL and err["reward"] <= TOL, err
    assert err["points_vs_gym"] <= LAG and err["reward_vs_gym"] <= LAG, err
    print(f"\nPusher-v5 num_envs={n} backend={env.sim.backend}: {err}")
    for g in gyms:
        g.close()
    return err


def test_one_env_in_lockstep_with_gymnasium():
    lockstep(1)


@pytest.mark.parametrize("backend", ["cpu", "cpu-simd"])
def test_batch_of_eight_in_lockstep_with_gymnasium(backend):
    lockstep(8, backend)


def test_definitions_match_gymnasium():
    g = gym.make("Pusher-v5")
    env = simphant.gym.make("Pusher-v5")
    u = g.unwrapped
    assert env.frame_skip == u.frame_skip == 5
    assert env.sim.dt == u.model.opt.timestep == 0.01
    assert env.max_episode_steps == g.spec.max_episode_steps == 100
    np.testing.assert_array_equal(env.single_action_space.low, g.action_space.low)
    np.testing.assert_array_equal(env.single_action_space.high, g.action_space.high)
    assert env.single_observation_space.shape == g.observation_space.shape == (23,)
    np.testing.assert_array_equal(env.gear, np.vstack([np.eye(7), np.zeros((4, 7))]))
    # the bodies' origins at MuJoCo's qpos0
    g.reset(seed=0)
    qpos = np.zeros(11)
    u.set_state(qpos, np.zeros(11))
    env2 = simphant.gym.make("Pusher-v5", backend="cpu", reset_events=[states_event(np.zeros((1, 22)))])
    obs, _ = env2.reset(seed=0)
    np.testing.assert_allclose(obs[0, 14:], _fresh(g), rtol=0, atol=1e-14)
    g.close()


def test_reset_draws_like_gymnasium():
    """2000 resets: the arm at qpos 0 with qvel in [-0.005, 0.005]; the object's (y, x)
    slides in [-0.3, 0] x [-0.2, 0.2] outside the 0.17 disc about the goal; the object
    and the goal at rest, the goal at its slides' 0."""
    env = simphant.gym.make("Pusher-v5", num_envs=2000, backend="cpu")
    obs, _ = env.reset(seed=4)
    q, qd, _ = env.sim.joint_state()
    assert np.all(q[:, :7] == 0) and np.all(np.abs(qd[:, :7]) <= 0.005)
    assert qd[:, :7].std() == pytest.approx(0.01 / np.sqrt(12), rel=0.05)
    cyl = q[:, 7:9]
    assert np.all((-0.3 <= cyl[:, 0]) & (cyl[:, 0] <= 0)) and np.all(np.abs(cyl[:, 1]) <= 0.2)
    assert np.all(np.linalg.norm(cyl, axis=1) > 0.17) and cyl[:, 0].min() < -0.29 and cyl[:, 1].max() > 0.19
    assert np.all(q[:, 9:] == 0) and np.all(qd[:, 7:] == 0)
    # the object's origin: its body position plus the slides (x, y)
    np.testing.assert_allclose(obs[:, 17:19], np.array([0.45, -0.05]) + cyl[:, ::-1], rtol=0, atol=1e-15)


def test_a_slow_push_moves_the_object_as_in_mujoco():
    """The arm lowered to the object's height (the wrist at z = -0.274 m, the object spans
    -0.325 to -0.225 m) and driven by a PD law towards a pose 0.6 rad further in shoulder pan, gains 0.5 and
    1; the object placed where the wrist's fingertips pass. The actions are recorded in
    MuJoCo (RK4 at 0.01 s) and replayed open loop in SimPhant's default env. Both push the
    object by more than 12 cm; their final object positions agree within 4 cm (MuJoCo's
    soft contact lets the wrist capsule sink up to 2.8 cm into the object, SimPhant's
    holds it to 0.1 mm), the wrist's path within 1.5 cm."""
    qa = np.array([0.544, 1.096, 0.0, -1.353, 0.0, -0.721, 0.0])
    qb = qa.copy()
    qb[0] -= 0.6
    obj = np.array([-0.47439194, 0.14453082])  # obj_slidey, obj_slidex
    g = gym.make("Pusher-v5")
    g.reset(seed=0)
    u = g.unwrapped
    u.model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    qpos = np.zeros(11)
    qpos[:7], qpos[7:9] = qa, obj
    u.set_state(qpos, np.zeros(11))
    actions, mj_obj, mj_tip, deepest = [], [], [], 0.0
    for _ in range(100):
        a = np.clip(0.5 * (qb - u.data.qpos[:7]) - u.data.qvel[:7], -2, 2)
        g.step(a)
        actions.append(a)
        mj_obj.append(u.data.body("object").xpos.copy())
        mj_tip.append(u.data.body("tips_arm").xpos.copy())
        deepest = min([deepest] + [c.dist for c in u.data.contact[:u.data.ncon] if c.geom1 != 0])
    mj_obj, mj_tip = np.array(mj_obj), np.array(mj_tip)
    env = simphant.gym.make("Pusher-v5", backend="cpu", reset_events=[states_event(np.concatenate([qpos, np.zeros(11)])[None])])
    env.reset(seed=0)
    pair = env.sim.contact_pair_names.index("contact r_wrist_roll_link[geom 0] object[geom 0]")
    sp_obj, sp_tip, sp_depth, pushed = [], [], 0.0, 0.0
    for a in actions:
        obs, *_ = env.step(a[None])
        sp_obj.append(obs[0, 17:20])
        sp_tip.append(obs[0, 14:17])
        c = env.sim.contacts()[0]
        sp_depth = max(sp_depth, c[pair, 2])
        pushed = max(pushed, c[pair, 0])
    sp_obj, sp_tip = np.array(sp_obj), np.array(sp_tip)
    start = np.array([0.45 + obj[1], -0.05 + obj[0]])
    mj_moved, sp_moved = mj_obj[-1, :2] - start, sp_obj[-1, :2] - start
    print(f"\nslow push: MuJoCo moves the object {mj_moved} (wrist up to {-deepest:.4f} m deep), SimPhant {sp_moved} "
          f"(up to {sp_depth:.2e} m, {pushed:.3f} N); |object difference| max "
          f"{np.abs(sp_obj - mj_obj).max():.4f} m, |tips_arm difference| max {np.abs(sp_tip - mj_tip).max():.4f} m")
    assert np.linalg.norm(mj_moved) > 0.12 and np.linalg.norm(sp_moved) > 0.12
    assert np.abs(sp_obj - mj_obj).max() < 0.04 and np.abs(sp_tip - mj_tip).max() < 0.015
    assert pushed > 0 and sp_depth < 1e-3
    g.close()


@pytest.mark.parametrize("gain,steps,bound", [(0.5, 100, 1.5e-3), (8.0, 30, 3e-3)])
def test_default_step_against_a_fine_step(gain, steps, bound):
    """The default step (RK4 at the file's 0.01 s) against 20 substeps (0.5 ms) on the
    pushes above, slow and fast (the fast one sweeps the wrist through the object at up
    to 10 cm/s): the same actions (the PD law's, recorded on the fine run), the tips and
    the object within 0.6 mm and 2.2 mm (measured), against 1.5 mm and 3 mm."""
    qa = np.array([0.544, 1.096, 0.0, -1.353, 0.0, -0.721, 0.0])
    qb = qa.copy()
    qb[0] -= 0.6
    state = np.zeros((1, 22))
    state[0, :7], state[0, 7:9] = qa, [-0.47439194, 0.14453082]
    runs = {}
    actions = []
    for sub in (20, 1):
        env = simphant.gym.make("Pusher-v5", backend="cpu", substeps=sub, reset_events=[states_event(state)])
        env.reset(seed=0)
        path = []
        for k in range(steps):
            if sub == 20:
                q, qd, _ = env.sim.joint_state()
                actions.append(np.clip(gain * (qb - q[0, :7]) - qd[0, :7], -2, 2))
            obs, *_ = env.step(actions[k][None])
            path.append(obs[0, 14:20])
        runs[sub] = np.array(path)
    moved = np.linalg.norm(runs[20][-1, 3:5] - runs[20][0, 3:5])
    err = np.abs(runs[1] - runs[20]).max()
    print(f"\npush gain {gain}: the object moves {moved:.3f} m; RK4 at 10 ms against 0.5 ms: {err:.2e} m")
    assert moved > 0.1 and err < bound


def test_the_wrist_pressed_on_the_table():
    """The arm lowered to the table and driven down (shoulder lift +0.5 rad, PD gain 8,
    the actions recorded in MuJoCo, RK4): MuJoCo holds the wrist's capsules 4.0 mm above
    the table's plane (measured; its contact acts from the geoms' margins and cancels a
    steady load), asserted not below it; SimPhant's linear law (K = 1e3 N/m, the plane 4 mm
    up: the two geoms' margins) lets them sink 1.2 mm (measured) into its plane under the
    4.7 N they bear, against a bound of 2 mm."""
    qa = np.array([0.544, 1.096, 0.0, -1.353, 0.0, -0.721, 0.0])
    qb = qa.copy()
    qb[1] += 0.5
    g = gym.make("Pusher-v5")
    g.reset(seed=0)
    u = g.unwrapped
    u.model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    qpos = np.zeros(11)
    qpos[:7], qpos[7:9] = qa, [1.0, 1.0]  # the object out of the way
    u.set_state(qpos, np.zeros(11))
    actions = []
    for _ in range(40):
        actions.append(np.clip(8 * (qb - u.data.qpos[:7]) - u.data.qvel[:7], -2, 2))
        g.step(actions[-1])
    table = [c.dist for c in u.data.contact[:u.data.ncon] if c.geom1 == 0 and u.model.geom_bodyid[c.geom2] != u.model.body("object").id]
    env = simphant.gym.make("Pusher-v5", backend="cpu", reset_events=[states_event(np.concatenate([qpos, np.zeros(11)])[None])])
    env.reset(seed=0)
    for a in actions:
        env.step(a[None])
    names = env.sim.contact_pair_names
    wrist = [k for k, n in enumerate(names) if n.startswith("contact ground r_wrist_roll_link")]
    c = env.sim.contacts()[0]
    depth, force = c[wrist, 2].max(), c[wrist, 0].sum()
    print(f"\nwrist on the table: MuJoCo's contact distance {min(table):.2e} m; SimPhant sinks {depth:.2e} m under {force:.2f} N")
    assert table and min(table) > -5e-4
    assert 3.0 < force < 6.0 and depth < 2e-3
    g.close()
