"""Gymnasium environments over simphant.Simulator (docs/python.md, "Reinforcement learning").

VectorEnv: a gymnasium.vector.VectorEnv whose sub-environments are the instances of one
Simulator (NumPy arrays). TorchVectorEnv: the same with torch tensors, on the GPU for the
cuda backends (imported on first use; needs torch). make(name, num_envs, **kwargs) builds
a registered task: tasks() lists them, register() adds one, and each is also
"simphant/<name>" for gymnasium.make_vec (simphant.gym.builtin has the built-in ones,
simphant.gym.mujoco_tasks Gymnasium's InvertedPendulum-v5, InvertedDoublePendulum-v5,
Reacher-v5, Hopper-v5, Walker2d-v5 and HalfCheetah-v5, simphant.gym.mujoco_ant its Ant-v5,
simphant.gym.mujoco_pusher its Pusher-v5, simphant.gym.mujoco_humanoid its Humanoid-v5,
simphant.gym.legged_tasks Solo12StandUp-v0; simphant.gym.mujoco_data builds MuJoCo's
per-body cinert, cvel and cfrc_ext).
simphant.gym.mdp: goals, observation terms, rewards and reset events to compose tasks;
simphant.gym.render: the offscreen renderer and VideoWriter.
"""
from __future__ import annotations

from typing import Any

from .._extras import require

require("rl")  # gymnasium: one line naming the extra instead of a traceback from below

from . import builtin, legged_tasks, mdp, mujoco_ant, mujoco_humanoid, mujoco_pusher, mujoco_tasks  # noqa: E402
from .registry import TaskSpec, make, register, task_spec, tasks  # noqa: E402
from .render import Camera, VideoWriter, write_video  # noqa: E402
from .vector_env import VectorEnv  # noqa: E402

__all__ = ["Camera", "TaskSpec", "TorchVectorEnv", "VectorEnv", "VideoWriter", "make", "register", "task_spec", "tasks",
           "write_video"]


def __getattr__(name: str) -> Any:
    if name == "TorchVectorEnv":
        from .torch_env import TorchVectorEnv

        return TorchVectorEnv
    raise AttributeError(f"module 'simphant.gym' has no attribute {name!r}")
