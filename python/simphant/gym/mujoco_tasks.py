"""Gymnasium's MuJoCo tasks as SimPhant vector envs, registered on import:

- "InvertedPendulum-v5": Gymnasium's InvertedPendulum-v5 (gymnasium/envs/mujoco/
  inverted_pendulum_v5.py, v5's defaults).
- "InvertedDoublePendulum-v5": Gymnasium's InvertedDoublePendulum-v5
  (inverted_double_pendulum_v5.py).
- "Reacher-v5": Gymnasium's Reacher-v5 (reacher_v5.py).
- "Hopper-v5", "Walker2d-v5", "HalfCheetah-v5": Gymnasium's Hopper-v5, Walker2d-v5 and
  HalfCheetah-v5 (hopper_v5.py, walker2d_v5.py, half_cheetah_v5.py), with ground contact.

The model of each is Gymnasium's own MJCF file, shipped in simphant/gym/assets/ (MIT,
LICENSE-gymnasium.txt there) and read by SimPhant's MJCF importer (docs/mjcf.md): the
file's timestep is the simulator's dt (RK4, MuJoCo's integrator in these files but
half_cheetah.xml; a fraction of it for the runners' contact), the
actuator table (gear, ctrlrange) gives the action space and the motor mapping
force = gear * clip(action, ctrlrange). docs/python.md ("Gymnasium's MuJoCo tasks") lists the
definitions, what differs from Gymnasium and the measured lockstep agreement
(tests/python/test_gym_mujoco_tasks.py, tests/python/test_gym_walkers.py).
"""
from __future__ import annotations

import pathlib
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .. import _simphant
from .._quiet import quiet_warnings
from . import mdp
from .builtin import _build
from .registry import register
from .vector_env import VectorEnv, flag, whole_number

#: The folder of the shipped MJCF files (Gymnasium 1.4.0's, unchanged below a header).
ASSETS = pathlib.Path(__file__).resolve().parent / "assets"


def asset_path(name: str) -> str:
    """The path of a shipped MJCF file: "inverted_pendulum.xml", "inverted_double_pendulum.xml",
    "reacher.xml", "hopper.xml", "walker2d_v5.xml", "half_cheetah.xml", "ant.xml" or
    "pusher_v5.xml". Raises
    FileNotFoundError for another name."""
    p = ASSETS / name
    if not p.is_file():
        raise FileNotFoundError(f"no shipped model {name!r} in {ASSETS} "
                                f"(models: {', '.join(sorted(f.name for f in ASSETS.glob('*.xml')))})")
    return str(p)


def mjcf_scene(xml: str, solver: str = "aba", steps: int = 1, substeps: int = 1,
               contact: Optional[Dict[str, Any]] = None, any_integrator: bool = False) -> Dict[str, Any]:
    """A robot scene (scene format, docs/robots.md) of an MJCF file: solver `aba` or `cga`,
    dt = the file's <option timestep> / substeps, integrator rk4, t_end = steps * the
    timestep, a free body (floating base) at its XML pose. With `contact` (a scene
    `contact` section, docs/scene-format.md "Contact"), the file's geoms are contact
    shapes (robot.urdf_collision). Raises ValueError for another
    solver (the tasks' reset noise writes joint coordinates: the `dae` solver keeps
    maximal coordinates), substeps < 1 or, unless any_integrator, an MJCF integrator other
    than RK4 (the scene integrates with RK4 whatever the file says)."""
    if solver not in ("aba", "cga"):
        why = ("; the task's reset noise writes the joint coordinates, which the 'dae' solver's maximal-coordinate "
               "state does not hold") if solver == "dae" else ""
        raise ValueError(f"solver: 'aba' or 'cga' (got {solver!r}{why})")
    info = _simphant.mjcf_model(xml)
    if not any_integrator and str(info["integrator"]).upper() != "RK4":
        raise ValueError(f"{xml}: <option integrator={info['integrator']!r}>: these tasks follow MuJoCo's RK4")
    substeps = whole_number("substeps", substeps)
    timestep = float(info["timestep"])
    scene: Dict[str, Any] = {"name": info["name"], "robot": {"mjcf": str(xml)},
                             "solver": {"type": solver, "dt": timestep / substeps,
                                        "t_end": max(1, int(steps)) * timestep, "integrator": "rk4"}}
    if info["floating"]:  # the free body where the file puts it (MuJoCo's qpos0), as a scene file of it
        scene["robot"]["base"] = {"position": list(info["base"]["position"]),
                                  "orientation": list(info["base"]["orientation"])}
    if contact is not None:
        scene["robot"]["urdf_collision"] = True
        scene["contact"] = contact
    return scene


