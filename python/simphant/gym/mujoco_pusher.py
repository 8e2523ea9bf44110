"""Gymnasium's Pusher-v5 as a SimPhant vector env, registered on import as "Pusher-v5"
(gymnasium/envs/mujoco/pusher_v5.py, v5's defaults), from Gymnasium's pusher_v5.xml
(shipped in simphant/gym/assets/, MIT, LICENSE-gymnasium.txt there) read by SimPhant's
MJCF importer (docs/mjcf.md). The arm pushes the object, a cylinder on two slide joints,
with the three capsules of its wrist: capsule-cylinder pairs of the C++ core's narrow
phase (docs/contact.md). docs/python.md ("Pusher-v5") lists the definitions, what
differs from Gymnasium and the measured agreement (tests/python/test_gym_pusher.py).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np

from . import mdp
from .mujoco_tasks import _host, _make, actuator_map, asset_path, body_offset, mjcf_scene
from .registry import register
from .vector_env import whole_number

#: The contact section of Pusher-v5. Every geom of pusher_v5.xml has condim 1 (a
#: frictionless normal force), so friction 0. The ground is the table's plane
#: (z = -0.325 m) 4 mm up: every geom, the table included, has margin 0.002, MuJoCo adds a
#: pair's two margins, and its contact acts from that distance on. A linear law, K = 1e3 N/m with restitution 0.1 (docs/python.md "Pusher-v5"
#: compares it with MuJoCo's on a scripted push).
PUSHER_CONTACT: Dict[str, Any] = {
    "ground": {"point": [0.0, 0.0, -0.321]},
    "materials": {"default": {"stiffness": 1e3, "exponent": 1, "restitution": 0.1, "friction": 0.0}},
}


def _pusher_reset(n_joints: int) -> Any:
    """Reset event of Pusher-v5's reset_model: the arm's qpos at 0 (MuJoCo's qpos0), the
    object's two slide coordinates (obj_slidey, obj_slidex) uniform in [-0.3, 0] and
    [-0.2, 0.2], redrawn until their norm exceeds 0.17 (the goal's, at 0), qvel uniform in
    [-0.005, 0.005] on the arm's 7 joints and 0 on the object's and goal's; drawn in
    Gymnasium's order per env. Every ref of pusher_v5.xml is 0: q = qpos."""

    def event(env: Any, ids: np.ndarray, rng: np.random.Generator) -> None:
        sim = env.sim
        s = sim.get_state(ids)
        for row in range(len(ids)):
            qpos = np.zeros(n_joints)
            while True:
                cylinder = np.concatenate([rng.uniform(-0.3, 0.0, 1), rng.uniform(-0.2, 0.2, 1)])
                if np.linalg.norm(cylinder) > 0.17:
                    break
            qpos[-4:-2] = cylinder
            qvel = rng.uniform(-0.005, 0.005, n_joints)
            qvel[-4:] = 0.0
            s.y[row, :n_joints] = qpos
            s.y[row, n_joints:] = qvel
        sim.set_state(s)

    return event


def pusher(num_envs: Optional[int] = None, *, reward_near_weight: float = 0.5, reward_dist_weight: float = 1.0,
           reward_control_weight: float = 0.1, frame_skip: int = 5, substeps: int = 1,
           contact: Optional[Dict[str, Any]] = None, solver: str = "aba", **kwargs: Any) -> Any:
    """Pusher-v5: Gymnasium's seven-joint arm pushing a cylinder to a goal on a table (v5's
    defaults), from Gymnasium's pusher_v5.xml (shipped, simphant/gym/assets/): 7 limited
    hinges (armature 0.04, damping 1 or 0.1), no gravity; the object and the goal each on
    two slide joints (y, then x; damping 0.5). The wrist's three capsules touch the object
    (a cylinder of radius and half-height 0.05 m) and the table; the object touches the
    table; under the law `contact` (default PUSHER_CONTACT).

    Action (7,): Box [-2, 2]^7; the hinge torques are gear (1) * clip(action, ctrlrange)
    [N m], shoulder pan to wrist roll. Observation (23,): the arm's qpos (7) [rad] and
    qvel (7) [rad/s], then the origins of the bodies tips_arm (welded to the wrist),
    object and goal in W (3 each) [m]. Reward per step: -reward_near_weight |object -
    tips_arm| - reward_dist_weight |object - goal| - reward_control_weight |action|^2,
    the positions after the step, the action as given (not clipped, as in Gymnasium).
    Never terminates (but for a state that is not finite); truncated after 100 steps.
    Reset: _pusher_reset's draws (Gymnasium's reset_model), with the env's np_random. One
    env step is frame_skip (5) steps of the file's timestep (0.01 s), each integrated as
    `substeps` (1) RK4 steps (docs/python.md "Pusher-v5" measures the step against 0.5 ms
    on pushes). solver: "aba" (default) or "cga"; default num_envs: 1. kwargs: VectorEnv
    arguments.

    Gymnasium's file integrates with MuJoCo's semi-implicit Euler at 0.01 s and touches
    through MuJoCo's soft constraints; this one integrates with RK4 and touches through
    SimPhant's compliant law (docs/contact.md), and its joints' stops differ (the reset
    leaves the elbow and wrist flex on their upper limits). Without contact and inside
    the joints' ranges the two agree to the integrators' accuracy (docs/python.md
    "Pusher-v5": to 1e-8 against MuJoCo's RK4).
    """
    xml = asset_path("pusher_v5.xml")
    gear, low, high, names = actuator_map(xml)
    from .. import _simphant

    info = _simphant.mjcf_model(xml)
    n_joints = len(info["links"])
    if any(link["ref"] != 0 for link in info["links"]):
        raise ValueError(f"{xml}: a joint with ref != 0 (the observation reads q as MuJoCo's qpos)")
    points = [mdp.link_point(*body_offset(xml, body)) for body in ("tips_arm", "object", "goal")]
    fs, sub = whole_number("frame_skip", frame_skip), whole_number("substeps", substeps)
    w_near, w_dist, w_ctrl = float(reward_near_weight), float(reward_dist_weight), float(reward_control_weight)
    holder: List[Any] = []  # the env: its last_actions

    def positions(sim: Any) -> np.ndarray:
        """(n, 3, 3): tips_arm, object, goal in W [m]."""
        return np.stack([_host(p(sim)) for p in points], axis=1)

    def observe(sim: Any) -> np.ndarray:
        q, qd, _ = sim.joint_state()
        return np.concatenate([q[:, :7], qd[:, :7], positions(sim).reshape(sim.n_instances, 9)], axis=1)

    def terminated(sim: Any, obs: Any) -> np.ndarray:
        q, qd, _ = sim.joint_state()
        return ~(np.isfinite(q).all(axis=1) & np.isfinite(qd).all(axis=1) & (sim.status()[0] == 0))

    def reward(sim: Any, obs: Any, action: Any) -> np.ndarray:
        p = positions(sim)
        raw = _host(holder[0].last_actions)
        near = np.linalg.norm(p[:, 1] - p[:, 0], axis=1)
        dist = np.linalg.norm(p[:, 1] - p[:, 2], axis=1)
        return -w_near * near - w_dist * dist - w_ctrl * np.sum(raw ** 2, axis=1)

    scene = mjcf_scene(xml, solver, 100 * fs, sub, PUSHER_CONTACT if contact is None else contact,
                       any_integrator=True)
    defaults = dict(scene=scene, num_envs=1 if num_envs is None else num_envs, observation=[observe],
                    action_low=low, action_high=high, action_map=gear, reward=reward, terminated=terminated,
                    max_episode_steps=100, frame_skip=fs * sub,
                    reset_events=[_pusher_reset(n_joints)] + list(kwargs.pop("reset_events", [])))
    env = _make(defaults, kwargs, names, gear)
    holder.append(env)
    env.tips_arm, env.object, env.goal = points
    return env


register("Pusher-v5", pusher, "Gymnasium's Pusher-v5 (MuJoCo MJCF with capsule-cylinder contact, aba)")
