"""simphant.gym's Humanoid-v5 (python/simphant/gym/mujoco_humanoid.py) and MuJoCo's per-body
quantities (python/simphant/gym/mujoco_data.py) against Gymnasium's own Humanoid-v5 on
MuJoCo.

- At a state: from random lifted states (random orientation and rates, the hinges inside
  their ranges) the 348 observations equal Gymnasium's _get_obs after its set_state (one
  mj_forward): qpos, qvel, cinert, cvel, qfrc_actuator, cfrc_ext, to 1e-12 relative; xipos
  and the subtree centre of mass likewise.
- In flight, the definitions and the dynamics: four envs lifted 3 m take the same actions
  as Gymnasium's (a PD law toward the middle of the ranges plus noise; a first action
  beyond the ctrlrange) with the file's own RK4 at its timestep; MuJoCo's limit
  constraints and contacts stay inactive (asserted at every step). The observations agree
  with MuJoCo's at Gymnasium's state to 5e-7 (measured 1.1e-7 after 15 env steps), the
  reward likewise, the termination flags exactly. The difference is that of two RK4
  forms on a floating base (MuJoCo's integrates the free joint's rotation through its
  exponential map, SimPhant's the quaternion's derivative): stepping both at h, h/2 and
  h/4 it falls as h^4 (5.7e-8, 2.9e-9, 1.6e-10 in the states), so both converge to one
  solution. Gymnasium's own returned observation reads cinert and cvel where MuJoCo's RK4
  left them (its last stage, not the end of the step): that difference is printed.
- On the ground, where the laws differ: a passive fall from the noise-free reset against
  MuJoCo's (torso height) with either limit law, how far the joints pass their stops
  under random actions, and self-contact: the body pairs that overlap at random states
  are the ones MuJoCo finds, and cfrc_ext gives each body of a pair its side of the wrench
  (checked against its definition; MuJoCo's contact forces differ by the law).
- The default step against a fine one.
- The task's spaces, reset, qfrc_actuator and the contact cost's clip.
"""
from __future__ import annotations

import numpy as np
import pytest

from conftest import require, states_event

mujoco = require("mujoco", "the comparison with Gymnasium's Humanoid-v5")
require("imageio", "Gymnasium's MuJoCo envs import it")
gym = require("gymnasium", "the comparison with Gymnasium's Humanoid-v5")

import simphant.gym  # noqa: E402
from simphant.gym import mujoco_data  # noqa: E402
from simphant.gym.mujoco_tasks import asset_path  # noqa: E402
from gym_step_check import one_step_errors  # noqa: E402

XML = asset_path("humanoid.xml")
#: in flight, at the file's timestep: the two RK4 forms' difference (module docstring)
TOL = 5e-7


