"""simphant.gym.VectorEnv: a Gymnasium 1.x vector env over one Simulator."""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from ..scene import SceneSource
from ..simulator import Simulator
from ..state import InstanceStatus
from .observation import Observation, ObservationItem
from .render import Camera, Renderer

#: reward(sim, obs, action) -> (num_envs,) rewards; obs (num_envs, obs_size) after the
#: step, action (num_envs, n_inputs) as applied (clipped).
RewardFn = Callable[[Simulator, Any, Any], Any]
#: terminated(sim, obs) -> (num_envs,) bool.
TerminatedFn = Callable[[Simulator, Any], Any]
#: event(env, ids, rng): runs after the simulator reset the sub-environments ids ((k,)
#: int64) in reset() and in every autoreset; rng is the env's np_random.
ResetEvent = Callable[[Any, np.ndarray, np.random.Generator], None]
#: pre_step_events(env): run at the start of every step, before the actions apply
StepEvent = Callable[[Any], None]


def whole_number(name: str, value: Any) -> int:
    """value as an int >= 1 (a step count: frame_skip, substeps): anything float() reads
    (an int, a NumPy scalar or 0-d array, "4") whose value is a whole number. ValueError
    naming `name` for anything else, a fraction (2.7), a bool or a non-finite number
    included, rather than truncating it."""
    try:
        v = None if isinstance(value, (bool, np.bool_)) else float(value)
    except (TypeError, ValueError, OverflowError):
        v = None
    if v is None or not (math.isfinite(v) and v >= 1 and v == math.floor(v)):
        raise ValueError(f"{name}: a whole number >= 1 (got {value!r})")
    return int(v)


