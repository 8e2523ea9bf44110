"""Gymnasium's Humanoid-v5 as a SimPhant vector env, registered on import as "Humanoid-v5"
(gymnasium/envs/mujoco/humanoid_v5.py, v5's defaults), from Gymnasium's humanoid.xml
(shipped in simphant/gym/assets/, MIT, LICENSE-gymnasium.txt there) read by SimPhant's MJCF
importer (docs/mjcf.md; its two fixed tendons are inert and imported as nothing).
docs/python.md ("Humanoid-v5") lists the definitions, what differs from Gymnasium and the
measured agreement (tests/python/test_gym_humanoid.py).

The observation's cinert, cvel and cfrc_ext are MuJoCo's per-body quantities, built from
the C++ core's outputs by mujoco_data; qfrc_actuator is the motors' joint torques.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .mujoco_data import BodyInertias, CfrcExt, FreeBase
from .mujoco_tasks import _host, _make, actuator_map, asset_path, mjcf_scene
from .registry import register
from .vector_env import flag, number_range, real_number, whole_number

#: The contact section of Humanoid-v5: a linear law, K = 5e4 N/m, e = 0.1, Coulomb friction
#: regularised below 1 cm/s. K is near the stiffness of MuJoCo's default soft contact
#: (solref 0.02 s, critically damped) under the 40 kg humanoid's weight: the standing
#: humanoid sinks about 4 mm per foot, and a passive fall follows MuJoCo's within 5 mm of
#: torso height until it buckles (docs/python.md "Humanoid-v5"). humanoid.xml gives every
#: body geom condim 1 (frictionless) and the floor condim 3 with friction 1; MuJoCo's pair
#: takes the larger condim and friction, so the feet grip the floor with friction 1 and the
#: body's parts slide on each other without friction. SimPhant's pair friction is the
#: geometric mean of its materials' (docs/scene-format.md "Pair parameters"): the body's
#: material has 0.01 and the floor's 100, which gives 1 against the floor and 0.01 between
#: two body parts. The ground plane lies 2 mm up: every geom of humanoid.xml, the floor
#: included, has margin 1 mm, MuJoCo adds a pair's two margins, and its contact acts from
#: that distance.
HUMANOID_CONTACT: Dict[str, Any] = {
    "ground": {"point": [0.0, 0.0, 0.002], "material": "floor"},
    "materials": {"default": {"stiffness": 5e4, "exponent": 1, "restitution": 0.1, "friction": 0.01,
                              "slip_speed": 0.01},
                  "floor": {"stiffness": 5e4, "exponent": 1, "restitution": 0.1, "friction": 100.0,
                            "slip_speed": 0.01}},
}


def humanoid(num_envs: Optional[int] = None, *, forward_reward_weight: float = 1.25, ctrl_cost_weight: float = 0.1,
             contact_cost_weight: float = 5e-7, contact_cost_range: Tuple[float, float] = (-np.inf, 10.0),
             healthy_reward: float = 5.0, terminate_when_unhealthy: bool = True,
             healthy_z_range: Tuple[float, float] = (1.0, 2.0), reset_noise_scale: float = 1e-2,
             exclude_current_positions_from_observation: bool = True, include_cinert_in_observation: bool = True,
             include_cvel_in_observation: bool = True, include_qfrc_actuator_in_observation: bool = True,
             include_cfrc_ext_in_observation: bool = True, frame_skip: int = 5, substeps: int = 1,
             contact: Optional[Dict[str, Any]] = None, limit_law: str = "step", solver: str = "aba",
             **kwargs: Any) -> Any:
    """Humanoid-v5: Gymnasium's humanoid on the ground (v5's defaults), from Gymnasium's
    humanoid.xml (shipped, simphant/gym/assets/): a torso on a free joint, an abdomen
    (3 hinges), two legs (3 hip hinges, a knee; the foot welded to the shin) and two arms
    (2 shoulder hinges, an elbow), all limited, with armature, damping and joint springs;
    its capsule and sphere geoms touch the ground and each other (not a body and its
    parent, as in MuJoCo) under the law `contact` (default HUMANOID_CONTACT).

    Action (17,): Box [-0.4, 0.4]^17 (the ctrlrange); the hinge torques are gear (25 to
    300) * clip(action, ctrlrange) [N m], in the file's actuator order (abdomen_y,
    abdomen_z, abdomen_x, right hip x, z, y, right knee, left hip x, z, y, left knee, right
    shoulder 1, 2, elbow, left shoulder 1, 2, elbow). Observation (348,): qpos without x, y
    (22: the torso's height [m], its quaternion (w, x, y, z), the 17 hinge angles [rad]),
    qvel (23: the torso's velocity [m/s] (W), its angular velocity [rad/s] (torso axes),
    the hinge rates), then per MuJoCo body but the world (13: torso, lwaist, pelvis, right
    thigh, shin, foot, left thigh, shin, foot, right upper arm, lower arm, left upper arm,
    lower arm) cinert (10 each), cvel (6 each), then qfrc_actuator of the hinges (17, [N m],
    joint order) and cfrc_ext (6 each): MuJoCo's quantities (mujoco_data), com-based about
    the model's centre of mass; each part left out with its include_*_in_observation
    False, x and y kept with exclude_current_positions_from_observation False. Reward per
    step: forward_reward_weight * x_velocity + healthy_reward * healthy -
    ctrl_cost_weight * |action|^2 - clip(contact_cost_weight * |cfrc_ext|^2,
    contact_cost_range), x_velocity the centre of mass's x displacement over the step
    divided by its duration (frame_skip * 0.003 s), the action as given (not clipped, as in
    Gymnasium). healthy: the state finite and healthy_z_range[0] < the torso's height <
    healthy_z_range[1]. Terminated: not healthy (with terminate_when_unhealthy), or a state
    not finite (also without: as the other tasks, unlike Gymnasium). Truncated after 1000
    steps. Reset: qpos, qvel each uniform in [-reset_noise_scale, reset_noise_scale]
    (0.01) about qpos0 (the torso at 1.4 m, level; the hinges at 0) and 0, drawn with the
    env's np_random; the quaternion normalised. One env step is frame_skip (5) steps of the
    file's timestep (3 ms), each integrated as `substeps` (1) RK4 steps. solver: "aba"
    (default) or "cga"; default num_envs: 1. kwargs: VectorEnv arguments.

    Gymnasium's humanoid touches the floor and itself through MuJoCo's soft constraints,
    this one through SimPhant's compliant law (docs/contact.md); its joints stop at their
    limits through MuJoCo's limit constraints, this one's through SimPhant's limit springs,
    limit_law (robot.limit_law, docs/robots.md): "step" (default), critically damped at
    omega = 0.5 / dt, or "solreflimit", the file's time constant (0.02 s). Under the
    motors "step" is the closer: with uniform random actions the joints pass their stops
    by up to 15 degrees (MuJoCo: 8), "solreflimit" by up to 39. In a passive fall from
    the reset, which leaves both knees 2 degrees outside their ranges, "solreflimit"
    follows MuJoCo's torso within 2 cm and "step" buckles earlier (docs/python.md
    "Humanoid-v5" measures both). In flight and inside the limits the two simulators
    agree to the integrators' accuracy.
    """
    xml = asset_path("humanoid.xml")
    gear, low, high, names = actuator_map(xml)
    from .. import _simphant

    info = _simphant.mjcf_model(xml)
    base = FreeBase(info)
    inertias = BodyInertias(xml)
    forces = CfrcExt(xml)
    fs, sub = whole_number("frame_skip", frame_skip), whole_number("substeps", substeps)
    env_dt = fs * float(info["timestep"])
    w_fwd = real_number("forward_reward_weight", forward_reward_weight)
    w_ctrl = real_number("ctrl_cost_weight", ctrl_cost_weight)
    w_contact = real_number("contact_cost_weight", contact_cost_weight)
    c_lo, c_hi = number_range("contact_cost_range", contact_cost_range)
    alive = real_number("healthy_reward", healthy_reward)
    z_lo, z_hi = number_range("healthy_z_range", healthy_z_range)
    noise = real_number("reset_noise_scale", reset_noise_scale, 0.0)
    terminate_when_unhealthy = flag("terminate_when_unhealthy", terminate_when_unhealthy)
    include_cinert_in_observation = flag("include_cinert_in_observation", include_cinert_in_observation)
    include_cvel_in_observation = flag("include_cvel_in_observation", include_cvel_in_observation)
    include_qfrc_actuator_in_observation = flag("include_qfrc_actuator_in_observation",
                                                include_qfrc_actuator_in_observation)
    include_cfrc_ext_in_observation = flag("include_cfrc_ext_in_observation", include_cfrc_ext_in_observation)
    skip = 2 if flag("exclude_current_positions_from_observation", exclude_current_positions_from_observation) else 0
    holder: List[Any] = []  # the env: its last_actions
    x_before: List[np.ndarray] = [np.zeros(0)]  # the centre of mass's x at the start of the step
    def qfrc_actuator(sim: Any) -> np.ndarray:
        # last_actions is zero from a reset to the next step, as MuJoCo's ctrl
        if not holder:  # the env's construction sizes the observation
            return np.zeros((sim.n_instances, gear.shape[0]))
        return np.clip(_host(holder[0].last_actions), low, high) @ gear.T

    def observe(sim: Any) -> np.ndarray:
        qpos, qvel = base.qpos_qvel(sim)
        parts = [qpos[:, skip:], qvel]
        if include_cinert_in_observation or include_cvel_in_observation:
            f, c = inertias.frames(sim), sim.centre_of_mass()
            if include_cinert_in_observation:
                parts.append(inertias.cinert(f, c).reshape(sim.n_instances, -1))
            if include_cvel_in_observation:
                parts.append(inertias.cvel(f, c).reshape(sim.n_instances, -1))
        if include_qfrc_actuator_in_observation:
            parts.append(qfrc_actuator(sim))
        if include_cfrc_ext_in_observation:
            parts.append(forces(sim)[:, 1:].reshape(sim.n_instances, -1))
        return np.concatenate(parts, axis=1)

    def healthy(sim: Any) -> np.ndarray:
        z = base.qpos_qvel(sim)[0][:, 2]
        return base.finite(sim) & (z_lo < z) & (z < z_hi)

    def before_step(env: Any) -> None:
        x_before[0] = env.sim.centre_of_mass()[:, 0].copy()

    def terminated(sim: Any, obs: Any) -> np.ndarray:
        return ~(healthy(sim) if terminate_when_unhealthy else base.finite(sim))

    def reward(sim: Any, obs: Any, action: Any) -> np.ndarray:
        x_velocity = (sim.centre_of_mass()[:, 0] - x_before[0]) / env_dt
        raw = _host(holder[0].last_actions)
        contact_cost = np.clip(w_contact * np.sum(forces(sim) ** 2, axis=(1, 2)), c_lo, c_hi)
        return w_fwd * x_velocity + alive * healthy(sim) - w_ctrl * np.sum(raw ** 2, axis=1) - contact_cost

    scene = mjcf_scene(xml, solver, 1000 * fs, sub, HUMANOID_CONTACT if contact is None else contact)
    scene["robot"]["limit_law"] = limit_law
    defaults = dict(scene=scene, num_envs=1 if num_envs is None else num_envs, observation=[observe],
                    action_low=low, action_high=high, action_map=gear, reward=reward, terminated=terminated,
                    max_episode_steps=1000, frame_skip=fs * sub,
                    reset_events=[forces.forget, base.reset_event(noise, "uniform")]
                    + list(kwargs.pop("reset_events", [])),
                    pre_step_events=[forces.forget, before_step] + list(kwargs.pop("pre_step_events", [])))
    env = _make(defaults, kwargs, names, gear)
    holder.append(env)
    return env


register("Humanoid-v5", humanoid, "Gymnasium's Humanoid-v5 (MuJoCo MJCF with ground and self-contact, cinert, "
                                  "cvel, qfrc_actuator, cfrc_ext; aba)")
