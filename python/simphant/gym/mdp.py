"""Small composable pieces of a task for simphant.gym.VectorEnv: goals, observations of
bodies and link frames, rewards, and reset events.

Every piece is a plain callable of the kind VectorEnv takes:
- an observation term, sim -> (num_envs, k) array (an item of `observation=`);
- a reward, reward(sim, obs, action) -> (num_envs,) (`reward=`);
- a reset event, event(env, ids, rng) -> None, run after the simulator has reset the
  sub-environments ids ((k,) int64) in reset() and in every autoreset; rng is the env's
  np_random (seeded by reset(seed=...)) (`reset_events=`).

Arrays are NumPy, or torch tensors where the simulator hands out device arrays (link
frames on a GPU joint-space backend); the rewards work with both.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from ..simulator import Simulator
from .observation import BODY_FIELDS

#: sim -> (num_envs, k)
Term = Callable[[Simulator], Any]

_CONTACT_COMPONENTS = ("normal_force", "friction_force", "penetration", "count")
_LINK_FIELDS = {"position": slice(0, 3), "orientation": slice(3, 7), "velocity": slice(7, 10),
                "angular_velocity": slice(10, 13), "frame": slice(0, 13)}


def _array(x: Any) -> Any:
    """A NumPy array, or a torch tensor for a DLPack device array."""
    if isinstance(x, np.ndarray) or type(x).__module__.startswith("torch"):
        return x
    try:
        return np.from_dlpack(x)
    except Exception:  # device memory
        import torch

        return torch.from_dlpack(x)


def _like(x: Any, ref: Any) -> Any:
    """x as an array of ref's kind (NumPy, or a torch tensor on ref's device and dtype)."""
    if isinstance(ref, np.ndarray):
        return np.asarray(x, np.float64)
    import torch

    return torch.as_tensor(x, dtype=ref.dtype, device=ref.device)


def _width(x: Any, n: int) -> Any:
    return x.reshape(n, -1)


def link_frame(names: Union[str, Sequence[str]], field: str = "position") -> Term:
    """Observation term: a field of the frames of robot links (Simulator.link_frames,
    docs/robots.md "Link frames"), (num_envs, len(names) * width).

    field: "position" (the frame's origin in W [m], width 3), "orientation" ((w, x, y, z),
    link frame -> W, width 4), "velocity" (of the origin, W [m/s], 3), "angular_velocity"
    (link axes [rad/s], 3) or "frame" (all 13). Raises ValueError for an unknown field;
    the simulator raises ValueError for an unknown link and RuntimeError without a robot.
    """
    links = [names] if isinstance(names, str) else list(names)
    if field not in _LINK_FIELDS:
        raise ValueError(f"link_frame: field must be one of {', '.join(_LINK_FIELDS)} (got {field!r})")
    cols = _LINK_FIELDS[field]

    def term(sim: Simulator) -> Any:
        f = _array(sim.link_frames(links))[:, :, cols]
        return _width(f, sim.n_instances)

    term.__name__ = f"link_{field}"
    return term


def link_position(name: str) -> Term:
    """Observation term: the origin of a link's frame in W [m], (num_envs, 3)."""
    return link_frame(name, "position")


def link_point(name: str, offset: Sequence[float]) -> Term:
    """Observation term: a point fixed in a link's frame (a MuJoCo site, a tool tip) in W
    [m], (num_envs, 3): origin + R offset, with the origin and orientation R of
    Simulator.link_frames (the forward kinematics of the C++ core; docs/robots.md "Link
    frames"). offset: (3,) in the link frame [m] (for an MJCF body, whose link frame sits
    at its joint's point with the body's axes: the site's pos minus the joint's pos).
    Raises ValueError for an offset that is not 3 finite numbers.
    """
    o = np.asarray(offset, np.float64)
    if o.shape != (3,) or not np.all(np.isfinite(o)):
        raise ValueError(f"link_point: offset must be 3 finite numbers [m] (got {offset!r})")
    frame = link_frame(name, "frame")

    def term(sim: Simulator) -> Any:
        f = frame(sim)
        w, x, y, z = f[:, 3], f[:, 4], f[:, 5], f[:, 6]
        out = f[:, 0:3] + 0.0  # a copy (NumPy or torch); + R offset, R of the unit quaternion
        if o[0] != 0:
            out[:, 0] += (1 - 2 * (y * y + z * z)) * o[0]
            out[:, 1] += 2 * (x * y + w * z) * o[0]
            out[:, 2] += 2 * (x * z - w * y) * o[0]
        if o[1] != 0:
            out[:, 0] += 2 * (x * y - w * z) * o[1]
            out[:, 1] += (1 - 2 * (x * x + z * z)) * o[1]
            out[:, 2] += 2 * (y * z + w * x) * o[1]
        if o[2] != 0:
            out[:, 0] += 2 * (x * z + w * y) * o[2]
            out[:, 1] += 2 * (y * z - w * x) * o[2]
            out[:, 2] += (1 - 2 * (x * x + y * y)) * o[2]
        return out

    term.__name__ = f"{name}.point"
    return term