def _lifted_states(m, n, rng, lift=3.0, spread=0.1):
    """(n, 24) qpos and (n, 23) qvel: the torso `lift` above its qpos0 at a random
    orientation, turning at up to 2 rad/s, the hinges within `spread` of their range's
    width about its middle, their rates up to 0.3 rad/s."""
    lo, hi = m.jnt_range[1:, 0], m.jnt_range[1:, 1]
    mid, half = (lo + hi) / 2, spread * (hi - lo)
    qpos = np.tile(m.qpos0, (n, 1))
    qpos[:, 2] += lift
    quat = rng.normal(size=(n, 4))
    qpos[:, 3:7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    qpos[:, 7:] = rng.uniform(mid - half, mid + half, (n, 17))
    qvel = np.concatenate([rng.uniform(-1, 1, (n, 3)), rng.uniform(-2, 2, (n, 3)), rng.uniform(-0.3, 0.3, (n, 17))],
                          axis=1)
    return qpos, qvel


def _mujoco_obs(m, qpos, qvel, ctrl):
    """Humanoid-v5's observation (Gymnasium's _get_obs) of MuJoCo at one state and control,
    every quantity computed there (mj_forward, mj_rnePostConstraint); and the data."""
    d = mujoco.MjData(m)
    d.qpos[:], d.qvel[:], d.ctrl[:] = qpos, qvel, ctrl
    mujoco.mj_forward(m, d)
    mujoco.mj_rnePostConstraint(m, d)
    obs = np.concatenate([d.qpos[2:], d.qvel, d.cinert[1:].ravel(), d.cvel[1:].ravel(), d.qfrc_actuator[6:],
                          d.cfrc_ext[1:].ravel()])
    return obs, d


def _mass_center_x(m, d):
    return float(m.body_mass @ d.xipos[:, 0] / m.body_mass.sum())


def test_observation_at_a_state_equals_mujocos():
    n = 6
    m = mujoco.MjModel.from_xml_path(XML)
    qpos, qvel = _lifted_states(m, n, np.random.default_rng(11), spread=0.4)
    env = simphant.gym.make("Humanoid-v5", num_envs=n, backend="cpu",
                            reset_events=[states_event(np.concatenate([qpos, qvel], axis=1))])
    obs, _ = env.reset(seed=0)
    assert obs.shape == (n, 348)
    inert = mujoco_data.BodyInertias(XML)
    frames, centre = inert.frames(env.sim), env.sim.centre_of_mass()
    g = gym.make("Humanoid-v5")
    g.reset(seed=0)
    worst, positions = 0.0, 0.0
    for i in range(n):
        g.unwrapped.set_state(qpos[i], qvel[i])  # mj_forward at the state; ctrl 0
        theirs = g.unwrapped._get_obs()
        worst = max(worst, float(np.max(np.abs(obs[i] - theirs) / np.maximum(1.0, np.abs(theirs)))))
        d = g.unwrapped.data
        positions = max(positions, float(np.abs(inert.xipos(frames)[i] - d.xipos[1:]).max()),
                        float(np.abs(centre[i] - d.subtree_com[1]).max()))
    print(f"\nHumanoid-v5 observation at {n} states against Gymnasium's: {worst:.3g} (relative); "
          f"xipos and the centre of mass {positions:.3g} m")
    assert worst <= 1e-12 and positions <= 1e-12


def test_flight_in_lockstep_with_gymnasium():
    n = 4
    dt = 5 * 0.003
    kw = dict(healthy_z_range=(4.1, 10.0))
    gyms = [gym.make("Humanoid-v5", **kw) for _ in range(n)]
    for i, g in enumerate(gyms):
        g.reset(seed=5 + i)
    m = gyms[0].unwrapped.model
    rng = np.random.default_rng(3)
    qpos, qvel = _lifted_states(m, n, rng)
    for i, g in enumerate(gyms):
        g.unwrapped.set_state(qpos[i], qvel[i])
    env = simphant.gym.make("Humanoid-v5", num_envs=n, backend="cpu",
                            reset_events=[states_event(np.concatenate([qpos, qvel], axis=1))], **kw)
    assert env.sim.backend.startswith("reduced-aba")
    env.reset(seed=0)
    mid = m.jnt_range[m.actuator_trnid[:, 0]].mean(axis=1)
    qadr, dadr = m.jnt_qposadr[m.actuator_trnid[:, 0]], m.jnt_dofadr[m.actuator_trnid[:, 0]]
    err = {"obs": 0.0, "reward": 0.0, "as_gymnasium_reports": 0.0, "steps": 0}
    live = np.ones(n, bool)
    for k in range(40):
        if not live.any():
            break
        q = np.stack([g.unwrapped.data.qpos for g in gyms])
        qd = np.stack([g.unwrapped.data.qvel for g in gyms])
        actions = 0.5 * (mid - q[:, qadr]) - 0.05 * qd[:, dadr] + rng.uniform(-0.1, 0.1, (n, 17))
        if k == 0:
            actions[:, 0] = np.where(np.arange(n) % 2 == 0, 0.7, -0.7)  # clipped, charged unclipped
        obs, reward, term, trunc, _ = env.step(actions)
        for i in np.flatnonzero(live):
            u = gyms[i].unwrapped
            x0 = _mass_center_x(m, _mujoco_obs(m, u.data.qpos, u.data.qvel, u.data.ctrl)[1])
            o, r, t, tr, info = gyms[i].step(actions[i])
            d = u.data
            assert d.ncon == 0 and not np.any(d.qfrc_constraint), "contact or a joint limit became active"
            expected, d_now = _mujoco_obs(m, d.qpos, d.qvel, d.ctrl)
            # Gymnasium's forward term from xipos where RK4 left it; here from the state reached
            r_state = r + 1.25 * ((_mass_center_x(m, d_now) - x0) / dt - info["x_velocity"])
            err["steps"] += 1
            err["obs"] = max(err["obs"], float(np.max(np.abs(obs[i] - expected))))
            err["reward"] = max(err["reward"], abs(reward[i] - r_state))
            err["as_gymnasium_reports"] = max(err["as_gymnasium_reports"], float(np.max(np.abs(obs[i] - o))))
            assert bool(term[i]) == t and not trunc[i] and not tr
            live[i] = not t
    print(f"\nHumanoid-v5 in flight, num_envs={n}: {err}")
    assert not live.any(), "every episode ends within the rollout"
    assert err["obs"] <= TOL and err["reward"] <= TOL, err


def test_flight_converges_to_mujocos_solution():
    """The in-flight difference is the integrators': at h, h/2 and h/4 (SimPhant's substeps,
    MuJoCo's timestep divided alike) it falls as h^4, not to a floor that a model
    difference would leave."""
    worst = []
    for sub in (1, 2, 4):
        m = mujoco.MjModel.from_xml_path(XML)
        m.opt.timestep = 0.003 / sub
        n = 4
        rng = np.random.default_rng(3)
        qpos, qvel = _lifted_states(m, n, rng)
        data = [mujoco.MjData(m) for _ in range(n)]
        for i, d in enumerate(data):
            d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
        env = simphant.gym.make("Humanoid-v5", num_envs=n, backend="cpu", substeps=sub,
                                terminate_when_unhealthy=False,
                                reset_events=[states_event(np.concatenate([qpos, qvel], axis=1))])
        env.reset(seed=0)
        mid = m.jnt_range[m.actuator_trnid[:, 0]].mean(axis=1)
        qadr, dadr = m.jnt_qposadr[m.actuator_trnid[:, 0]], m.jnt_dofadr[m.actuator_trnid[:, 0]]
        err = 0.0
        for _ in range(16):
            q, qd = np.stack([d.qpos for d in data]), np.stack([d.qvel for d in data])
            actions = 0.5 * (mid - q[:, qadr]) - 0.05 * qd[:, dadr] + rng.uniform(-0.1, 0.1, (n, 17))
            env.step(actions)
            for i, d in enumerate(data):
                d.ctrl[:] = actions[i]
                mujoco.mj_step(m, d, nstep=5 * sub)
                assert d.ncon == 0 and not np.any(d.qfrc_constraint)
            y = env.sim.get_state(np.arange(n)).y
            err = max(err, float(np.abs(y[:, :24] - np.stack([d.qpos for d in data])).max()),
                      float(np.abs(y[:, 24:] - np.stack([d.qvel for d in data])).max()))
        worst.append(err)
    print(f"\nHumanoid-v5 in flight against MuJoCo at h, h/2, h/4: {worst}")
    assert worst[0] / worst[1] >= 10 and worst[1] / worst[2] >= 10, worst  # measured 19.7, 18.4
    assert worst[2] <= 1e-9, worst


def test_passive_fall_against_mujoco():
    """The noise-free reset, no actions: the humanoid drops 11 cm onto its feet, buckles and
    falls. Torso height against Gymnasium's every env step (15 ms), with each limit law:
    the reset leaves both knees 2 degrees outside their ranges, and how fast a stop brings
    them in decides when the legs buckle."""
    g = gym.make("Humanoid-v5", reset_noise_scale=0.0, terminate_when_unhealthy=False)
    g.reset(seed=0)
    theirs = np.array([g.step(np.zeros(17))[0][0] for _ in range(80)])
    for law, bounds in (("step", (0.01, None)), ("solreflimit", (0.01, 0.04))):
        env = simphant.gym.make("Humanoid-v5", num_envs=1, backend="cpu", reset_noise_scale=0.0,
                                terminate_when_unhealthy=False, limit_law=law)
        env.reset(seed=0)
        ours = np.array([env.step(np.zeros((1, 17)))[0][0, 0] for _ in range(80)])
        d = np.abs(ours - theirs)
        print(f"\nHumanoid-v5 passive fall, limit_law {law}: torso height within {d[:10].max():.4f} m of "
              f"MuJoCo's over the landing (0.15 s), {d[:20].max():.4f} m over 0.3 s, {d.max():.4f} m over 1.2 s; "
              f"lying at {ours[-1]:.4f} m (MuJoCo {theirs[-1]:.4f} m)")
        assert d[:10].max() <= bounds[0]  # measured 0.0004 (step), 0.0002 (solreflimit)
        if bounds[1] is not None:
            assert d.max() <= bounds[1]  # measured 0.0199
        assert abs(ours[-1] - theirs[-1]) <= 0.005 and theirs[-1] < 0.15, "both lie on the floor"


def test_the_stops_under_the_motors_against_mujoco():
    """Uniform random actions over the ctrlrange, 6 episodes of 100 env steps from
    Gymnasium's resets in both: how far the joints pass their stops. MuJoCo's limit
    constraint cancels the motor's torque; a limit spring gives way by torque / stiffness,
    so the stiffer default law passes them by less than solreflimit's."""
    n, steps = 6, 100
    rng = np.random.default_rng(7)
    actions = rng.uniform(-0.4, 0.4, (steps, n, 17))
    m = mujoco.MjModel.from_xml_path(XML)
    lo, hi = m.jnt_range[1:, 0], m.jnt_range[1:, 1]

    def past(q):  # per sample, the largest angle past a stop [rad]
        return np.max(np.maximum(lo - q, q - hi), axis=-1)

    theirs = []
    for i in range(n):
        g = gym.make("Humanoid-v5", terminate_when_unhealthy=False)
        g.reset(seed=i)
        for t in range(steps):
            g.step(actions[t, i])
            theirs.append(past(g.unwrapped.data.qpos[7:]))
    figures = {"mujoco": np.array(theirs)}
    for law in ("step", "solreflimit"):
        env = simphant.gym.make("Humanoid-v5", num_envs=n, backend="cpu", terminate_when_unhealthy=False,
                                limit_law=law)
        env.reset(seed=0)
        ours = []
        for t in range(steps):
            env.step(actions[t])
            ours.append(past(env.sim.joint_state()[0]))
        figures[law] = np.array(ours)
    five = np.radians(5.0)
    summary = {k: (float(np.mean(v > five)), float(np.degrees(v.max()))) for k, v in figures.items()}
    print(f"\nHumanoid-v5 under random actions, (share of samples with a joint > 5 degrees past its stop, "
          f"largest excursion in degrees): {summary}")
    assert summary["step"][0] <= 0.1 and summary["step"][1] <= 20.0  # measured 0.043, 14.7
    assert summary["solreflimit"][1] > summary["step"][1]


def test_the_default_step_against_a_fine_one():
    """One env step (15 ms) of the default step (RK4 at the file's 3 ms) against 12 substeps
    (0.25 ms) from the same state, along 8 episodes of uniform random actions over the
    ctrlrange (the humanoid lands, flails and falls: contact with the floor and itself,
    joints on their stops). The error is largest where a contact starts within a step.
    Both with limit_law "solreflimit": the default law's stops are set by the step
    (omega = 0.5 / dt), so a finer step would be a stiffer model, not a more accurate
    solution of the same one."""
    err = one_step_errors("Humanoid-v5", 8, 60, 12, seed=4, limit_law="solreflimit")
    worst, median = err.max(axis=0), np.median(err, axis=0)
    print(f"\nHumanoid-v5 default step against 0.25 ms, per env step: torso position max {worst[0]:.3g} m "
          f"(median {median[0]:.3g}), hinges max {worst[1]:.3g} rad (median {median[1]:.3g}), rates max "
          f"{worst[2]:.3g} (median {median[2]:.3g}) [m/s, rad/s]")
    assert worst[0] <= 5e-3 and median[1] <= 1e-2 and median[2] <= 2.0, (worst, median)


def _mujoco_body_pairs(m, qpos, depth):
    """MuJoCo's contacts between two bodies (not the floor) with dist < -depth [m] (its
    contacts start at the geoms' margins, 2 mm apart), as sorted body-name pairs."""
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_forward(m, d)
    out = set()
    for c in d.contact[:d.ncon]:
        b = sorted(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, m.geom_bodyid[g]) for g in c.geom)
        if "world" not in b and c.dist < -depth:
            out.add(tuple(b))
    return out


