"""The service's HTTP connections under bounds (docs/service.md, "Connections and
timeouts"): uvicorn's h11 protocol with a header timeout, a body timeout, and bounds on
open connections in total and per client address; and the open-file headroom the bounds
are sized from.

uvicorn closes an idle keep-alive connection (timeout_keep_alive) but not one that never
finishes its request: a client that sends half a header holds its socket, and its file
descriptor, for good. `bounded_protocol` gives uvicorn (its `http` protocol class) the
deadlines a reverse proxy has (nginx's client_header_timeout and client_body_timeout),
so the service holds also where it is reached directly.
"""
from __future__ import annotations

import json
import logging
import resource
from collections import Counter
from typing import Optional, Tuple

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .config import Connections

log = logging.getLogger("simphant.serve")

#: File descriptors kept free for everything but the client connections: the jobs'
#: pipes and log files, the database, the static files, the worker threads' files.
FD_RESERVE = 256


def raise_open_file_limit() -> int:
    """Raises the soft RLIMIT_NOFILE of this process to its hard limit (as far as the
    kernel allows) and returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        for target in (hard, 1 << 20, 65536):
            if target == resource.RLIM_INFINITY or target <= soft:
                continue
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
                break
            except (ValueError, OSError):
                continue
    return soft


def connection_bound(requested: int, open_file_limit: int) -> Tuple[int, Optional[str]]:
    """The total connection bound that leaves FD_RESERVE descriptors under the soft
    open-file limit, and a warning when it is below the requested one (None otherwise)."""
    room = max(1, open_file_limit - FD_RESERVE)
    if requested <= room:
        return requested, None
    return room, (f"connections.max_total {requested} lowered to {room}: the open-file limit is {open_file_limit} "
                  f"and {FD_RESERVE} descriptors are kept for the jobs (raise the hard limit, ulimit -Hn)")


def _refusal(detail: str) -> bytes:
    body = json.dumps({"type": "about:blank", "title": "Service Unavailable", "status": 503,
                       "detail": detail}).encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/problem+json\r\n"
            b"connection: close\r\nretry-after: 1\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


def bounded_protocol(bounds: Connections, max_total: int) -> type:
    """The uvicorn protocol class (uvicorn.Config(http=...)) that enforces `bounds` with
    max_total open connections (connection_bound's). One class per server: its counts
    are the server's (one event loop, so no lock)."""
    open_by_client: Counter = Counter()
    totals = {"open": 0}

    class BoundedH11Protocol(H11Protocol):
        _counted: Optional[str] = None
        _deadline: Optional[object] = None

        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            host = self.client[0] if self.client else ""
            reason = None
            if totals["open"] >= max_total:
                reason = f"too many open connections (connections.max_total {max_total}); retry later"
            elif bounds.max_per_client and open_by_client[host] >= bounds.max_per_client:
                reason = (f"too many open connections from this address (connections.max_per_client "
                          f"{bounds.max_per_client}); close some and retry")
            if reason is not None:
                transport.write(_refusal(reason))
                transport.close()
                return
            self._counted = host
            open_by_client[host] += 1
            totals["open"] += 1
            self._arm(bounds.header_timeout)

        def connection_lost(self, exc) -> None:  # type: ignore[override]
            self._disarm()
            if self._counted is not None:
                open_by_client[self._counted] -= 1
                if open_by_client[self._counted] <= 0:
                    del open_by_client[self._counted]
                totals["open"] -= 1
                self._counted = None
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            state = self.conn.their_state
            if state is h11.SEND_BODY:  # headers in, body arriving: the time to its next read
                self._arm(bounds.body_timeout)
            elif state is not h11.IDLE:  # the request is in: the response is the service's time
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():  # the next request's headers get their own deadline
                self._arm(bounds.header_timeout)

        def _arm(self, seconds: float) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()  # type: ignore[attr-defined]
                self._deadline = None

        def _expired(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            if self.flow is not None and self.flow.read_paused:  # the service is behind, not the client
                self._arm(bounds.body_timeout)
                return
            if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
                self.transport.close()

    return BoundedH11Protocol