def actuator_map(xml: str) -> Tuple[np.ndarray, np.ndarray, np.ndarray, List[str]]:
    """The MJCF file's motors as VectorEnv arguments: (action_map (n_joints, n_motors),
    action_low, action_high, motor names). Column k of the map holds motor k's gear times
    its gain (1 for a <motor>) in the row of its joint (the simulator's input slot of that joint's torque); the bounds
    are the ctrlrange, or +-inf where ctrllimited is false. Raises ValueError for a
    position or velocity actuator (these tasks use motors alone)."""
    info = _simphant.mjcf_model(xml)
    joints = [link["joint"] for link in info["links"]]
    acts = info["actuators"]
    g = np.zeros((len(joints), len(acts)))
    low, high = np.full(len(acts), -np.inf), np.full(len(acts), np.inf)
    for k, a in enumerate(acts):
        if a["type"] != "motor":
            raise ValueError(f"{xml}: actuator {a['name']!r} is a {a['type']} actuator; only motors are mapped")
        # joint names are unique (the importer refuses a repeated one, as MuJoCo does): index()
        # finds the joint the importer's MjcfActuator::link names
        g[joints.index(a["joint"]), k] = a["gear"] * a["gain"]  # a <general> motor's gain: force = gain ctrl
        if a["ctrllimited"]:
            low[k], high[k] = a["ctrlrange"]
    return g, low, high, [a["name"] for a in acts]


def _vec(e: Optional[ET.Element]) -> np.ndarray:
    return np.zeros(3) if e is None else np.array([float(x) for x in e.get("pos", "0 0 0").split()])


def site_offset(xml: str, site: str) -> Tuple[str, np.ndarray]:
    """(link, offset) of an MJCF site: the link that holds it and the site's position in
    that link's frame [m] (body_offset of its body plus the site's pos; the site's body is
    not rotated against that link's frame, body_offset checks it). Raises ValueError when
    the file has no such site, or as body_offset."""
    root = ET.parse(xml).getroot()
    for body in root.iter("body"):
        for s in body.findall("site"):
            if s.get("name") == site:
                link, offset = _body_offset(xml, root, body)
                return link, offset + _vec(s)
    raise ValueError(f"{xml}: no site {site!r}")


def body_offset(xml: str, body: str) -> Tuple[str, np.ndarray]:
    """(link, offset) of an MJCF body's origin: the link that holds it and the origin's
    position in that link's frame [m]. A body with joints is held by the link named as the
    body, whose frame sits at its last joint's point with the body's axes (docs/mjcf.md):
    offset minus that joint's pos. A body without joints is welded to its parent, so its
    pos is added to its parent's offset, up to the nearest ancestor with joints. Raises
    ValueError when the file has no such body, the chain reaches the world, or a welded
    body on the way is rotated (an orientation attribute: not composed here)."""
    root = ET.parse(xml).getroot()
    node = next((b for b in root.iter("body") if b.get("name") == body), None)
    if node is None:
        raise ValueError(f"{xml}: no body {body!r}")
    return _body_offset(xml, root, node)


def _body_offset(xml: str, root: ET.Element, node: ET.Element) -> Tuple[str, np.ndarray]:
    parent = {c: p for p in root.iter() for c in p}
    name = node.get("name")
    offset = np.zeros(3)
    while node.tag == "body" and not node.findall("joint"):
        if any(node.get(k) is not None for k in ("quat", "euler", "axisangle", "xyaxes", "zaxis")):
            raise ValueError(f"{xml}: body {node.get('name')!r} is welded and rotated (not supported here)")
        offset = offset + _vec(node)
        node = parent[node]
    if node.tag != "body":
        raise ValueError(f"{xml}: body {name!r} is welded to the world (no link holds it)")
    return str(node.get("name")), offset - _vec(node.findall("joint")[-1])


def _uniform_q_noise(scale: float, qd_kind: str) -> Any:
    """Reset event of Gymnasium v5's reset_model: q = init_qpos (0) + U(-scale, scale),
    qd = init_qvel (0) + U(-scale, scale) (qd_kind "uniform") or scale * N(0, 1)
    ("normal"); the state is [q, qd] (solver aba / cga, fixed base)."""

    def event(env: Any, ids: np.ndarray, rng: np.random.Generator) -> None:
        sim = env.sim
        n = sim._sim.n_joint_coordinates
        s = sim.get_state(ids)
        k = len(ids)
        s.y[:, :n] += rng.uniform(-scale, scale, (k, n))
        if qd_kind == "uniform":
            s.y[:, n:] += rng.uniform(-scale, scale, (k, n))
        else:
            s.y[:, n:] += scale * rng.standard_normal((k, n))
        sim.set_state(s)

    return event


def _host(x: Any) -> np.ndarray:
    """A float64 NumPy array of a NumPy array or a torch tensor (link frames on a GPU)."""
    return x if isinstance(x, np.ndarray) else x.detach().cpu().numpy().astype(np.float64)


