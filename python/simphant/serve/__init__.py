"""simphant.serve: the simulation service behind `simphant serve` (docs/service.md).

A FastAPI application with an OGC-API-Processes-shaped job API: jobs are queued in
SQLite, run by a pool of workers through the `simphant run` CLI with checkpoints, resumed
after a restart, and owned by bearer tokens from the config file.
"""
from .app import create_app
from .config import Limits, ServeConfig, TokenInfo, config_from_dict, load_config

__all__ = ["create_app", "ServeConfig", "Limits", "TokenInfo", "config_from_dict", "load_config"]