def flag(name: str, value: Any) -> bool:
    """value as a bool (a task's switch: terminate_when_unhealthy, include_*,
    exclude_current_positions_from_observation): True, False or a NumPy bool. ValueError
    naming `name` for anything else (a string such as "no", a number), rather than
    reading its truth value."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name}: True or False (got {value!r})")


def real_number(name: str, value: Any, minimum: Optional[float] = None) -> float:
    """value as a finite float (a task's weight or scale; anything float() reads but a
    bool), at least `minimum` when given. ValueError naming `name` otherwise."""
    try:
        v = None if isinstance(value, (bool, np.bool_)) else float(value)
    except (TypeError, ValueError, OverflowError):
        v = None
    if v is None or not math.isfinite(v) or (minimum is not None and v < minimum):
        bound = "" if minimum is None else f" >= {minimum:g}"
        raise ValueError(f"{name}: a finite number{bound} (got {value!r})")
    return v


def number_range(name: str, value: Any) -> Tuple[float, float]:
    """value as (low, high): two numbers float() reads (either may be infinite), low <=
    high (a task's healthy_z_range, contact_cost_range). ValueError naming `name`
    otherwise."""
    try:
        lo, hi = (None if isinstance(x, (bool, np.bool_)) else float(x) for x in value)
    except (TypeError, ValueError, OverflowError):
        lo = hi = None
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi) or lo > hi:
        raise ValueError(f"{name}: (low, high), two numbers with low <= high (got {value!r})")
    return lo, hi


class VectorEnv(gym.vector.VectorEnv):
    """num_envs instances of a scene as one Gymnasium vector env (Gymnasium 1.x API).

    Each sub-environment is one Simulator instance; every step applies each instance's
    action (its actuator inputs) and advances all instances by frame_skip steps of dt in
    one call.

    Arguments:
        scene: a Scene or anything simphant.load_scene accepts; it needs actuators.
        num_envs: the number of sub-environments (default: the scene's sweep.instances).
        observation: a list of ObservationItem (simphant.gym.observation): "state",
            "<body>.r" / ".p" / ".v" / ".omega" / ".state", "joint_q", "joint_qd", or
            callables sim -> (num_envs, k) (simphant.gym.mdp has terms for link frames,
            body states and goals); concatenated in order into one vector of `dtype`.
        action_low, action_high: bounds of the action Box, scalars or (n_actions,) arrays
            [N m or N, or the action's own unit with action_map]; actions are clipped to
            them.
        action_map: None (the action is the actuator inputs, n_actions = n_inputs) or an
            (n_inputs, n_actions) matrix G: the simulator's inputs are G @ clip(action),
            a transmission in the manner of MuJoCo's actuators (a gear per actuator and
            joint; zero rows for joints no action drives). The reward sees the clipped
            action (n_actions); the actions as given, before clipping, are the env's
            `last_actions` (num_envs, n_actions), float64 (a torch tensor for torch envs),
            for rewards that charge the unclipped action as Gymnasium's Reacher does; a
            sub-environment's row is zero from its reset until its next step (MuJoCo's
            reset zeroes ctrl).
        action_offset: None or (n_inputs,) added to the inputs after the map: the
            simulator's inputs are G @ clip(action) + action_offset (clip(action) +
            action_offset without a map), e.g. servo targets about a nominal pose.
        reward: reward(sim, obs, action) -> (num_envs,); None gives 0.
        terminated: terminated(sim, obs) -> (num_envs,) bool; an instance whose status is
            not ok (diverged, or failed assembly) always terminates.
        max_episode_steps: truncation after this many env steps (None: never).
        frame_skip: simulator steps per env step (the env's step is frame_skip * dt).
        randomize: every reset draws fresh parameters for the instances it resets from the
            scene's sweep distributions (domain randomisation; the first episode after a
            seed uses the sweep's own sample).
        autoreset_mode: AutoresetMode.NEXT_STEP (default) or SAME_STEP, see below.
        backend, threads, seed: as for simphant.Simulator; backend "auto" (the default)
            picks the GPU when there is one, else "cpu-simd" for 8 or more envs where it
            runs the scene, else "cpu".
        dtype: of the returned observations, np.float64 (default) or np.float32 (the
            simulator computes in float64 and the observation is rounded; reward and
            terminated receive the float64 one). Rewards stay float64 and actions are
            float64 Boxes.
        reset_events: callables event(env, ids, rng) run, in order, after every reset of
            the sub-environments ids ((k,) int64 array) in reset() and in the autoresets,
            before the first observation of the new episode is taken; rng is the env's
            np_random (seeded by reset(seed=...)). E.g. simphant.gym.mdp.GoalSampler,
            joint_state_noise, or a function that sets inputs or writes states.
        pre_step_events: callables event(env) run, in order, at the start of every step(),
            before the actions are applied: e.g. to record a position that the reward
            differences over the step, as Gymnasium's locomotion tasks do with
            x_position_before.
        render_mode: None or "rgb_array": render() returns a tuple of (render_height,
            render_width, 3) uint8 RGB images, one per sub-environment of render_envs
            (default: all of them, Gymnasium's convention; pass [0] for the first alone),
            drawn by a software rasteriser (simphant.gym.render) seen by `camera` (a
            simphant.gym.render.Camera; default: fitted to the first frame).

    Autoreset (metadata["autoreset_mode"]): NEXT_STEP, Gymnasium's default: the step after
    a sub-environment terminated or truncated resets it, ignores its action and returns
    its first observation with reward 0 and terminated = truncated = False. SAME_STEP:
    the step that ends an episode resets the sub-environment at once and returns its
    first observation; the last observation of the finished episode is in
    infos["final_obs"] (an object array, None where no episode ended) with the mask
    infos["_final_obs"]. reset(options={"reset_mask": mask}) resets only the masked
    sub-environments.

    Seeding: reset(seed=s) rebuilds the batch with sweep seed s, so that the parameters
    of the first episode and of every randomised reset are a function of s alone: the
    same seed and actions give the same observations, bit for bit. reset() without a
    seed keeps the current stream. Attributes: sim (the Simulator), action_names.
    """

    metadata: Dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"]}

    def __init__(self, scene: SceneSource, num_envs: Optional[int] = None,
                 observation: Sequence[ObservationItem] = ("state",), *,
                 action_low: Union[float, Sequence[float]], action_high: Union[float, Sequence[float]],
                 action_map: Any = None, action_offset: Any = None, reward: Optional[RewardFn] = None,
                 terminated: Optional[TerminatedFn] = None,
                 max_episode_steps: Optional[int] = None, frame_skip: int = 1, randomize: bool = False,
                 autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP, backend: str = "auto", threads: int = 0,
                 seed: Optional[int] = None, dtype: Any = np.float64, reset_events: Sequence[ResetEvent] = (),
                 pre_step_events: Sequence[StepEvent] = (), render_mode: Optional[str] = None,
                 render_width: int = 320, render_height: int = 240,
                 render_envs: Optional[Sequence[int]] = None, camera: Optional[Camera] = None) -> None:
        frame_skip = whole_number("frame_skip", frame_skip)
        if num_envs is not None:
            num_envs = whole_number("num_envs", num_envs)
        if max_episode_steps is not None:
            max_episode_steps = whole_number("max_episode_steps", max_episode_steps)
        autoreset_mode = AutoresetMode(autoreset_mode)
        if autoreset_mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode: NEXT_STEP or SAME_STEP (got {autoreset_mode})")
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype: float32 or float64 (got {self.dtype})")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode: None or 'rgb_array' (got {render_mode!r})")
        self.render_mode = render_mode
        self.reset_events: List[ResetEvent] = list(reset_events)
        self.pre_step_events: List[StepEvent] = list(pre_step_events)
        self.metadata = dict(self.metadata, autoreset_mode=autoreset_mode)
        self._sim_args = dict(scene=scene, instances=num_envs, backend=backend, threads=threads)
        self.sim = Simulator(seed=seed, **self._sim_args)
        self._seed = seed
        if self.sim.n_inputs == 0:
            raise ValueError("scene: has no actuators, so an env has no action (add an 'actuator' force)")
        self.num_envs = self.sim.n_instances
        self.action_names = self.sim.input_names
        n_actions = self.sim.n_inputs
        self._action_map: Optional[np.ndarray] = None
        if action_map is not None:
            g = np.array(action_map, np.float64, ndmin=2)
            if g.ndim != 2 or g.shape[0] != self.sim.n_inputs or g.shape[1] < 1 or not np.all(np.isfinite(g)):
                raise ValueError(f"action_map: must be a finite ({self.sim.n_inputs}, n_actions) matrix, one row per "
                                 f"actuator input {self.sim.input_names} (got shape {g.shape})")
            self._action_map, n_actions = g, g.shape[1]
            self.action_names = [f"action_{k}" for k in range(n_actions)]
        self._action_offset: Optional[np.ndarray] = None
        if action_offset is not None:
            b = np.array(action_offset, np.float64, ndmin=1)
            if b.shape != (self.sim.n_inputs,) or not np.all(np.isfinite(b)):
                raise ValueError(f"action_offset: must be {self.sim.n_inputs} finite numbers, one per actuator input "
                                 f"{self.sim.input_names} (got shape {b.shape})")
            self._action_offset = b
        self._obs_spec = list(observation) if not isinstance(observation, str) else [observation]
        self._obs = Observation(self.sim, self._obs_spec)
        low = np.broadcast_to(np.asarray(action_low, np.float64), (n_actions,))
        high = np.broadcast_to(np.asarray(action_high, np.float64), (n_actions,))
        if np.any(low > high):
            raise ValueError("action_low: must not exceed action_high")
        self.single_action_space = gym.spaces.Box(low, high, dtype=np.float64)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.single_observation_space = gym.spaces.Box(-np.inf, np.inf, (self._obs.size,), dtype=self.dtype)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self._reward, self._terminated = reward, terminated
        self.max_episode_steps, self.frame_skip, self.randomize = max_episode_steps, frame_skip, bool(randomize)
        self._elapsed = np.zeros(self.num_envs, np.int64)
        self.last_actions: Any = np.zeros((self.num_envs, len(low)))  # step()'s actions before clipping
        self._autoreset = np.zeros(self.num_envs, bool)
        self._fresh = True  # the batch holds its first episode since the seed was set
        self._params: Dict[str, np.ndarray] = {}  # set_parameters: (num_envs,) per path, NaN where unset
        self.metadata["render_fps"] = 1.0 / (self.frame_skip * self.sim.dt)
        self.render_envs = None if render_envs is None else [int(i) for i in render_envs]
        if self.render_envs is not None and any(not 0 <= i < self.num_envs for i in self.render_envs):
            raise IndexError(f"render_envs: ids must lie in [0, {self.num_envs}) (got {self.render_envs})")
        self._renderer = Renderer(render_height, render_width, camera)

    # --- Gymnasium API -------------------------------------------------------------
    def reset(self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict]:
        """Resets every sub-environment (or those of options["reset_mask"]); returns (obs, infos)."""
        super().reset(seed=seed)
        if seed is not None:
            self.sim = Simulator(seed=seed, **self._sim_args)
            self._obs = Observation(self.sim, self._obs_spec)
            self._seed, self._fresh = seed, True
            for path, column in self._params.items():  # set_parameters' values hold
                held = np.flatnonzero(~np.isnan(column))
                if held.size:
                    self.sim.set_parameters(held, {path: column[held]})
        mask = None if options is None else options.get("reset_mask")
        if mask is None:
            ids = None
            mask = np.ones(self.num_envs, bool)
        else:
            mask = np.asarray(mask, bool)
            if mask.shape != (self.num_envs,):
                raise ValueError(f"options['reset_mask']: must have shape ({self.num_envs},) (got {mask.shape})")
            ids = np.flatnonzero(mask)
        if not (self._fresh and ids is None):
            self.sim.reset(ids, randomize=self.randomize)
        self._fresh = False
        self._run_reset_events(np.flatnonzero(mask))
        self._elapsed[mask] = 0
        self._autoreset[mask] = False
        return self._cast(self._observe()), {}

    def step(self, actions: Any) -> Tuple[Any, Any, Any, Any, Dict]:
        """Applies actions (num_envs, n_inputs), advances frame_skip steps; returns
        (obs, rewards, terminations, truncations, infos). Actions of another shape or with
        a NaN are refused (ValueError naming the shape or the index) before anything
        changes; +-inf are clipped to the bounds."""
        a = self._actions(actions)  # refused before anything changes
        for event in self.pre_step_events:
            event(self)
        a = self._apply_actions(a)
        self.sim.step(self.frame_skip)
        self._elapsed += 1
        obs = self._observe()
        n = self.num_envs
        reward = self._as_float(self._reward(self.sim, obs, a)) if self._reward else self._zeros(n)
        status, _ = self.sim.status()
        term = self._as_bool(self._terminated(self.sim, obs)) if self._terminated else self._bools(n)
        term = term | self._from_host(status != InstanceStatus.OK)
        trunc = self._from_host(self._elapsed >= self.max_episode_steps) if self.max_episode_steps else self._bools(n)
        infos: Dict[str, Any] = {}
        if self.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP:
            reset = self._autoreset
            if reset.any():
                self.sim.reset(np.flatnonzero(reset), randomize=self.randomize)
                self._run_reset_events(np.flatnonzero(reset))
                self._elapsed[reset] = 0
                obs = self._observe()
                r = self._from_host(reset)
                reward, term, trunc = self._where(r, 0.0, reward), term & ~r, trunc & ~r
            self._autoreset = self._to_host(term | trunc)
        else:
            done = self._to_host(term | trunc)
            if done.any():
                final = np.full(n, None, dtype=object)
                for i in np.flatnonzero(done):
                    final[i] = self._cast(obs[i])
                infos = {"final_obs": final, "_final_obs": done}
                self.sim.reset(np.flatnonzero(done), randomize=self.randomize)
                self._run_reset_events(np.flatnonzero(done))
                self._elapsed[done] = 0
                obs = self._observe()
        return self._cast(obs), reward, term, trunc, infos

    def set_parameters(self, ids: Any, params: Dict[str, Any]) -> None:
        """Sets physics parameters of the sub-environments ids at run time (domain
        randomisation of any number in the scene, like Isaac Lab's randomisation events).

        ids: sub-environment indices (an index, a sequence or integer array, or a boolean
        mask of num_envs entries); None = every one. params: {path: values}, a path in
        sweep path syntax (e.g. "bodies.pole.mass" [kg],
        "joints.hinge.frame_i.origin[2]" [m], "robot.payload.mass" [kg]) and values of
        shape (k,) in the order of ids, or a scalar, in SI units; see
        simphant.Simulator.set_parameters for the semantics and errors.

        The listed sub-environments restart from their initial state with the new values
        (their elapsed step count restarts at 0; reset_events are not run). Call it from
        a reset event (first in reset_events, since it restarts the state that later
        events may write) so that the first observation of the episode sees the new
        values. The values hold across resets, randomised ones included, and across
        reset(seed=...), which rebuilds the simulator and sets them again.
        """
        n = self.num_envs
        a = np.arange(n) if ids is None else np.asarray(ids)
        if a.dtype == np.bool_:
            a = np.flatnonzero(a) if a.shape == (n,) else a  # the simulator names a wrong mask
        self.sim.set_parameters(ids, params)
        idx = np.atleast_1d(a).astype(np.int64)
        for path, value in params.items():
            column = self._params.setdefault(path, np.full(n, np.nan))
            column[idx] = np.broadcast_to(np.asarray(value, np.float64), idx.shape)
        self._elapsed[idx] = 0

    def render(self) -> Optional[Tuple[np.ndarray, ...]]:
        """render_mode "rgb_array": a tuple of (render_height, render_width, 3) uint8 RGB
        images of the sub-environments render_envs (default: every one) at the current
        state; None for render_mode None. Write them to a file with
        simphant.gym.render.VideoWriter."""
        if self.render_mode is None:
            return None
        ids = range(self.num_envs) if self.render_envs is None else self.render_envs
        return tuple(self._renderer.render(self.sim, ids))

    def close_extras(self, **kwargs: Any) -> None:
        self.sim = None  # type: ignore[assignment]

    def _run_reset_events(self, ids: np.ndarray) -> None:
        ids = np.asarray(ids, np.int64)
        if len(ids) == 0:
            return
        self._zero_rows(self.last_actions, ids)
        for event in self.reset_events:
            event(self, ids, self.np_random)

    # --- array operations (NumPy here; TorchVectorEnv overrides them) --------------
    def _observe(self) -> Any:
        cols = []
        states = self._read_states() if self._obs.uses_states else None
        joints = self._read_joints() if self._obs.uses_joints else None
        for part in self._obs.parts:
            if part[0] == "state":
                cols.append(states[:, part[2] if self._states_as_y else part[1]])
            elif part[0] == "joint":
                cols.append(joints[part[1]])
            else:
                cols.append(self._as_float(part[1](self.sim)).reshape(self.num_envs, -1))
        return self._concat(cols)

    #: _read_states returns State.y's layout (True) or the flat (n, 13 B) of states() (False)
    _states_as_y = False

    def _read_states(self) -> Any:
        return self.sim.states().reshape(self.num_envs, -1)

    def _read_joints(self) -> Any:
        q, qd, _ = self.sim.joint_state()
        return q, qd

    def _check_action_shape(self, shape: Sequence[int]) -> None:
        """Raises ValueError unless `shape` is (num_envs, n_actions), or (n_actions,) for
        one env (an array of another shape with as many numbers, a transposed one, is
        refused, not reshaped)."""
        n_actions = self.single_action_space.shape[0]
        got = tuple(int(d) for d in shape)
        if got != (self.num_envs, n_actions) and not (self.num_envs == 1 and got == (n_actions,)):
            raise ValueError(f"actions: must have shape ({self.num_envs}, {n_actions}) (got {got})")

    def _actions(self, actions: Any) -> Any:
        """actions as a (num_envs, n_actions) float64 array; ValueError for another shape
        (_check_action_shape) or a NaN, naming its index (+-inf are clipped to the bounds)."""
        a = np.asarray(actions, np.float64)
        self._check_action_shape(a.shape)
        a = a.reshape(self.num_envs, -1)
        if np.isnan(a).any():
            i, j = (int(k) for k in np.argwhere(np.isnan(a))[0])
            raise ValueError(f"actions[{i}, {j}] is NaN")
        return a

    def _apply_actions(self, a: Any) -> Any:
        self.last_actions = a.copy()
        a = np.clip(a, self.single_action_space.low, self.single_action_space.high)
        u = a if self._action_map is None else a @ self._action_map.T
        self.sim.set_inputs(u if self._action_offset is None else u + self._action_offset)
        return a

    def _concat(self, cols: Sequence[Any]) -> Any:
        return np.concatenate(cols, axis=1) if len(cols) > 1 else np.array(cols[0], copy=True)

    def _zero_rows(self, x: Any, ids: np.ndarray) -> None:
        x[ids] = 0.0

    def _cast(self, obs: Any) -> Any:
        """The observation as returned: in `dtype` (the reward sees the float64 one)."""
        return obs if self.dtype == np.float64 else obs.astype(self.dtype)

    def _as_float(self, x: Any) -> Any:
        return np.asarray(x, np.float64)

    def _as_bool(self, x: Any) -> Any:
        return np.asarray(x, bool)

    def _zeros(self, n: int) -> Any:
        return np.zeros(n, np.float64)

    def _bools(self, n: int) -> Any:
        return np.zeros(n, bool)

    def _from_host(self, x: np.ndarray) -> Any:
        return x

    def _to_host(self, x: Any) -> np.ndarray:
        return np.asarray(x)

    def _where(self, mask: Any, value: float, x: Any) -> Any:
        return np.where(mask, value, x)