def _make(defaults: Dict[str, Any], kwargs: Dict[str, Any], names: List[str], gear: np.ndarray) -> VectorEnv:
    """Builds the env without logging the importer's warnings about the shipped file
    (contact and visual attributes, the site, the recorded actuator: all expected here;
    the model is cached per process, so they would come once)."""
    with quiet_warnings():
        env = _build(defaults, kwargs)
    env.action_names = names
    env.gear = gear
    return env


# --- InvertedPendulum-v5 -------------------------------------------------------------------


def inverted_pendulum(num_envs: Optional[int] = None, *, reset_noise_scale: float = 0.01, frame_skip: int = 2,
                      solver: str = "aba", **kwargs: Any) -> VectorEnv:
    """InvertedPendulum-v5: Gymnasium's cart-pole on MuJoCo (v5's defaults), from
    Gymnasium's inverted_pendulum.xml (shipped, simphant/gym/assets/).

    Action (1,): the motor's control, Box [-3, 3] (its ctrlrange); the slider's force is
    gear (100) * clip(action, ctrlrange) [N] (the MJCF actuator table). Observation (4,):
    qpos (cart x [m], pole angle [rad]), qvel. Reward per step: 1 while the pole is
    upright, else 0. Terminated: any observation not finite, or |pole angle| > 0.2 rad.
    Truncated after 1000 steps. Reset: qpos, qvel each uniform in [-reset_noise_scale,
    reset_noise_scale] (0.01), drawn with the env's np_random. One env step is frame_skip
    (2) steps of the file's timestep (0.02 s). solver: "aba" (default) or "cga"; default
    num_envs: 1. kwargs: VectorEnv arguments (backend, dtype, seed, max_episode_steps,
    autoreset_mode, torch=True, ...). The env's `gear` attribute is the action map
    (joint inputs per action).
    """
    xml = asset_path("inverted_pendulum.xml")
    gear, low, high, names = actuator_map(xml)
    fs = whole_number("frame_skip", frame_skip)

    def terminated(sim: Any, obs: Any) -> np.ndarray:
        q, qd, _ = sim.joint_state()
        finite = np.isfinite(q).all(axis=1) & np.isfinite(qd).all(axis=1)
        return ~finite | (np.abs(q[:, 1]) > 0.2)

    def reward(sim: Any, obs: Any, action: Any) -> np.ndarray:
        return (~terminated(sim, obs)).astype(np.float64)

    defaults = dict(scene=mjcf_scene(xml, solver, 1000 * fs), num_envs=1 if num_envs is None else num_envs,
                    observation=["joint_q", "joint_qd"], action_low=low, action_high=high, action_map=gear,
                    reward=reward, terminated=terminated, max_episode_steps=1000, frame_skip=fs,
                    reset_events=[_uniform_q_noise(float(reset_noise_scale), "uniform")]
                    + list(kwargs.pop("reset_events", [])))
    return _make(defaults, kwargs, names, gear)


# --- InvertedDoublePendulum-v5 -------------------------------------------------------------


def slider_limit_force(sim: Any) -> np.ndarray:
    """Observation term of InvertedDoublePendulum: (num_envs, 1) zeros.

    Gymnasium observes clip(qfrc_constraint, -10, 10)[:1], the generalised force of
    MuJoCo's limit constraint on the slider (x in [-1, 1], margin 0.01), which is 0 while
    that constraint is inactive (|x| < 0.99). SimPhant's limit is a one-sided spring law
    (docs/robots.md), 0 inside the limits; the core does not report the passive joint
    forces (Simulator.joint_state's tau is the actuator force alone), so this term is 0
    everywhere: equal to Gymnasium's inside the limits, 0 against the stop where
    Gymnasium's is up to +-10.
    """
    return np.zeros((sim.n_instances, 1))


