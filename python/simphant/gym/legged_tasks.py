"""Legged-robot tasks of simphant.gym with ground contact, registered on import:

- "Solo12StandUp-v0": the quadruped Solo-12 (example-robot-data's URDF, a floating base),
  lying on the ground with its legs folded, stands up by commanding its twelve joint
  position servos; its observation includes the feet's contact forces.

The scene is SOLO12_STAND_UP_SCENE (a dict in the scene format; docs/python.md,
"Solo12StandUp-v0").
"""
from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional

import numpy as np

from .._quiet import quiet_warnings
from . import mdp
from .builtin import _build
from .registry import register
from .vector_env import VectorEnv, whole_number

#: Solo-12's joints in the URDF's (and the actions') order
SOLO12_JOINTS: List[str] = [f"{leg}_{j}" for leg in ("FL", "FR", "HL", "HR") for j in ("HAA", "HFE", "KFE")]
#: the lying pose [rad]: each upper leg turned to the horizontal, the lower leg folded back under it
SOLO12_LYING: List[float] = [0.0, 1.5, -2.9] * 2 + [0.0, -1.5, 2.9] * 2
#: the standing pose of examples/solo12_stand.json [rad] (the base about 0.22 m high)
SOLO12_STANDING: List[float] = [0.0, 0.8, -1.6] * 2 + [0.0, -0.8, 1.6] * 2
#: the contact pairs whose normal forces the observation holds: the four feet on the ground
SOLO12_FOOT_PAIRS: List[str] = [f"contact ground {leg}_FOOT[0]" for leg in ("FL", "FR", "HL", "HR")]


def _solo12_collision() -> Dict[str, Any]:
    # Spheres of 16 mm at the feet and at the knees (the origin of each lower leg's frame)
    # and the box bounding the body's mesh (solo_12_base.stl: 0.448 x 0.219 x 0.053 m,
    # centred 1.5 mm above the base frame); conaffinity 0: each touches the ground only.
    shapes: Dict[str, Any] = {}
    for leg in ("FL", "FR", "HL", "HR"):
        shapes[f"{leg}_FOOT"] = {"type": "sphere", "radius": 0.016, "conaffinity": 0}
        shapes[f"{leg}_LOWER_LEG"] = {"type": "sphere", "radius": 0.016, "conaffinity": 0}
    shapes["base_link"] = {"type": "box", "size": [0.448, 0.219, 0.053],
                           "origin": {"position": [0.0, 0.0, 0.0015]}, "conaffinity": 0}
    return shapes


#: Solo-12 lying on the ground: a floating base 7 cm above the ground (it settles onto its
#: folded legs within 0.2 s), position servos of kp 6 N m/rad and kd 0.2 N m s/rad
#: (examples/solo12_stand.json's) holding the lying pose, the ground a linear
#: spring-dashpot (K = 2e4 N/m, e = 0.3) with Coulomb friction 0.9 regularised below
#: 1 cm/s, RK4 at dt = 0.5 ms (the hip abduction servos' mode allows 0.95 ms). The sweep
#: varies the friction between 0.6 and 1.0 (drawn anew at each reset with randomize=True).
SOLO12_STAND_UP_SCENE: Dict[str, Any] = {
    "name": "Solo-12 lying on the ground, standing up on its joint position servos",
    "robot": {
        "urdf": "example-robot-data:solo_description/robots/solo12.urdf",
        "floating_base": True,
        "q0": SOLO12_LYING,
        "base": {"position": [0.0, 0.0, 0.07]},
        "servos": {name: {"mode": "position", "kp": 6.0, "kd": 0.2, "target": q}
                   for name, q in zip(SOLO12_JOINTS, SOLO12_LYING)},
        "collision": _solo12_collision(),
    },
    "contact": {"ground": {}, "materials": {"default": {"stiffness": 2e4, "exponent": 1, "restitution": 0.3,
                                                         "friction": 0.9, "slip_speed": 0.01}}},
    "solver": {"type": "aba", "dt": 5e-4, "t_end": 2.0, "record_every": 40},
    "sweep": {"mode": "random", "instances": 64, "seed": 5, "parameters": [
        {"path": "contact.materials.default.friction", "dist": "uniform", "low": 0.6, "high": 1.0},
    ]},
}


_base_position = mdp.link_frame("base_link", "position")


