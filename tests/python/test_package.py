"""The package itself: version, public names and their documentation."""
from __future__ import annotations

import inspect
import pydoc
import re

import pytest

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


def test_extras_match_pyproject(root):
    """Each part's check (simphant._extras) asks only for modules its pip extra installs,
    and `all` installs every extra but `test`."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    from simphant import _extras

    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra, (_, modules) in _extras.EXTRAS.items():
        assert extra in extras, extra
        installed = {re.split(r"[<>=\[ ;]", req, 1)[0].lower().replace("-", "_") for req in extras[extra]}
        for module in modules:
            assert any(name.lower() in installed for name in module.split("|")), \
                f"{extra}: {module} is not among {sorted(installed)}"
    everything = re.fullmatch(r"simphant\[(.*)\]", extras["all"][0]).group(1).split(",")
    assert sorted(everything) == sorted(set(extras) - {"all", "test"})


def test_missing_extra_is_one_line_naming_it(monkeypatch):
    from simphant import _extras

    monkeypatch.setitem(_extras.EXTRAS, "results", ("reading results", ("h5py", "no_such_module_for_the_test")))
    with pytest.raises(ImportError, match=r"^reading results needs no_such_module_for_the_test, which .* lacks: "
                                          r"pip install 'simphant\[results\]'$"):
        simphant.open_results("missing.h5")
