"""Shared fixtures of the Python tests (run by scripts/run_tests.sh, or
`PYTHONPATH=build/python python3 -m pytest tests/python`)."""
from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def examples() -> pathlib.Path:
    return EXAMPLES


@pytest.fixture(scope="session")
def cli() -> str:
    """The simphant executable: $SIMPHANT_CLI, or build/simphant of this checkout."""
    path = os.environ.get("SIMPHANT_CLI", str(ROOT / "build" / "simphant"))
    if not os.access(path, os.X_OK):
        pytest.skip(f"the simphant executable is not built ({path}; set SIMPHANT_CLI)")
    return path


def run_cli(cli: str, *args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([cli, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def python_env() -> dict:
    """The environment for a Python subprocess that must import the same simphant."""
    import simphant

    env = dict(os.environ)
    pkg_parent = str(pathlib.Path(simphant.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["MPLBACKEND"] = "Agg"
    return env
