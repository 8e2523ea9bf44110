"""The optional parts of the package and the pip extras that install them (pyproject.toml,
[project.optional-dependencies]; README "Python quick start"): a part whose modules are
missing says so in one line that names the extra."""
from __future__ import annotations

import importlib.util
from typing import Dict, List, Tuple

#: extra -> (what it enables, the modules it provides that the part checks for, as imported;
#: "a|b": either name, as python-multipart's module was renamed). `all` installs every one.
EXTRAS: Dict[str, Tuple[str, Tuple[str, ...]]] = {
    "results": ("reading results (simphant.open_results)", ("h5py", "xarray", "pandas")),
    # SALib (in the extra too) only for the Sobol indices of a Saltelli design: asked for then.
    "report": ("the report (simphant report)", ("h5py", "matplotlib", "scipy")),
    "rl": ("the Gymnasium environments (simphant.gym)", ("gymnasium",)),
    "serve": ("the service and the replay (simphant serve, simphant view)",
              ("fastapi", "uvicorn", "python_multipart|multipart", "h5py")),
    "distributed": ("sweeps on a Ray cluster (simphant.distributed)", ("ray",)),
}


class MissingExtraError(ImportError):
    """An optional part of the package was used without the modules of its pip extra;
    the message names the modules, the interpreter and the pip command."""


def missing(extra: str) -> List[str]:
    """The modules of `extra` that this interpreter cannot import (found without importing)."""
    return [m.split("|")[0] for m in EXTRAS[extra][1]
            if all(importlib.util.find_spec(name) is None for name in m.split("|"))]


def message(extra: str, modules: List[str]) -> str:
    """One line: what needs which modules, and the pip command that installs them."""
    import sys

    return (f"{EXTRAS[extra][0]} needs {', '.join(modules)}, which {sys.executable} lacks: "
            f"pip install 'simphant[{extra}]'")


def require(extra: str) -> None:
    """Raises MissingExtraError (an ImportError) when a module of `extra` is missing."""
    gone = missing(extra)
    if gone:
        raise MissingExtraError(message(extra, gone))
