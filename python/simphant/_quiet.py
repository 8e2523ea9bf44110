"""quiet_warnings(): a context in which the C++ core logs errors only, for loading files
whose warnings are expected (a shipped task's model, a stored scene compiled again). The
log level is the process's (simphant.set_log_level): the outermost of nested or
overlapping contexts (threads of a server) restores it on exit."""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

from . import _simphant

_lock = threading.Lock()
_depth = 0
_saved = ""


@contextlib.contextmanager
def quiet_warnings() -> Iterator[Any]:
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = _simphant.log_level()
            if _saved in ("trace", "debug", "info", "warn", "warning"):
                _simphant.set_log_level("error")
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _simphant.set_log_level(_saved)
