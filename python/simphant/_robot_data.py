"""Where the core finds the URDF robots of the example-robot-data package (docs/robots.md)."""
from __future__ import annotations

import os

from . import _simphant


def _configure_robot_data() -> None:
    """Tells the core where example-robot-data's robots are (found by importlib in this
    interpreter's packages), unless SIMPHANT_ROBOT_DATA names the folder already."""
    if os.environ.get("SIMPHANT_ROBOT_DATA"):
        return
    try:
        import importlib.metadata as metadata

        path = metadata.distribution("example-robot-data").locate_file(
            "cmeel.prefix/share/example-robot-data/robots")
    except Exception:  # not installed: robot scenes then say where to get it
        return
    if os.path.isdir(str(path)):
        _simphant.set_robot_data_dir(str(path))