def projected_gravity(name: str) -> Term:
    """Observation term: the world's down direction (0, 0, -1) in a link's axes, R^T (0,
    0, -1) with R the orientation of Simulator.link_frames (link frame -> W), (num_envs,
    3): (0, 0, -1) when the link is level; its z component is -cos of the tilt of the
    link's z axis from the vertical (the orientation of a legged robot's base without the
    heading, as legged-locomotion policies observe it)."""
    frame = link_frame(name, "orientation")

    def term(sim: Simulator) -> Any:
        q = frame(sim)
        w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
        out = q[:, 1:4] * 0.0  # a NumPy array or a torch tensor of q's kind; minus R's third row
        out[:, 0] = 2 * (w * y - x * z)
        out[:, 1] = -2 * (y * z + w * x)
        out[:, 2] = 2 * (x * x + y * y) - 1
        return out

    term.__name__ = f"{name}.projected_gravity"
    return term


def contact_force(pairs: Sequence[str], component: str = "normal_force") -> Term:
    """Observation term: one component of named contact pairs (Simulator.contacts,
    docs/contact.md "Outputs"), (num_envs, len(pairs)).

    pairs: names of Simulator.contact_pair_names (e.g. "contact ground FL_FOOT[0]", a
    foot on the ground). component: "normal_force" [N] (the pair's normal forces summed,
    >= 0), "friction_force" [N], "penetration" [m] or "count" (its contacts). Raises
    ValueError for an unknown component, and for a pair the scene does not have (naming
    those it has) when first called.
    """
    names = list(pairs)
    if component not in _CONTACT_COMPONENTS:
        raise ValueError(f"contact_force: component must be one of {', '.join(_CONTACT_COMPONENTS)} "
                         f"(got {component!r})")
    column = _CONTACT_COMPONENTS.index(component)

    def term(sim: Simulator) -> Any:
        known = sim.contact_pair_names
        missing = [p for p in names if p not in known]
        if missing:
            raise ValueError(f"contact_force: no contact pair {missing[0]!r} (pairs: {', '.join(known) or 'none'})")
        return sim.contacts()[:, [known.index(p) for p in names], column]

    term.__name__ = f"contact_{component}"
    return term


def body_state(name: str, field: str = "r", components: Optional[Sequence[int]] = None) -> Term:
    """Observation term: a field of a body's state (Simulator.states), (num_envs, k).

    field: "r" (CoM, W [m]), "p" ((w, x, y, z), body -> W), "v" (CoM velocity, W [m/s]),
    "omega" (body frame [rad/s]) or "state" (all 13); components: indices into the field
    (e.g. [1] for omega_y), None = all. Raises ValueError for an unknown body or field
    (when first called).
    """
    if field not in BODY_FIELDS:
        raise ValueError(f"body_state: field must be one of {', '.join(BODY_FIELDS)} (got {field!r})")
    idx = np.arange(13)[BODY_FIELDS[field]]
    if components is not None:
        idx = idx[np.asarray(components, np.int64)]

    def term(sim: Simulator) -> Any:
        if name not in sim.body_names:
            raise ValueError(f"body_state: no body {name!r} (bodies: {', '.join(sim.body_names)})")
        return sim.states()[:, sim.body_names.index(name), idx]

    term.__name__ = f"{name}.{field}"
    return term


class GoalSampler:
    """A goal per sub-environment, drawn uniformly in [low, high] at each of its resets.

    low, high: scalars or (k,) arrays, the goal's bounds (units of what it is compared
    with; e.g. a position in W [m]). Use the object itself as a reset event
    (`reset_events=[goal]`) and `goal.observe` as an observation term, or as `b` of
    distance_reward. `goals` is the (num_envs, k) float64 array of the current goals
    (zeros before the first reset); it may be written to set goals by hand.
    Raises ValueError when low > high or the shapes differ.
    """

    def __init__(self, low: Union[float, Sequence[float]], high: Union[float, Sequence[float]]) -> None:
        self.low = np.atleast_1d(np.asarray(low, np.float64))
        self.high = np.atleast_1d(np.asarray(high, np.float64))
        if self.low.shape != self.high.shape or self.low.ndim != 1:
            raise ValueError(f"GoalSampler: low and high must be scalars or (k,) arrays of one shape "
                             f"(got {self.low.shape} and {self.high.shape})")
        if np.any(self.low > self.high):
            raise ValueError("GoalSampler: low must not exceed high")
        self.goals = np.zeros((0, self.low.size))

    def _resize(self, n: int) -> None:
        if self.goals.shape[0] != n:
            self.goals = np.broadcast_to((self.low + self.high) / 2, (n, self.low.size)).copy()

    def __call__(self, env: Any, ids: np.ndarray, rng: np.random.Generator) -> None:
        self._resize(env.num_envs)
        self.goals[ids] = rng.uniform(self.low, self.high, (len(ids), self.low.size))

    def observe(self, sim: Simulator) -> np.ndarray:
        """Observation term: (num_envs, k) the current goals (a copy)."""
        self._resize(sim.n_instances)
        return self.goals.copy()


