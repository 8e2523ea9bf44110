"""quiet_warnings(): a context in which the C++ core logs errors only, for loading files
whose warnings are expected (a shipped task's model, a stored scene compiled again). The
log level is the process's (simphant.set_log_level): it is restored on exit."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator

from . import _simphant


@contextlib.contextmanager
def quiet_warnings() -> Iterator[Any]:
    level = _simphant.log_level()
    if level in ("trace", "debug", "info", "warn", "warning"):
        _simphant.set_log_level("error")
    try:
        yield
    finally:
        _simphant.set_log_level(level)