def test_self_contact_pairs_and_their_cfrc_ext():
    m = mujoco.MjModel.from_xml_path(XML)
    rng = np.random.default_rng(2)
    n = 32
    qpos, qvel = _lifted_states(m, n, rng, spread=0.5)
    env = simphant.gym.make("Humanoid-v5", num_envs=n, backend="cpu",
                            reset_events=[states_event(np.concatenate([qpos, qvel], axis=1))])
    env.reset(seed=0)
    sim = env.sim
    names = sim.contact_pair_names
    bodies = mujoco_data.mujoco_bodies(XML)
    ids = mujoco_data.cfrc_ext_map(names, bodies)
    w = sim.contact_wrenches()
    depth_free = np.abs(w).sum(axis=2) > 0
    touching = 0
    for i in range(n):
        ours = set()
        for p in np.flatnonzero(depth_free[i]):
            if ids[p, 0] != 0:
                ours.add(tuple(sorted((bodies[ids[p, 0]], bodies[ids[p, 1]]))))
        # between MuJoCo's overlaps deeper than 0.1 mm and its contacts within the margins
        deep, near = _mujoco_body_pairs(m, qpos[i], 1e-4), _mujoco_body_pairs(m, qpos[i], -0.002)
        assert deep <= ours <= near, (i, deep - ours, ours - near)
        touching += len(ours)
    print(f"\nHumanoid-v5 at {n} random states: {touching} touching body pairs, as MuJoCo's")
    assert touching >= 3, "some random states overlap"
    # cfrc_ext: pair by pair, B takes the pair's wrench about the centre of mass, A its opposite
    c = sim.centre_of_mass()
    got = mujoco_data.cfrc_ext(sim, mujoco_data.pair_sides(ids, len(bodies)))
    want = np.zeros_like(got)
    for i in range(n):
        for p in range(len(names)):
            f, tau = w[i, p, :3], w[i, p, 3:] - np.cross(c[i], w[i, p, :3])
            for body, sign in ((ids[p, 1], 1.0), (ids[p, 0], -1.0)):
                if body != 0:
                    want[i, body] += sign * np.concatenate([tau, f])
    assert np.allclose(got, want, rtol=0, atol=1e-12 * max(1.0, np.abs(want).max()))
    # lifted: only self-contact, which sums to no force and no moment
    assert np.allclose(got.sum(axis=1), 0.0, atol=1e-9 * max(1.0, np.abs(got).max()))