def inverted_double_pendulum(num_envs: Optional[int] = None, *, healthy_reward: float = 10.0,
                             reset_noise_scale: float = 0.1, frame_skip: int = 5, solver: str = "aba",
                             **kwargs: Any) -> VectorEnv:
    """InvertedDoublePendulum-v5: Gymnasium's double cart-pole on MuJoCo (v5's defaults),
    from Gymnasium's inverted_double_pendulum.xml (shipped, simphant/gym/assets/).

    Action (1,): the motor's control, Box [-1, 1] (its ctrlrange); the slider's force is
    gear (500) * clip(action, ctrlrange) [N]. Observation (9,): cart x [m], sin and cos of
    the two hinge angles, clip(qvel, -10, 10) (3), and the slider's limit force
    (slider_limit_force: 0, see there). The tip is the site "tip" (pole2's frame +
    (0, 0, 0.6) m) in W, (x, y) its world x and z: reward per step
    healthy_reward * (not terminated) - (0.01 x^2 + (y - 2)^2) - (1e-3 v1^2 + 5e-3 v2^2),
    v1, v2 the hinge rates; terminated when y <= 1. Truncated after 1000 steps. Reset:
    qpos uniform in [-reset_noise_scale, reset_noise_scale] (0.1), qvel reset_noise_scale
    * N(0, 1). One env step is frame_skip (5) steps of the file's timestep (0.01 s).
    solver: "aba" (default) or "cga"; default num_envs: 1. kwargs: VectorEnv arguments.

    The tip is taken at the state after the env step. Gymnasium's step reads MuJoCo's
    site_xpos after mj_step, which with the RK4 integrator holds the kinematics of the last
    substep's final Runge-Kutta stage, not of the new state (a few 1e-6 m apart): its
    reward and termination differ from this one's by that much (docs/python.md).
    """
    xml = asset_path("inverted_double_pendulum.xml")
    gear, low, high, names = actuator_map(xml)
    body, offset = site_offset(xml, "tip")
    tip = mdp.link_point(body, offset)
    fs = whole_number("frame_skip", frame_skip)
    alive = float(healthy_reward)

    def observe(sim: Any) -> np.ndarray:
        q, qd, _ = sim.joint_state()
        return np.concatenate([q[:, :1], np.sin(q[:, 1:]), np.cos(q[:, 1:]), np.clip(qd, -10.0, 10.0)], axis=1)

    last: List[Any] = [None, None]  # (obs, tip): reward and terminated of one step see the same obs

    def tip_xz(sim: Any, obs: Any) -> Tuple[np.ndarray, np.ndarray]:
        if last[0] is not obs:
            last[0], last[1] = obs, _host(tip(sim))
        p = last[1]
        return p[:, 0], p[:, 2]

    def terminated(sim: Any, obs: Any) -> np.ndarray:
        return tip_xz(sim, obs)[1] <= 1.0

    def reward(sim: Any, obs: Any, action: Any) -> np.ndarray:
        x, y = tip_xz(sim, obs)
        _, qd, _ = sim.joint_state()
        dist_penalty = 0.01 * x ** 2 + (y - 2.0) ** 2
        vel_penalty = 1e-3 * qd[:, 1] ** 2 + 5e-3 * qd[:, 2] ** 2
        return alive * (y > 1.0) - dist_penalty - vel_penalty

    defaults = dict(scene=mjcf_scene(xml, solver, 1000 * fs), num_envs=1 if num_envs is None else num_envs,
                    observation=[observe, slider_limit_force], action_low=low, action_high=high, action_map=gear,
                    reward=reward, terminated=terminated, max_episode_steps=1000, frame_skip=fs,
                    reset_events=[_uniform_q_noise(float(reset_noise_scale), "normal")]
                    + list(kwargs.pop("reset_events", [])))
    env = _make(defaults, kwargs, names, gear)
    env.tip = tip
    return env


# --- Reacher-v5 ----------------------------------------------------------------------------


def _reacher_reset(ref: np.ndarray) -> Any:
    """Reset event of Gymnasium's Reacher-v5 reset_model: the arm's qpos uniform in
    [-0.1, 0.1] about init_qpos (0), the target's qpos a goal uniform in [-0.2, 0.2]^2
    redrawn until its norm is below 0.2, the arm's qvel uniform in [-0.005, 0.005], the
    target's 0; drawn in Gymnasium's order per env. SimPhant's q = qpos - ref."""

    def event(env: Any, ids: np.ndarray, rng: np.random.Generator) -> None:
        sim = env.sim
        n = sim._sim.n_joint_coordinates
        s = sim.get_state(ids)
        for row in range(len(ids)):
            qpos = rng.uniform(-0.1, 0.1, n) + ref
            while True:
                goal = rng.uniform(-0.2, 0.2, 2)
                if np.linalg.norm(goal) < 0.2:
                    break
            qpos[-2:] = goal
            qvel = rng.uniform(-0.005, 0.005, n)
            qvel[-2:] = 0.0
            s.y[row, :n] = qpos - ref
            s.y[row, n:] = qvel
        sim.set_state(s)

    return event


