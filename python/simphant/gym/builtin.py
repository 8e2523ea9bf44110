"""The built-in tasks of simphant.gym, registered on import:

- "SliderCrankSpeed-v0": drive the slider-crank's motor (examples/slider_crank.json) to a
  target crank speed.
- "PandaReach-v0": bring the Franka Panda's wrist (the origin of panda_link7) to a goal
  point by commanding its joint position servos (examples/panda_servo.json's servos).

Both are built from simphant.gym.mdp's pieces; their scenes are SLIDER_CRANK_SCENE and
PANDA_SCENE (dicts in the scene format).
"""
from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import mdp
from .registry import register
from .vector_env import VectorEnv, whole_number


def _build(defaults: Dict[str, Any], overrides: Dict[str, Any]) -> VectorEnv:
    args = dict(defaults)
    use_torch = bool(overrides.pop("torch", False))
    args.update(overrides)
    if use_torch:
        from .torch_env import TorchVectorEnv

        return TorchVectorEnv(**args)
    if "device" in args:
        raise ValueError("device: only with torch=True")
    return VectorEnv(**args)


# --- SliderCrankSpeed-v0 -------------------------------------------------------------------

#: The slider-crank of examples/slider_crank.json (r = 50 mm, l = 200 mm, a motor on the
#: main bearing against a gas load on the piston; the sweep varies the motor's default
#: torque, the piston's mass and the gas load).
SLIDER_CRANK_SCENE: Dict[str, Any] = {
    "name": "slider-crank (r = 50 mm, l = 200 mm) driven by a motor against a gas load",
    "gravity": [0.0, 0.0, -9.81],
    "bodies": [
        {"name": "crank", "mass": 0.3, "inertia": [2.16e-05, 7.33e-05, 7.33e-05],
         "position": [0.0125, 0.0, 0.021650635095], "orientation": [0.866025403784, 0.0, -0.5, 0.0]},
        {"name": "conrod", "mass": 0.25, "inertia": [8e-06, 0.0008373333, 0.0008373333],
         "position": [0.122628120949, 0.0, 0.021650635095], "orientation": [0.994052616688, 0.0, 0.108900850574, 0.0]},
        {"name": "piston", "mass": 0.4, "inertia": [0.00018, 0.0001433333, 0.0001433333],
         "position": [0.220256241898, 0.0, 0.0]},
    ],
    "joints": [
        {"name": "main_bearing", "type": "revolute", "body_i": "ground", "body_j": "crank",
         "frame": {"origin": [0.0, 0.0, 0.0], "z": [0.0, 1.0, 0.0], "x": [1.0, 0.0, 0.0]}},
        {"name": "crank_pin", "type": "revolute", "body_i": "crank", "body_j": "conrod",
         "frame": {"origin": [0.025, 0.0, 0.043301270189], "z": [0.0, 1.0, 0.0], "x": [1.0, 0.0, 0.0]}},
        {"name": "wrist_pin", "type": "revolute", "body_i": "conrod", "body_j": "piston",
         "frame": {"origin": [0.220256241898, 0.0, 0.0], "z": [0.0, 1.0, 0.0], "x": [1.0, 0.0, 0.0]}},
        {"name": "cylinder", "type": "prismatic", "body_i": "ground", "body_j": "piston",
         "frame": {"origin": [0.220256241898, 0.0, 0.0], "z": [1.0, 0.0, 0.0], "x": [0.0, 0.0, 1.0]}},
    ],
    "forces": [
        {"name": "motor", "type": "actuator", "joint": "main_bearing", "kind": "torque", "value": 0.5},
        {"name": "bearing_friction", "type": "rotational_spring_damper", "joint": "main_bearing",
         "stiffness": 0.0, "damping": 0.02},
        {"name": "gas_load", "type": "point_force", "body": "piston", "force": [-5.0, 0.0, 0.0],
         "point": [0.0, 0.0, 0.0], "frame": "world"},
    ],
    "solver": {"dt": 0.0005, "t_end": 3.0, "baumgarte_alpha": 10.0, "baumgarte_beta": 10.0,
               "tikhonov_epsilon": 1e-10, "record_every": 40, "violation_bound": 0.01},
    "sweep": {"mode": "lhs", "instances": 24, "seed": 3, "parameters": [
        {"path": "forces.motor.value", "dist": "uniform", "low": 0.3, "high": 0.7},
        {"path": "bodies.piston.mass", "dist": "uniform", "low": 0.3, "high": 0.5},
        {"path": "forces.gas_load.force[0]", "dist": "uniform", "low": -8.0, "high": -2.0},
    ]},
}


