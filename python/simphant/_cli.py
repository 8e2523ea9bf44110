"""The console command `simphant` of an installed wheel: runs the CLI executable that the
wheel carries (simphant/bin/simphant, README "Command line") with the same arguments.

`simphant report`, `serve` and `view` start Python modules of this package; the CLI takes
the interpreter from $SIMPHANT_PYTHON, which this command sets to its own interpreter (the
venv's) unless it is set already.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional


def executable() -> Optional[str]:
    """The path of the `simphant` executable this package comes with: the wheel's
    simphant/bin/simphant, else a build tree's build/simphant beside build/python/simphant;
    None when neither exists (a package used from the source tree without a build)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "bin" / "simphant", here.parent.parent / "simphant"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def main(argv: Optional[List[str]] = None) -> int:
    """Replaces this process with the CLI executable; exit status 3 with one line on stderr
    when the package has none or it cannot be run."""
    exe = executable()
    if exe is None:
        sys.stderr.write("error: simphant: this installation of the package has no simphant executable "
                         "(build the wheel with scripts/build_wheel.sh, or build the CLI with scripts/setup.sh)\n")
        return 3
    args = sys.argv[1:] if argv is None else argv
    os.environ.setdefault("SIMPHANT_PYTHON", sys.executable)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(exe, [exe, *args])
    except OSError as e:  # e.g. a file system mounted noexec, or a wheel of another architecture
        sys.stderr.write(f"error: simphant: cannot run {exe}: {e.strerror}\n")
        return 3
    return 0  # not reached: execv replaces the process