def reacher(num_envs: Optional[int] = None, *, reward_dist_weight: float = 1.0, reward_control_weight: float = 1.0,
            frame_skip: int = 2, solver: str = "aba", **kwargs: Any) -> VectorEnv:
    """Reacher-v5: Gymnasium's two-link planar arm reaching a target (v5's defaults), from
    Gymnasium's reacher.xml (shipped, simphant/gym/assets/; joint armature 1 and damping 1
    on the arm's hinges, docs/robots.md "Armature").

    Action (2,): the two motors' controls, Box [-1, 1]^2; the hinge torques are gear (200)
    * clip(action, ctrlrange) [N m]. Observation (10,): cos and sin of the two hinge angles
    (4), the target's x and y (MuJoCo's qpos of its two slide joints, SimPhant's q + ref) [m],
    the hinges' rates (2) [rad/s], and (fingertip - target)[:2] [m] in W, fingertip and
    target the origins of the bodies "fingertip" (welded to body1) and "target". Reward per
    step: -reward_dist_weight |fingertip - target| - reward_control_weight |action|^2,
    the action as given (not clipped, as in Gymnasium; VectorEnv.last_actions). Never
    terminates; truncated after 50 steps. Reset: _reacher_reset's draws (Gymnasium's
    reset_model), with the env's np_random. One env step is frame_skip (2) steps of the
    file's timestep (0.01 s). solver: "aba" (default) or "cga"; default num_envs: 1.
    kwargs: VectorEnv arguments.

    The fingertip and target are taken at the state after the env step; Gymnasium reads
    MuJoCo's xipos after mj_step, which with RK4 holds the kinematics of the last substep's
    final Runge-Kutta stage (docs/python.md): its observation's last two entries and its
    reward differ from these by that lag.
    """
    xml = asset_path("reacher.xml")
    gear, low, high, names = actuator_map(xml)
    info = _simphant.mjcf_model(xml)
    ref = np.array([link["ref"] for link in info["links"]])
    fingertip = mdp.link_point(*body_offset(xml, "fingertip"))
    target = mdp.link_point(*body_offset(xml, "target"))
    fs = whole_number("frame_skip", frame_skip)
    w_dist, w_ctrl = float(reward_dist_weight), float(reward_control_weight)
    holder: List[Any] = []  # the env, for its last_actions

    def vec(sim: Any) -> np.ndarray:
        return _host(fingertip(sim)) - _host(target(sim))

    def observe(sim: Any) -> np.ndarray:
        q, qd, _ = sim.joint_state()
        return np.concatenate([np.cos(q[:, :2]), np.sin(q[:, :2]), q[:, 2:] + ref[2:], qd[:, :2], vec(sim)[:, :2]],
                              axis=1)

    def reward(sim: Any, obs: Any, action: Any) -> np.ndarray:
        raw = _host(holder[0].last_actions)
        return -w_dist * np.linalg.norm(vec(sim), axis=1) - w_ctrl * np.sum(raw ** 2, axis=1)

    defaults = dict(scene=mjcf_scene(xml, solver, 50 * fs), num_envs=1 if num_envs is None else num_envs,
                    observation=[observe], action_low=low, action_high=high, action_map=gear,
                    reward=reward, terminated=None, max_episode_steps=50, frame_skip=fs,
                    reset_events=[_reacher_reset(ref)] + list(kwargs.pop("reset_events", [])))
    env = _make(defaults, kwargs, names, gear)
    holder.append(env)
    env.fingertip, env.target = fingertip, target
    return env


# --- Hopper-v5, Walker2d-v5, HalfCheetah-v5: planar runners on the ground ------------------

#: The contact section of Hopper-v5 (docs/python.md, "Hopper-v5, Walker2d-v5 and
#: HalfCheetah-v5"): the
#: ground and one material for every geom, a linear spring-dashpot of K = 1e4 N/m with
#: restitution 0.1 (of K in {1e4, 3e4, 1e5} N/m and e in {0.1, 0.5}, the pair closest to
#: MuJoCo's soft constraints, solref 0.02 s and damping ratio 1, on a passive drop), the
#: foot's friction 2.0 (MuJoCo's pair takes the larger of the two geoms' frictions: 2.0 for
#: the foot on the floor, 1.0 for the other geoms), Coulomb friction regularised below
#: 1 cm/s.
HOPPER_CONTACT: Dict[str, Any] = {
    "ground": {},
    "materials": {"default": {"stiffness": 1e4, "exponent": 1, "restitution": 0.1, "friction": 2.0,
                              "slip_speed": 0.01}},
}

#: The contact section of Walker2d-v5: as HOPPER_CONTACT with K = 2e4 N/m (of 1e4, 2e4 and
#: 4e4, the closest to MuJoCo on a passive drop of the 23.7 kg walker) and the feet's
#: friction 1.9.
WALKER2D_CONTACT: Dict[str, Any] = {
    "ground": {},
    "materials": {"default": {"stiffness": 2e4, "exponent": 1, "restitution": 0.1, "friction": 1.9,
                              "slip_speed": 0.01}},
}


