"""SimPhant: many independent copies ("instances") of one constrained rigid multibody
model, stepped in lockstep on all CPU cores or a GPU (docs/python.md).

    import simphant
    sim = simphant.Simulator("examples/slider_crank.json", instances=64)
    sim.set_inputs(np.full((64, 1), 0.5))   # motor torque [N m] per instance
    sim.step(100)
    x = sim.states()                        # (64, B, 13): r, p, v, omega per body

    result = simphant.run("examples/four_bar.json", instances=100, out="four_bar.h5")
    ds = simphant.open_results(result.out_file)   # xarray.Dataset

Public names: load_scene, Scene, Simulator, Robot, State, InstanceStatus, StatusReason, Assembly, run,
RunResult, merge, open_results, instance_table, scene_schema, BackendError, set_log_level,
log_level, cuda_available, __version__; the Gymnasium vector env in simphant.gym; sweeps
over a Ray cluster in simphant.distributed (docs/scaling-out.md).
"""
from __future__ import annotations

from . import _simphant
from ._robot_data import _configure_robot_data
from .merge import merge
from .results import instance_table, open_results
from .robot import Robot
from .run import RunResult, run
from .scene import Scene, load_scene, scene_schema
from .simulator import Assembly, Simulator
from .state import InstanceStatus, State, StatusReason

__version__: str = _simphant.__version__
"""The version of the C++ core this module was built from (CMake's project version)."""

BackendError = _simphant.BackendError
BackendError.__doc__ = ("A backend could not run the batch: no CUDA device, a device too small for the batch, "
                        "a failed CUDA call, a backend not in this build. A RuntimeError.")
BackendError.__module__ = "simphant"


def set_log_level(level: str) -> None:
    """Sets the level of the library's log lines on stderr: "trace", "debug", "info"
    (default; the environment variable SIMPHANT_LOG_LEVEL sets the initial one), "warn",
    "error" or "off". Raises ValueError for another name."""
    _simphant.set_log_level(level)


def log_level() -> str:
    """The current log level's name."""
    return _simphant.log_level()


def cuda_available() -> bool:
    """True when this build has the CUDA backends and a CUDA device is visible."""
    return bool(_simphant.cuda_built() and _simphant.cuda_device_count() > 0)


_configure_robot_data()

__all__ = ["Assembly", "BackendError", "InstanceStatus", "Robot", "RunResult", "Scene", "Simulator", "State", "StatusReason",
           "__version__", "cuda_available", "instance_table", "load_scene", "log_level", "merge", "open_results", "run",
           "scene_schema",
           "set_log_level"]