Source = Union[Term, GoalSampler, np.ndarray]


def _evaluate(source: Source, sim: Simulator) -> Any:
    if isinstance(source, GoalSampler):
        return source.observe(sim)
    if callable(source):
        return _array(source(sim)).reshape(sim.n_instances, -1)
    return np.broadcast_to(np.asarray(source, np.float64), (sim.n_instances, np.size(source)))


def distance_reward(a: Source, b: Source, kernel: str = "linear", scale: float = 1.0) -> Callable[..., Any]:
    """Reward from the Euclidean distance d between two terms, per sub-environment.

    a, b: observation terms (sim -> (num_envs, k)), GoalSamplers or constant (k,) arrays.
    kernel: "linear" -> -scale d; "squared" -> -(scale d)^2; "exp" -> exp(-(scale d)^2)
    (in (0, 1], 1 at the goal). scale: 1 / (the distance's unit). Returns a reward
    callable reward(sim, obs, action) -> (num_envs,). Raises ValueError for an unknown
    kernel.
    """
    if kernel not in ("linear", "squared", "exp"):
        raise ValueError(f"distance_reward: kernel must be 'linear', 'squared' or 'exp' (got {kernel!r})")

    def reward(sim: Simulator, obs: Any, action: Any) -> Any:
        x = _evaluate(a, sim)
        y = _like(_evaluate(b, sim), x)
        d2 = ((x - y) ** 2).sum(-1) * scale * scale
        if kernel == "linear":
            return -(d2 ** 0.5)
        if kernel == "squared":
            return -d2
        return np.exp(-d2) if isinstance(d2, np.ndarray) else d2.neg().exp()

    return reward


def action_penalty(weight: float = 1.0) -> Callable[..., Any]:
    """Reward -weight * sum(action^2) per sub-environment (the applied, clipped action)."""

    def reward(sim: Simulator, obs: Any, action: Any) -> Any:
        return -weight * (action ** 2).sum(-1)

    return reward


def reward_sum(*terms: Union[Callable[..., Any], tuple]) -> Callable[..., Any]:
    """The weighted sum of rewards: each term a reward callable or (weight, reward)."""
    parts = [(1.0, t) if callable(t) else (float(t[0]), t[1]) for t in terms]

    def reward(sim: Simulator, obs: Any, action: Any) -> Any:
        return sum(w * f(sim, obs, action) for w, f in parts)

    return reward


def joint_state_noise(q_std: Union[float, Sequence[float]] = 0.0,
                      qd_std: Union[float, Sequence[float]] = 0.0) -> Callable[..., None]:
    """Reset event: adds normal noise to the joint positions [rad | m] and rates [rad/s |
    m/s] of the reset sub-environments (robots in joint coordinates, solver aba / cga:
    State.y = [q, qd] on a fixed base, [p_B, quat_B, q, v_B, omega_B, qd] on a floating
    one, whose base is left as it is). q_std, qd_std: standard deviations, scalars or one
    per joint coordinate. The noise is not clipped to the joint limits.

    Raises ValueError (when it first runs) for another kind of scene or backend (a
    maximal-coordinate state cannot take independent noise without breaking its
    constraints).
    """
    q_std_a, qd_std_a = np.asarray(q_std, np.float64), np.asarray(qd_std, np.float64)

    def event(env: Any, ids: np.ndarray, rng: np.random.Generator) -> None:
        sim = env.sim
        n = sim._sim.n_joint_coordinates
        floating = sim.state_size == 2 * n + 13
        if n == 0 or not (floating or sim.state_size == 2 * n):
            raise ValueError("joint_state_noise: needs a robot in joint coordinates (solver aba or cga); "
                             f"this simulator's state has {sim.state_size} numbers for {n} joint coordinates")
        q_at, qd_at = (7, n + 13) if floating else (0, n)
        s = sim.get_state(ids)
        s.y[:, q_at:q_at + n] += rng.standard_normal((len(ids), n)) * q_std_a
        s.y[:, qd_at:qd_at + n] += rng.standard_normal((len(ids), n)) * qd_std_a
        sim.set_state(s)

    return event