def _planar_walker(xml: str, default_contact: Dict[str, Any], num_envs: Optional[int], *,
                   forward_reward_weight: float, ctrl_cost_weight: float, healthy_reward: float,
                   terminate_when_unhealthy: bool, healthy_state_range: Optional[Tuple[float, float]],
                   healthy_z_range: Optional[Tuple[float, float]], healthy_angle_range: Optional[Tuple[float, float]],
                   reset_noise_scale: float, qd_noise: str, clip_qvel: Optional[float],
                   exclude_current_positions_from_observation: bool, frame_skip: int, substeps: int,
                   contact: Optional[Dict[str, Any]], solver: str, kwargs: Dict[str, Any],
                   any_integrator: bool = False) -> VectorEnv:
    """The env of Gymnasium's planar runners (hopper_v5.py, walker2d_v5.py,
    half_cheetah_v5.py): a torso on rootx, rootz (slides) and rooty (hinge) with legs
    below, their geoms contact shapes against the ground. See hopper() for the
    definitions. A range None leaves its test out (Walker2d-v5 has no state test; with no
    range at all, HalfCheetah-v5, every state is healthy and only a state that is not
    finite terminates); clip_qvel None observes qvel unclipped; qd_noise as
    _uniform_q_noise's qd_kind."""
    gear, low, high, names = actuator_map(xml)
    info = _simphant.mjcf_model(xml)
    ref = np.array([link["ref"] for link in info["links"]])
    fs, sub = whole_number("frame_skip", frame_skip), whole_number("substeps", substeps)
    env_dt = fs * float(info["timestep"])
    w_fwd, w_ctrl, alive = float(forward_reward_weight), float(ctrl_cost_weight), float(healthy_reward)
    terminate_when_unhealthy = flag("terminate_when_unhealthy", terminate_when_unhealthy)
    skip = 1 if flag("exclude_current_positions_from_observation", exclude_current_positions_from_observation) else 0
    tests = [(r, c) for r, c in ((healthy_z_range, 1), (healthy_angle_range, 2)) if r is not None]
    holder: List[Any] = []  # the env: its last_actions
    x_before: List[np.ndarray] = [np.zeros(0)]  # rootx (MuJoCo's qpos[0]) at the start of the step

    def qpos_qvel(sim: Any) -> Tuple[np.ndarray, np.ndarray]:
        q, qd, _ = sim.joint_state()
        return q + ref, qd

    def observe(sim: Any) -> np.ndarray:
        qpos, qvel = qpos_qvel(sim)
        v = qvel if clip_qvel is None else np.clip(qvel, -clip_qvel, clip_qvel)
        return np.concatenate([qpos[:, skip:], v], axis=1)

    def healthy(sim: Any) -> np.ndarray:
        qpos, qvel = qpos_qvel(sim)
        ok = sim.status()[0] == 0  # an instance whose step failed keeps its last finite state
        for (lo, hi), column in tests:
            ok &= (float(lo) < qpos[:, column]) & (qpos[:, column] < float(hi))
        if healthy_state_range is not None:
            lo, hi = (float(v) for v in healthy_state_range)
            state = np.concatenate([qpos[:, 2:], qvel], axis=1)
            ok &= np.all((lo < state) & (state < hi), axis=1)
        return ok

    def record_x(env: Any) -> None:
        x_before[0] = qpos_qvel(env.sim)[0][:, 0].copy()

    def terminated(sim: Any, obs: Any) -> np.ndarray:
        qpos, qvel = qpos_qvel(sim)
        finite = np.isfinite(qpos).all(axis=1) & np.isfinite(qvel).all(axis=1)
        return ~finite | (~healthy(sim) if terminate_when_unhealthy else np.zeros(len(finite), bool))

    def reward(sim: Any, obs: Any, action: Any) -> np.ndarray:
        x_velocity = (qpos_qvel(sim)[0][:, 0] - x_before[0]) / env_dt
        raw = _host(holder[0].last_actions)
        return w_fwd * x_velocity + alive * healthy(sim) - w_ctrl * np.sum(raw ** 2, axis=1)

    scene = mjcf_scene(xml, solver, 1000 * fs, sub, default_contact if contact is None else contact, any_integrator)
    defaults = dict(scene=scene, num_envs=1 if num_envs is None else num_envs, observation=[observe],
                    action_low=low, action_high=high, action_map=gear, reward=reward, terminated=terminated,
                    max_episode_steps=1000, frame_skip=fs * sub,
                    reset_events=[_uniform_q_noise(float(reset_noise_scale), qd_noise)]
                    + list(kwargs.pop("reset_events", [])),
                    pre_step_events=[record_x] + list(kwargs.pop("pre_step_events", [])))
    env = _make(defaults, kwargs, names, gear)
    holder.append(env)
    return env


