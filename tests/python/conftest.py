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


def require(module: str, why: str = ""):
    """Imports `module` for a test file that scripts/setup_tests.sh provides for: skips
    the file without it (under CI such a skip fails the run: scripts/check_skips.py)."""
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as e:
        pytest.skip(f"{module} is not installed{': ' + why if why else ''} ({e})", allow_module_level=True)


def require_executable(path: str, why: str) -> None:
    """As require, for a program (e.g. Debian's chromium)."""
    if not os.access(path, os.X_OK):
        pytest.skip(f"{path} is not installed ({why})", allow_module_level=True)


def _record_skip(report) -> None:
    """Appends a skipped test (or a skipped test file) to $SIMPHANT_SKIPPED_TESTS as
    "pytest<TAB>node id<TAB>reason", for scripts/check_skips.py (scripts/run_tests.sh)."""
    path = os.environ.get("SIMPHANT_SKIPPED_TESTS")
    # Under pytest-xdist each report reaches the controller too: it alone writes.
    if not path or os.environ.get("PYTEST_XDIST_WORKER") or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    reason = " ".join(str(reason).split())
    with open(path, "a") as f:
        f.write(f"pytest\t{report.nodeid}\t{reason}\n")


def pytest_runtest_logreport(report):
    _record_skip(report)


def pytest_collectreport(report):
    _record_skip(report)


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


def states_event(states):
    """A simphant.gym reset event that writes states[i] into the State.y of env i (the
    envs' whole state, in the simulator's layout)."""

    def event(env, ids, rng):
        s = env.sim.get_state(ids)
        s.y[:] = states[ids]
        env.sim.set_state(s)

    return event