def _base_height(sim: Any) -> Any:
    """Observation term: the height of Solo-12's base frame above the ground [m], (num_envs, 1)."""
    return _base_position(sim)[:, 2:3]


def solo12_stand_up(num_envs: Optional[int] = None, *, target_height: float = 0.2, ctrl_cost_weight: float = 0.01,
                    action_scale: float = 1.5, q_noise: float = 0.05, frame_skip: int = 40, episode_time: float = 2.0,
                    **kwargs: Any) -> VectorEnv:
    """Solo12StandUp-v0: Solo-12, lying on the ground with its legs folded, stands up.

    Action (12,), Box [-1, 1]: the joint position servo targets about the lying pose,
    target = SOLO12_LYING + action_scale (1.5 rad) x action, in SOLO12_JOINTS order
    (FL, FR, HL, HR; hip abduction HAA, hip flexion HFE, knee KFE). Observation (38,): the
    base's height [m] (1), the world's down direction in the base's axes (3,
    mdp.projected_gravity: (0, 0, -1) when level), the base's velocity (W [m/s], 3) and
    angular velocity (base axes [rad/s], 3), the joint positions [rad] (12) and rates
    [rad/s] (12), and the normal forces of the four feet on the ground [N] (4,
    mdp.contact_force over SOLO12_FOOT_PAIRS: which feet bear the weight).

    Reward per step: upright x min(height / target_height, 1) - ctrl_cost_weight x
    mean(action^2), upright = max(0, cos of the base's tilt) and height the base's: 1
    when standing level at target_height (0.2 m; the standing pose holds it near 0.22 m),
    about 0.14 lying. No termination (a fallen robot may get up again); episodes are
    truncated after episode_time (2 s) = 100 steps of frame_skip (40) simulator steps of
    0.5 ms. Reset: the scene's initial state (7 cm above the ground, settling onto the
    folded legs) with normal noise of q_noise [rad] on the joint positions. Default
    num_envs: 64 (the scene's sweep). kwargs: VectorEnv arguments (randomize=True draws
    the friction anew at each reset; scene= replaces the scene). Needs the
    example-robot-data package (pip install example-robot-data).
    """
    for name, value in (("target_height", target_height), ("action_scale", action_scale),
                        ("episode_time", episode_time)):
        if not value > 0:
            raise ValueError(f"{name}: must be > 0 (got {value})")
    if not q_noise >= 0:
        raise ValueError(f"q_noise: must be >= 0 [rad] (got {q_noise})")
    frame_skip = whole_number("frame_skip", frame_skip)
    scene = kwargs.pop("scene", SOLO12_STAND_UP_SCENE)
    events: List[Any] = []
    if q_noise > 0:
        events.append(mdp.joint_state_noise(q_std=q_noise))
    events += list(kwargs.pop("reset_events", []))
    gravity = mdp.projected_gravity("base_link")

    def reward(sim: Any, obs: Any, action: Any) -> Any:
        upright = (-gravity(sim)[:, 2]).clip(0.0, 1.0)
        height = (_base_height(sim)[:, 0] / target_height).clip(0.0, 1.0)
        ctrl = (action ** 2).mean(-1)  # of the action's kind (NumPy, or torch on the env's device)
        return mdp._like(upright * height, ctrl) - ctrl_cost_weight * ctrl

    defaults = dict(scene=copy.deepcopy(scene) if isinstance(scene, dict) else scene, num_envs=num_envs,
                    observation=[_base_height, gravity, mdp.link_frame("base_link", "velocity"),
                                 mdp.link_frame("base_link", "angular_velocity"), "joint_q", "joint_qd",
                                 mdp.contact_force(SOLO12_FOOT_PAIRS, "normal_force")],
                    action_low=-1.0, action_high=1.0, action_map=action_scale * np.eye(len(SOLO12_JOINTS)),
                    action_offset=np.array(SOLO12_LYING), reward=reward, frame_skip=frame_skip,
                    reset_events=events)
    with quiet_warnings():  # the URDF importer's notes on Solo-12's file (contact and visual tags): expected
        env = _build(defaults, kwargs)
    if "max_episode_steps" not in kwargs:  # episode_time in steps of the scene's own dt
        env.max_episode_steps = max(1, round(episode_time / (frame_skip * env.sim.dt)))
    return env


register("Solo12StandUp-v0", solo12_stand_up,
         "Solo-12 quadruped lying on the ground: stand up on the joint position servos (ground contact, aba)")