def hopper(num_envs: Optional[int] = None, *, forward_reward_weight: float = 1.0, ctrl_cost_weight: float = 1e-3,
           healthy_reward: float = 1.0, terminate_when_unhealthy: bool = True,
           healthy_state_range: Tuple[float, float] = (-100.0, 100.0),
           healthy_z_range: Tuple[float, float] = (0.7, float("inf")),
           healthy_angle_range: Tuple[float, float] = (-0.2, 0.2), reset_noise_scale: float = 5e-3,
           exclude_current_positions_from_observation: bool = True, frame_skip: int = 4, substeps: int = 4,
           contact: Optional[Dict[str, Any]] = None, solver: str = "aba", **kwargs: Any) -> VectorEnv:
    """Hopper-v5: Gymnasium's one-legged hopper on the ground (v5's defaults), from
    Gymnasium's hopper.xml (shipped, simphant/gym/assets/): a torso on the planar joints
    rootx, rootz (slides) and rooty (hinge), and the thigh, leg and foot hinges (limited,
    armature 1, damping 1); its capsule geoms are contact shapes against the ground under
    the law `contact` (default HOPPER_CONTACT; a scene `contact` section).

    Action (3,): the three motors' controls, Box [-1, 1]^3; the hinge torques are gear
    (200) * clip(action, ctrlrange) [N m]. Observation (11,): qpos without rootx (rootz [m,
    MuJoCo's qpos: SimPhant's q + 1.25], rooty and the three hinges [rad]) and
    clip(qvel, -10, 10) (6) [m/s, rad/s]; with exclude_current_positions_from_observation
    False, qpos whole (12,). Reward per step: forward_reward_weight * x_velocity +
    healthy_reward * healthy - ctrl_cost_weight * |action|^2, x_velocity the rootx
    displacement over the step divided by the step's duration (frame_skip * 0.002 s), the
    action as given (not clipped, as in Gymnasium). healthy: rootz in healthy_z_range
    (open), rooty in healthy_angle_range (open), and qpos[2:], qvel within
    healthy_state_range (open). Terminated: not healthy (with terminate_when_unhealthy),
    or a state not finite. Truncated after 1000 steps. Reset: qpos and qvel each uniform in
    [-reset_noise_scale, reset_noise_scale] about MuJoCo's qpos0 and 0, drawn with the
    env's np_random. One env step is frame_skip (4) steps of the file's timestep (0.002 s),
    each integrated as `substeps` (4) RK4 steps (dt 0.5 ms: the compliant contact needs
    them, docs/python.md "Hopper-v5, Walker2d-v5 and HalfCheetah-v5"). solver: "aba" (default) or "cga";
    default num_envs: 1. kwargs: VectorEnv arguments.

    Gymnasium's hopper touches the floor through MuJoCo's soft constraints; this one
    through SimPhant's compliant law (docs/contact.md), so trajectories agree with
    Gymnasium's in flight to the integrators' accuracy and on the ground only to the
    difference of the two laws, measured in docs/python.md.
    """
    return _planar_walker(asset_path("hopper.xml"), HOPPER_CONTACT, num_envs,
                          forward_reward_weight=forward_reward_weight, ctrl_cost_weight=ctrl_cost_weight,
                          healthy_reward=healthy_reward, terminate_when_unhealthy=terminate_when_unhealthy,
                          healthy_state_range=healthy_state_range, healthy_z_range=healthy_z_range,
                          healthy_angle_range=healthy_angle_range, reset_noise_scale=reset_noise_scale,
                          qd_noise="uniform", clip_qvel=10.0,
                          exclude_current_positions_from_observation=exclude_current_positions_from_observation,
                          frame_skip=frame_skip, substeps=substeps, contact=contact, solver=solver, kwargs=kwargs)


def walker2d(num_envs: Optional[int] = None, *, forward_reward_weight: float = 1.0, ctrl_cost_weight: float = 1e-3,
             healthy_reward: float = 1.0, terminate_when_unhealthy: bool = True,
             healthy_z_range: Tuple[float, float] = (0.8, 2.0), healthy_angle_range: Tuple[float, float] = (-1.0, 1.0),
             reset_noise_scale: float = 5e-3, exclude_current_positions_from_observation: bool = True,
             frame_skip: int = 4, substeps: int = 4, contact: Optional[Dict[str, Any]] = None, solver: str = "aba",
             **kwargs: Any) -> VectorEnv:
    """Walker2d-v5: Gymnasium's two-legged planar walker on the ground (v5's defaults), from
    Gymnasium's walker2d_v5.xml (shipped, simphant/gym/assets/): the hopper's torso joints
    and two legs of thigh, leg and foot hinges (limited, armature 0.01, damping 0.1), the
    feet's friction 1.9; its capsule geoms touch the ground (not each other: conaffinity 0)
    under the law `contact` (default WALKER2D_CONTACT).

    Action (6,): Box [-1, 1]^6; the hinge torques are gear (100) * clip(action, ctrlrange)
    [N m], right leg then left. Observation (17,): qpos without rootx (8) and
    clip(qvel, -10, 10) (9), as hopper()'s. Reward as hopper()'s. healthy: rootz in
    healthy_z_range (0.8, 2.0) and rooty in healthy_angle_range (-1, 1), open intervals (no
    state test). Terminated, truncated, reset, frame_skip, substeps, solver and kwargs as
    hopper()'s.
    """
    return _planar_walker(asset_path("walker2d_v5.xml"), WALKER2D_CONTACT, num_envs,
                          forward_reward_weight=forward_reward_weight, ctrl_cost_weight=ctrl_cost_weight,
                          healthy_reward=healthy_reward, terminate_when_unhealthy=terminate_when_unhealthy,
                          healthy_state_range=None, healthy_z_range=healthy_z_range,
                          healthy_angle_range=healthy_angle_range, reset_noise_scale=reset_noise_scale,
                          qd_noise="uniform", clip_qvel=10.0,
                          exclude_current_positions_from_observation=exclude_current_positions_from_observation,
                          frame_skip=frame_skip, substeps=substeps, contact=contact, solver=solver, kwargs=kwargs)


