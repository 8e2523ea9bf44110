"""Gymnasium's Ant-v5 as a SimPhant vector env, registered on import as "Ant-v5"
(gymnasium/envs/mujoco/ant_v5.py, v5's defaults), from Gymnasium's ant.xml (shipped in
simphant/gym/assets/, MIT, LICENSE-gymnasium.txt there) read by SimPhant's MJCF importer
(docs/mjcf.md). docs/python.md ("Ant-v5") lists the definitions, what differs from
Gymnasium and the measured lockstep agreement (tests/python/test_gym_ant.py).

MuJoCo's cfrc_ext, the external wrench on each body that the observation and the contact
cost read, is built from the C++ core's contact wrenches and centre of mass by
mujoco_data.cfrc_ext, once per step (mujoco_data.CfrcExt).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .mujoco_data import CfrcExt, FreeBase
from .mujoco_tasks import _host, _make, actuator_map, asset_path, mjcf_scene
from .registry import register
from .vector_env import flag, number_range, real_number, whole_number

#: The contact section of Ant-v5: a linear law, K = 1e4 N/m (the 0.91 kg ant sinks 0.2 mm
#: on four feet), e = 0.1, friction 1 (MuJoCo's pair takes the larger of the geoms' 1 and
#: the floor's 1), Coulomb friction regularised below 1 cm/s (a standing ant's legs, pushed
#: apart by its weight, creep at 4 mm/s; at 10 cm/s they would slide at 4 cm/s; docs/python.md
#: "Ant-v5" measures the step against it). The ground plane lies 2 cm
#: up: every geom of ant.xml, the floor included, has margin 0.01, MuJoCo adds a pair's
#: two margins, and its contact acts from that distance on (its constraint holds the
#: surfaces that far apart), so MuJoCo's ant stands 2 cm above its floor.
ANT_CONTACT: Dict[str, Any] = {
    "ground": {"point": [0.0, 0.0, 0.02]},
    "materials": {"default": {"stiffness": 1e4, "exponent": 1, "restitution": 0.1, "friction": 1.0,
                              "slip_speed": 0.01}},
}

def ant(num_envs: Optional[int] = None, *, forward_reward_weight: float = 1.0, ctrl_cost_weight: float = 0.5,
        contact_cost_weight: float = 5e-4, healthy_reward: float = 1.0, terminate_when_unhealthy: bool = True,
        healthy_z_range: Tuple[float, float] = (0.2, 1.0), contact_force_range: Tuple[float, float] = (-1.0, 1.0),
        reset_noise_scale: float = 0.1, exclude_current_positions_from_observation: bool = True,
        include_cfrc_ext_in_observation: bool = True, frame_skip: int = 5, substeps: int = 5,
        contact: Optional[Dict[str, Any]] = None, limit_law: str = "solreflimit", solver: str = "aba",
        **kwargs: Any) -> Any:
    """Ant-v5: Gymnasium's four-legged ant on the ground (v5's defaults), from Gymnasium's
    ant.xml (shipped, simphant/gym/assets/): a torso on a free joint and four legs of a hip
    and an ankle hinge each (limited, armature 1, damping 1); its sphere and capsule geoms
    touch the ground (not each other: conaffinity 0) under the law `contact` (default
    ANT_CONTACT).

    Action (8,): Box [-1, 1]^8; the hinge torques are gear (150) * clip(action, ctrlrange)
    [N m], in the file's actuator order (hip_4, ankle_4, hip_1, ankle_1, hip_2, ankle_2,
    hip_3, ankle_3). Observation (105,): qpos without x, y (13: the torso's height [m],
    its quaternion (w, x, y, z), the 8 hinge angles [rad]), qvel (14: the torso's velocity
    [m/s] (W), its angular velocity [rad/s] (torso axes), the hinge rates), and
    clip(cfrc_ext[1:], contact_force_range) (13 bodies x 6: cfrc_ext()); with
    include_cfrc_ext_in_observation False without the last 78 (27,), with
    exclude_current_positions_from_observation False with x, y. Reward per step:
    forward_reward_weight * x_velocity + healthy_reward * healthy - ctrl_cost_weight *
    |action|^2 - contact_cost_weight * |clip(cfrc_ext, contact_force_range)|^2,
    x_velocity the torso's x displacement over the step divided by its duration
    (frame_skip * 0.01 s), the action as given (not clipped, as in Gymnasium). healthy:
    the state finite and the torso's height in healthy_z_range (closed). Terminated: not
    healthy (with terminate_when_unhealthy), or a state not finite (also without: as the
    other tasks, unlike Gymnasium). Truncated after 1000 steps. Reset: qpos
    uniform in [-reset_noise_scale, reset_noise_scale] (0.1) about qpos0 (the torso at
    0.75 m, level; the hinges at 0), qvel reset_noise_scale * N(0, 1), drawn with the
    env's np_random; the quaternion normalised. One env step is frame_skip (5) steps of
    the file's timestep (0.01 s), each integrated as `substeps` (5) RK4 steps of 2 ms.
    solver: "aba" (default) or "cga"; default num_envs: 1. kwargs: VectorEnv arguments.

    Gymnasium's ant touches the floor through MuJoCo's soft constraints, this one through
    SimPhant's compliant law (docs/contact.md), and its joint limits through MuJoCo's
    limit constraints, this one through SimPhant's limit springs, limit_law
    (robot.limit_law): by default with the file's solreflimit time constant ("solreflimit",
    docs/mjcf.md "Joint limits": the reset leaves each ankle 0.52 rad outside its range,
    and this mode brings it in as MuJoCo's constraint does), or "step". In
    flight and inside the limits the two agree to the integrators' accuracy; on the
    ground, and for cfrc_ext, only to the difference of the laws (docs/python.md).
    """
    xml = asset_path("ant.xml")
    gear, low, high, names = actuator_map(xml)
    from .. import _simphant

    info = _simphant.mjcf_model(xml)
    base = FreeBase(info)
    forces = CfrcExt(xml)
    fs, sub = whole_number("frame_skip", frame_skip), whole_number("substeps", substeps)
    env_dt = fs * float(info["timestep"])
    w_fwd = real_number("forward_reward_weight", forward_reward_weight)
    w_ctrl = real_number("ctrl_cost_weight", ctrl_cost_weight)
    w_contact = real_number("contact_cost_weight", contact_cost_weight)
    alive = real_number("healthy_reward", healthy_reward)
    z_lo, z_hi = number_range("healthy_z_range", healthy_z_range)
    f_lo, f_hi = number_range("contact_force_range", contact_force_range)
    noise = real_number("reset_noise_scale", reset_noise_scale, 0.0)
    terminate_when_unhealthy = flag("terminate_when_unhealthy", terminate_when_unhealthy)
    include_cfrc_ext_in_observation = flag("include_cfrc_ext_in_observation", include_cfrc_ext_in_observation)
    skip = 2 if flag("exclude_current_positions_from_observation", exclude_current_positions_from_observation) else 0
    holder: List[Any] = []  # the env: its last_actions
    x_before: List[np.ndarray] = [np.zeros(0)]  # the torso's x at the start of the step

    def contact_forces(sim: Any) -> np.ndarray:
        return np.clip(forces(sim), f_lo, f_hi)

    def observe(sim: Any) -> np.ndarray:
        qpos, qvel = base.qpos_qvel(sim)
        parts = [qpos[:, skip:], qvel]
        if include_cfrc_ext_in_observation:
            parts.append(contact_forces(sim)[:, 1:].reshape(sim.n_instances, -1))
        return np.concatenate(parts, axis=1)

    def healthy(sim: Any) -> np.ndarray:
        z = base.qpos_qvel(sim)[0][:, 2]
        return base.finite(sim) & (z_lo <= z) & (z <= z_hi)

    def record_x(env: Any) -> None:
        x_before[0] = base.qpos_qvel(env.sim)[0][:, 0].copy()

    def terminated(sim: Any, obs: Any) -> np.ndarray:
        return ~(healthy(sim) if terminate_when_unhealthy else base.finite(sim))

    def reward(sim: Any, obs: Any, action: Any) -> np.ndarray:
        x_velocity = (base.qpos_qvel(sim)[0][:, 0] - x_before[0]) / env_dt
        raw = _host(holder[0].last_actions)
        contact_cost = w_contact * np.sum(contact_forces(sim) ** 2, axis=(1, 2))
        return w_fwd * x_velocity + alive * healthy(sim) - w_ctrl * np.sum(raw ** 2, axis=1) - contact_cost

    scene = mjcf_scene(xml, solver, 1000 * fs, sub, ANT_CONTACT if contact is None else contact)
    scene["robot"]["limit_law"] = limit_law
    defaults = dict(scene=scene, num_envs=1 if num_envs is None else num_envs, observation=[observe],
                    action_low=low, action_high=high, action_map=gear, reward=reward, terminated=terminated,
                    max_episode_steps=1000, frame_skip=fs * sub,
                    reset_events=[forces.forget, base.reset_event(noise, "normal")]
                    + list(kwargs.pop("reset_events", [])),
                    pre_step_events=[forces.forget, record_x] + list(kwargs.pop("pre_step_events", [])))
    env = _make(defaults, kwargs, names, gear)
    holder.append(env)
    return env


register("Ant-v5", ant, "Gymnasium's Ant-v5 (MuJoCo MJCF with ground contact and cfrc_ext, aba)")