def test_spaces_reset_qfrc_actuator_and_contact_cost():
    env = simphant.gym.make("Humanoid-v5", num_envs=3, backend="cpu")
    assert env.single_observation_space.shape == (348,)
    assert env.single_action_space.shape == (17,)
    assert np.all(env.single_action_space.low == -0.4) and np.all(env.single_action_space.high == 0.4)
    obs, _ = env.reset(seed=4)
    s = env.sim.get_state(np.arange(3)).y
    assert np.allclose(np.linalg.norm(s[:, 3:7], axis=1), 1.0, atol=1e-15), "a unit quaternion"
    assert np.all(np.abs(s[:, :3] - [0.0, 0.0, 1.4]) <= 0.01) and np.all(np.abs(s[:, 7:24]) <= 0.01)
    assert np.all(np.abs(s[:, 24:]) <= 0.01)
    assert np.array_equal(obs[:, 253:270], np.zeros((3, 17))), "no control before the first step"
    assert np.all(obs[:, 270:] == 0), "dropped from 11 cm: nothing touches at the reset"
    obs2, _ = env.reset(seed=4)
    assert np.array_equal(obs, obs2), "the seed fixes the reset"
    a = np.random.default_rng(0).uniform(-0.6, 0.6, (3, 17))
    obs, *_ = env.step(a)
    assert np.allclose(obs[:, 253:270], np.clip(a, -0.4, 0.4) @ env.gear.T, rtol=0, atol=1e-12)
    sizes = {"include_cinert_in_observation": 218, "include_cvel_in_observation": 270,
             "include_qfrc_actuator_in_observation": 331, "include_cfrc_ext_in_observation": 270}
    for option, size in sizes.items():
        assert simphant.gym.make("Humanoid-v5", backend="cpu", **{option: False}).single_observation_space.shape == \
            (size,)
    full = simphant.gym.make("Humanoid-v5", backend="cpu", exclude_current_positions_from_observation=False)
    assert full.single_observation_space.shape == (350,)
    # the contact cost, clipped: standing on its feet the cfrc_ext norm is large
    costly = simphant.gym.make("Humanoid-v5", num_envs=1, backend="cpu", reset_noise_scale=0.0,
                               contact_cost_weight=1.0, contact_cost_range=(-np.inf, 2.0))
    free = simphant.gym.make("Humanoid-v5", num_envs=1, backend="cpu", reset_noise_scale=0.0,
                             contact_cost_weight=0.0)
    costly.reset(seed=0)
    free.reset(seed=0)
    for _ in range(12):  # landed by the 10th step
        oc, rc, *_ = costly.step(np.zeros((1, 17)))
        of, rf, *_ = free.step(np.zeros((1, 17)))
    assert np.array_equal(oc, of)
    assert np.sum(oc[0, 270:] ** 2) > 2.0
    assert rf[0] - rc[0] == pytest.approx(2.0, abs=1e-12)
    # a NaN action is refused before anything changes: the envs not reset keep their control
    env.step(np.full((3, 17), 0.2))
    bad = np.zeros((3, 17))
    bad[2, 16] = np.nan
    with pytest.raises(ValueError, match=r"actions\[2, 16\] is NaN"):
        env.step(bad)
    obs, _ = env.reset(options={"reset_mask": np.array([True, False, False])})
    assert np.all(np.isfinite(obs))
    assert np.all(obs[0, 253:270] == 0) and np.any(obs[1:, 253:270] != 0), "the reset env's ctrl is zero"
    # a bad option names itself
    for option, value in (("contact_cost_range", (1.0,)), ("healthy_z_range", 1.0), ("healthy_z_range", (2, 1)),
                          ("reset_noise_scale", -1.0), ("forward_reward_weight", "a"), ("frame_skip", 2.5),
                          ("include_cvel_in_observation", "no"), ("terminate_when_unhealthy", 0),
                          ("exclude_current_positions_from_observation", None)):
        with pytest.raises(ValueError, match=option):
            simphant.gym.make("Humanoid-v5", backend="cpu", **{option: value})
    with pytest.raises(ValueError, match="limit_law"):
        simphant.gym.make("Humanoid-v5", backend="cpu", limit_law="hard")