#: The contact section of HalfCheetah-v5: as HOPPER_CONTACT with friction 1.0 (MuJoCo's
#: pair takes the larger of the geoms' 0.4 and the floor's 1) and Coulomb friction
#: regularised below 10 cm/s (a running gait slides more than it stands; docs/python.md,
#: "Hopper-v5, Walker2d-v5 and HalfCheetah-v5", measures the step against it).
HALF_CHEETAH_CONTACT: Dict[str, Any] = {
    "ground": {},
    "materials": {"default": {"stiffness": 1e4, "exponent": 1, "restitution": 0.1, "friction": 1.0,
                              "slip_speed": 0.1}},
}


def half_cheetah(num_envs: Optional[int] = None, *, forward_reward_weight: float = 1.0,
                 ctrl_cost_weight: float = 0.1, reset_noise_scale: float = 0.1,
                 exclude_current_positions_from_observation: bool = True, frame_skip: int = 5, substeps: int = 5,
                 contact: Optional[Dict[str, Any]] = None, solver: str = "aba", **kwargs: Any) -> VectorEnv:
    """HalfCheetah-v5: Gymnasium's planar cheetah (v5's defaults), from Gymnasium's
    half_cheetah.xml (shipped, simphant/gym/assets/): a torso on rootx, rootz, rooty and
    two legs of three hinges each (limited, armature 0.1, joint springs and damping, 14 kg
    in all by <compiler settotalmass>); its capsule geoms touch the ground (not each
    other) under the law `contact` (default HALF_CHEETAH_CONTACT).

    Action (6,): Box [-1, 1]^6; the hinge torques are gear (120, 90, 60, 120, 60, 30) *
    clip(action, ctrlrange) [N m], back leg (thigh, shin, foot) then front. Observation
    (17,): qpos without rootx (8) and qvel (9), unclipped. Reward per step:
    forward_reward_weight * x_velocity - ctrl_cost_weight * |action|^2 (x_velocity as
    hopper()'s, over frame_skip * 0.01 s; the action as given). Never terminates (but for a
    state that is not finite); truncated after 1000 steps. Reset: qpos uniform in
    [-reset_noise_scale, reset_noise_scale] (0.1) about qpos0, qvel reset_noise_scale *
    N(0, 1). One env step is frame_skip (5) steps of the file's timestep (0.01 s), each
    integrated as `substeps` (5) RK4 steps of 2 ms. solver: "aba" (default) or "cga";
    default num_envs: 1. kwargs: VectorEnv arguments.

    Gymnasium's file integrates with MuJoCo's semi-implicit Euler at 0.01 s; SimPhant
    integrates with RK4 (docs/python.md, "Hopper-v5, Walker2d-v5 and HalfCheetah-v5": the two differ by Euler's error
    even in flight, and on the ground by the contact laws).
    """
    return _planar_walker(asset_path("half_cheetah.xml"), HALF_CHEETAH_CONTACT, num_envs,
                          forward_reward_weight=forward_reward_weight, ctrl_cost_weight=ctrl_cost_weight,
                          healthy_reward=0.0, terminate_when_unhealthy=False, healthy_state_range=None,
                          healthy_z_range=None, healthy_angle_range=None, reset_noise_scale=reset_noise_scale,
                          qd_noise="normal", clip_qvel=None,
                          exclude_current_positions_from_observation=exclude_current_positions_from_observation,
                          frame_skip=frame_skip, substeps=substeps, contact=contact, solver=solver, kwargs=kwargs,
                          any_integrator=True)


register("InvertedPendulum-v5", inverted_pendulum, "Gymnasium's InvertedPendulum-v5 (MuJoCo MJCF, aba)")
register("InvertedDoublePendulum-v5", inverted_double_pendulum,
         "Gymnasium's InvertedDoublePendulum-v5 (MuJoCo MJCF, aba)")
register("Reacher-v5", reacher, "Gymnasium's Reacher-v5 (MuJoCo MJCF with armature, aba)")
register("Hopper-v5", hopper, "Gymnasium's Hopper-v5 (MuJoCo MJCF with ground contact, aba)")
register("Walker2d-v5", walker2d, "Gymnasium's Walker2d-v5 (MuJoCo MJCF with ground contact, aba)")
register("HalfCheetah-v5", half_cheetah, "Gymnasium's HalfCheetah-v5 (MuJoCo MJCF with ground contact, aba)")
