"""simphant.serve: the simulation service behind `simphant serve` (docs/service.md).

A FastAPI application with an OGC-API-Processes-shaped job API: jobs are queued in
SQLite, run by a pool of workers through the `simphant run` CLI with checkpoints, resumed
after a restart, and owned by bearer tokens from the config file.
"""
from typing import Any

from .config import Limits, ServeConfig, TokenInfo, config_from_dict, load_config

__all__ = ["create_app", "ServeConfig", "Limits", "TokenInfo", "config_from_dict", "load_config"]


def __getattr__(name: str) -> Any:
    # create_app needs the `serve` extra (FastAPI, uvicorn): imported on first use, so that
    # `simphant serve` and `simphant view` can say in one line that it is missing.
    if name == "create_app":
        from .._extras import require

        require("serve")
        from .app import create_app

        return create_app
    raise AttributeError(f"module 'simphant.serve' has no attribute {name!r}")