def slider_crank_speed(num_envs: Optional[int] = None, *, target: Union[float, Tuple[float, float]] = 8.0,
                       torque_limit: float = 2.0, episode_time: float = 1.0, **kwargs: Any) -> VectorEnv:
    """SliderCrankSpeed-v0: drive the slider-crank's motor to a target crank speed.

    Action: the motor torque [N m], Box [-torque_limit, torque_limit]. Observation (4,):
    the crank's angular velocity (body frame, [rad/s]; its bearing axis is the body and
    world y axis, so component 1 is the crank speed) and the target speed [rad/s].
    Reward per step: -((omega_y - target) / target_scale)^2, target_scale the mean of the
    target range. target: a speed [rad/s], or (low, high): drawn per sub-environment at
    each reset (a GoalSampler). One env step is 10 simulator steps (5 ms); episodes are
    truncated after episode_time [s]; default num_envs: 24 (the scene's sweep).
    kwargs: VectorEnv arguments (randomize=True draws the piston mass and gas load anew
    at each reset; scene= replaces the scene). The env's `goal` attribute is the
    GoalSampler of the targets.
    """
    low, high = (float(target), float(target)) if np.isscalar(target) else (float(target[0]), float(target[1]))
    if not 0 < low <= high:
        raise ValueError(f"target: a speed > 0 or a range 0 < low <= high [rad/s] (got {target})")
    goal = mdp.GoalSampler(low, high)
    omega_y = mdp.body_state("crank", "omega", components=[1])
    frame_skip = whole_number("frame_skip", kwargs.pop("frame_skip", 10))
    scene = kwargs.pop("scene", SLIDER_CRANK_SCENE)
    dt = float(scene["solver"]["dt"]) if isinstance(scene, dict) else 0.0005
    events = [goal] + list(kwargs.pop("reset_events", []))
    defaults = dict(scene=copy.deepcopy(scene) if isinstance(scene, dict) else scene, num_envs=num_envs,
                    observation=["crank.omega", goal.observe], action_low=-torque_limit, action_high=torque_limit,
                    reward=mdp.distance_reward(omega_y, goal, "squared", scale=2.0 / (low + high)),
                    max_episode_steps=max(1, round(episode_time / (frame_skip * dt))), frame_skip=frame_skip,
                    reset_events=events)
    env = _build(defaults, kwargs)
    env.goal = goal
    return env


# --- PandaReach-v0 -------------------------------------------------------------------------

#: Panda's joint limits (example-robot-data's URDF) [rad], then finger 1 [m]
_PANDA_LOW = [-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973, 0.0]
_PANDA_HIGH = [2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973, 0.04]

