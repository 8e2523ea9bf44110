"""The task registry of simphant.gym: simphant.gym.make(name, num_envs=..., **kwargs).

A task is a factory factory(num_envs=None, **kwargs) -> VectorEnv; register() adds one
(also to Gymnasium's registry as "simphant/<name>", so gymnasium.make_vec works), tasks()
lists them. The built-in tasks are in simphant.gym.builtin.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

import gymnasium as gym

from .vector_env import VectorEnv

#: factory(num_envs=None, **kwargs) -> VectorEnv (or a subclass)
TaskFactory = Callable[..., VectorEnv]


@dataclass(frozen=True)
class TaskSpec:
    """A registered task: its name, factory and one-line description."""

    name: str
    factory: TaskFactory
    description: str = ""


_TASKS: Dict[str, TaskSpec] = {}
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*-v\d+$")


def register(name: str, factory: TaskFactory, description: str = "", *, overwrite: bool = False,
             gymnasium_registry: bool = True) -> None:
    """Registers a task under `name` ("<Name>-v<version>", e.g. "CartPoleSwing-v0").

    factory(num_envs=None, **kwargs) builds the env. With gymnasium_registry the task is
    also registered in Gymnasium as "simphant/<name>" with a vector entry point:
    gymnasium.make_vec("simphant/<name>", num_envs=..., **kwargs) builds it as make() does
    (gymnasium.make of a single env is not offered). Raises ValueError for a malformed
    name, or a name already registered unless overwrite.
    """
    if not _NAME.match(name):
        raise ValueError(f"register: task name {name!r} must look like 'Name-v0'")
    if name in _TASKS and not overwrite:
        raise ValueError(f"register: task {name!r} is already registered (overwrite=True replaces it)")
    _TASKS[name] = TaskSpec(name, factory, description)
    if gymnasium_registry:
        gym_id = f"simphant/{name}"
        if gym_id in gym.registry:
            del gym.registry[gym_id]
        gym.register(id=gym_id, vector_entry_point=lambda num_envs=None, **kwargs: _build_task(name, num_envs, kwargs))


def tasks() -> List[str]:
    """The registered task names, sorted."""
    return sorted(_TASKS)


def task_spec(name: str) -> TaskSpec:
    """The TaskSpec of a registered task; a name without its version ("Reacher") is the
    task's highest registered version ("Reacher-v5"). KeyError naming the registered ones
    otherwise."""
    if name in _TASKS:
        return _TASKS[name]
    versions = [(int(t.rsplit("-v", 1)[1]), t) for t in _TASKS
                if t.rsplit("-v", 1)[0] == name and t.rsplit("-v", 1)[1].isdigit()]
    if versions:
        return _TASKS[max(versions)[1]]
    raise KeyError(f"no task {name!r} (tasks: {', '.join(tasks())})")


def _options(factory: TaskFactory) -> str:
    """The keyword options a task accepts, in words: its factory's own, and VectorEnv's
    (with torch and device) when the factory passes **kwargs on."""
    params = inspect.signature(factory).parameters.values()
    own = sorted(p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != "num_envs")
    text = f"the task's options: {', '.join(own) or 'none'}"
    if any(p.kind == p.VAR_KEYWORD for p in params):
        env = [n for n in inspect.signature(VectorEnv.__init__).parameters if n not in ("self", "num_envs", *own)]
        text += f"; VectorEnv's: {', '.join(sorted(env + ['torch', 'device']))}"
    return text


def make(name: str, num_envs: Optional[int] = None, **kwargs: Any) -> VectorEnv:
    """Builds the registered task `name` with num_envs sub-environments (None: the task's
    default). kwargs go to the task's factory: its own options, and any VectorEnv
    argument to override (backend, dtype, seed, render_mode, max_episode_steps, ...);
    torch=True builds a TorchVectorEnv (with device=...). `name` may omit the version
    (the highest registered one). Raises KeyError for an unknown name, TypeError naming
    the task and its options for an option it does not take."""
    return _build_task(name, num_envs, kwargs)


def _build_task(name: str, num_envs: Optional[int], kwargs: Dict[str, Any]) -> VectorEnv:
    """make()'s work, with the options as a dict (one named `name` passes through)."""
    spec = task_spec(name)
    try:
        return spec.factory(num_envs=num_envs, **kwargs)
    except TypeError as e:
        bad = [k for k in kwargs if f"unexpected keyword argument '{k}'" in str(e)]
        if not bad:
            raise
        raise TypeError(f"{spec.name}: no option {bad[0]!r} ({_options(spec.factory)})") from e
