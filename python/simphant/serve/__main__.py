"""`simphant serve [--config F] [--host H] [--port P] [--data DIR] [--workers N]
[--log-level L]`: runs the service under uvicorn (docs/service.md); the command line in
the C++ CLI's style (cli_style.py). Exit codes of README "Exit codes": 0 stopped,
2 bad command line or config, 3 a module missing or the port not available."""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import List, Optional

from .. import _extras


def _parser() -> argparse.ArgumentParser:
    from .cli_style import LOG_LEVELS, CliParser, default_log_level, int_range, member

    ap = CliParser("simphant serve", "The simulation service: a job API (OGC API - Processes) and web pages over "
                   "a persistent queue of runs (docs/service.md)")
    ap.add_argument("--config", help="JSON config file (docs/service.md, \"Configuration\")")
    ap.add_argument("--host", help="Address to listen on (default: the config's, else 127.0.0.1)")
    ap.add_argument("--port", type=int_range(0, 65535), help="Port (default: the config's, else 8080; 0: a free one)")
    ap.add_argument("--data", help="Data folder (default: the config's data_dir, else ./simphant-data)")
    ap.add_argument("--workers", type=int_range(0, 4096), help="Jobs run at once (default: the config's; 0: one "
                    "per GPU, else half the CPU cores)")
    ap.add_argument("--log-level", type=member(LOG_LEVELS), default=default_log_level("info"),
                    help="Diagnostics on stderr: trace | debug | info | warn | error | off (default info, or the "
                    "environment variable SIMPHANT_LOG_LEVEL)")
    return ap


def main(argv: Optional[List[str]] = None) -> int:
    ap = _parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    from .config import ServeConfig, load_config
    try:
        config = load_config(args.config) if args.config else ServeConfig()
    except (OSError, ValueError) as e:
        sys.stderr.write(f"error: serve: --config: {e}\n")
        return 2
    if args.host:
        config.host = args.host
    if args.port is not None:
        config.port = args.port
    if args.data:
        config = dataclasses.replace(config, data_dir=os.path.abspath(args.data))
    elif not args.config:
        config.data_dir = os.path.abspath(config.data_dir)
    if args.workers is not None:
        config.workers = args.workers
    if not config.tokens:
        sys.stderr.write("warning: serve: the config has no tokens: every job request is refused (401)\n")
    gone = _extras.missing("serve")
    if gone:
        sys.stderr.write(f"error: serve: {_extras.message('serve', gone)}\n")
        return 3
    import uvicorn

    from .app import create_app
    from .store import DatabaseBusy
    try:
        app = create_app(config)
    except DatabaseBusy as e:
        sys.stderr.write(f"error: serve: {e}\n")
        return 3
    except (OSError, ValueError) as e:
        sys.stderr.write(f"error: serve: {e}\n")
        return 2
    from .cli_style import uvicorn_level
    from .connections import bounded_protocol, connection_bound, raise_open_file_limit
    max_total, lowered = connection_bound(config.connections.max_total, raise_open_file_limit())
    if lowered:
        sys.stderr.write(f"warning: serve: {lowered}\n")
    server = uvicorn.Server(uvicorn.Config(app, host=config.host, port=config.port,
                                           log_level=uvicorn_level(args.log_level),
                                           timeout_graceful_shutdown=5,
                                           http=bounded_protocol(config.connections, max_total),
                                           timeout_keep_alive=config.connections.keep_alive_timeout))
    try:
        server.run()
    except OSError as e:
        sys.stderr.write(f"error: serve: {e}\n")
        return 3
    except SystemExit:  # uvicorn exits 1 when it cannot bind the port (it logged why)
        sys.stderr.write(f"error: serve: cannot listen on {config.host}:{config.port}\n")
        return 3
    return 0 if server.started else 3


if __name__ == "__main__":
    sys.exit(main())
