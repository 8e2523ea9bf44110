"""The package itself: version, public names and their documentation."""
from __future__ import annotations

import inspect
import pydoc
import re

import simphant
import simphant.gym


def test_version_is_cmake_project_version(root):
    cmake = (root / "CMakeLists.txt").read_text()
    version = re.search(r"project\(SimPhant VERSION ([0-9.]+)", cmake).group(1)
    assert simphant.__version__ == version


def test_every_public_name_is_documented():
    import simphant.distributed  # Ray itself is imported only when a sweep starts
    import simphant.report

    for module in (simphant, simphant.gym, simphant.distributed, simphant.report):
        for name in module.__all__:
            obj = getattr(module, name)
            if name == "__version__":
                continue
            assert inspect.getdoc(obj), f"{module.__name__}.{name} has no docstring"
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not (callable(member) or isinstance(member, property)):
                        continue
                    assert inspect.getdoc(member), f"{module.__name__}.{name}.{attr} has no docstring"


def test_help_of_simulator_reads_well():
    text = pydoc.render_doc(simphant.Simulator, renderer=pydoc.plaintext)
    for needed in ("instances", "backend", "(n, B, 13)", "state_view", "set_inputs", "reset", "get_state",
                   "ValueError", "BackendError"):
        assert needed in text, needed


def test_backend_error_is_a_runtime_error():
    assert issubclass(simphant.BackendError, RuntimeError)