#: Franka Panda on position servos (examples/panda_servo.json's gains), joint coordinates.
PANDA_SCENE: Dict[str, Any] = {
    "name": "Franka Panda on joint position servos",
    "robot": {
        "urdf": "example-robot-data:panda_description/urdf/panda.urdf",
        "q0": [0.0, -0.785398, 0.0, -2.356194, 0.0, 1.570796, 0.785398, 0.02, 0.02],
        "servos": {
            "panda_joint1": {"mode": "position", "kp": 600.0, "kd": 15.0, "target": 0.0},
            "panda_joint2": {"mode": "position", "kp": 600.0, "kd": 40.0, "target": -0.785398},
            "panda_joint3": {"mode": "position", "kp": 400.0, "kd": 8.0, "target": 0.0},
            "panda_joint4": {"mode": "position", "kp": 400.0, "kd": 25.0, "target": -2.356194},
            "panda_joint5": {"mode": "position", "kp": 150.0, "kd": 4.0, "target": 0.0},
            "panda_joint6": {"mode": "position", "kp": 150.0, "kd": 8.0, "target": 1.570796},
            "panda_joint7": {"mode": "position", "kp": 50.0, "kd": 1.5, "target": 0.785398},
            "panda_finger_joint1": {"mode": "position", "kp": 100.0, "kd": 5.0, "target": 0.02},
        },
        "payload": {"link": "panda_link7", "mass": 0.5, "com": [0.0, 0.0, 0.1]},
    },
    "solver": {"type": "aba", "dt": 0.001, "t_end": 2.0, "record_every": 10},
    "sweep": {"mode": "random", "instances": 64, "seed": 11, "parameters": [
        {"path": "robot.payload.mass", "dist": "uniform", "low": 0.0, "high": 1.0},
    ]},
}


def panda_reach(num_envs: Optional[int] = None, *, goal_low: Sequence[float] = (0.3, -0.3, 0.3),
                goal_high: Sequence[float] = (0.6, 0.3, 0.7), q_noise: float = 0.0, reward_kernel: str = "linear",
                **kwargs: Any) -> VectorEnv:
    """PandaReach-v0: bring the Panda's wrist (the origin of panda_link7's frame, where the
    hand is fixed) to a goal point.

    Action (9,): the position-servo targets of panda_joint1..7 [rad] (Box: the URDF's
    joint limits) and of panda_finger_joint1 [m] (0 .. 0.04), and the torque input of the
    mimic finger joint 2 (Box [0, 0]). Observation (24,): joint positions (9), joint rates
    (9), the wrist position (W [m], 3) and the goal (W [m], 3). Reward per step:
    distance_reward(wrist, goal, reward_kernel) (default -|wrist - goal| [m]). The goal is
    drawn per sub-environment at each reset, uniformly in the box [goal_low, goal_high]
    (W [m]); q_noise [rad] adds normal noise to the initial joint positions. One env step
    is 20 simulator steps (20 ms); episodes are truncated after 100 steps (2 s); default
    num_envs: 64. kwargs: VectorEnv arguments (randomize=True draws a payload of 0 .. 1
    kg on the hand at each reset; scene= replaces the scene). The env's `goal` attribute
    is the GoalSampler of the goals. Needs the example-robot-data package (pip install
    example-robot-data).
    """
    goal = mdp.GoalSampler(goal_low, goal_high)
    wrist = mdp.link_position("panda_link7")
    events: List[Any] = [goal]
    if q_noise > 0:
        events.append(mdp.joint_state_noise(q_std=q_noise))
    events += list(kwargs.pop("reset_events", []))
    scene = kwargs.pop("scene", PANDA_SCENE)
    defaults = dict(scene=copy.deepcopy(scene) if isinstance(scene, dict) else scene, num_envs=num_envs,
                    observation=["joint_q", "joint_qd", wrist, goal.observe],
                    action_low=np.array(_PANDA_LOW + [0.0]), action_high=np.array(_PANDA_HIGH + [0.0]),
                    reward=mdp.distance_reward(wrist, goal, reward_kernel), max_episode_steps=100, frame_skip=20,
                    reset_events=events)
    env = _build(defaults, kwargs)
    env.goal = goal
    return env


def panda_home_action(num_envs: int) -> np.ndarray:
    """(num_envs, 9) the action that holds PandaReach-v0's initial pose."""
    q0 = PANDA_SCENE["robot"]["q0"]
    return np.tile(np.array(q0[:8] + [0.0]), (num_envs, 1))


register("SliderCrankSpeed-v0", slider_crank_speed, "slider-crank: drive the motor to a target crank speed")
register("PandaReach-v0", panda_reach, "Franka Panda on position servos: bring the wrist to a goal point")
