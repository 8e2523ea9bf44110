"""Gymnasium environments over simphant.Simulator (docs/python.md, "Reinforcement learning").

VectorEnv: a gymnasium.vector.VectorEnv whose sub-environments are the instances of one
Simulator (NumPy arrays). TorchVectorEnv: the same with torch tensors, on the GPU for the
cuda backends (imported on first use; needs torch).
"""
from __future__ import annotations

from typing import Any

from .vector_env import VectorEnv

__all__ = ["TorchVectorEnv", "VectorEnv"]


def __getattr__(name: str) -> Any:
    if name == "TorchVectorEnv":
        from .torch_env import TorchVectorEnv

        return TorchVectorEnv
    raise AttributeError(f"module 'simphant.gym' has no attribute {name!r}")
