"""`simphant view RESULTS.h5 [--port P] [--host H] [--no-browser] [--log-level L]`: the 3D replay of one
run file in the browser (docs/service.md, "Web page and replay"), served on this machine
by the same pages and replay data as the service, without tokens or jobs.

Exit codes (README "Exit codes"): 0 stopped (Ctrl-C, SIGTERM; the C++ `simphant view`
that runs this module answers 130 / 143 then, as `simphant serve`), 2 bad input (the file is missing,
not HDF5, not SimPhant output or has no /state frames; a bad option), 3 a module missing
(fastapi, uvicorn, h5py) or the port not available.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import webbrowser
from typing import List, Optional

from .. import _extras


def _parser() -> argparse.ArgumentParser:
    from .cli_style import LOG_LEVELS, CliParser, default_log_level, int_range, member

    ap = CliParser("simphant view", "The 3D replay of a run's recorded frames in the browser (play, pause, scrub, "
                   "speed, instance by index or largest peak load; docs/service.md)")
    ap.add_argument("results", help="The run's HDF5 file")
    ap.add_argument("--port", type=int_range(0, 65535), default=8050, help="Port (default 8050; 0: a free one)")
    ap.add_argument("--host", default="127.0.0.1", help="Address to listen on (default 127.0.0.1: this machine only)")
    ap.add_argument("--no-browser", action="store_true", help="Do not open a browser; print the address only")
    ap.add_argument("--log-level", type=member(LOG_LEVELS), default=default_log_level("warn"),
                    help="Diagnostics on stderr: trace | debug | info | warn | error | off (default warn, or the "
                    "environment variable SIMPHANT_LOG_LEVEL; info: one line per request)")
    return ap


def create_view_app(path: str):
    """The FastAPI app of `simphant view`: / (the replay page), /replay (its data for
    ?instance=k or ?pick=peak&load=key), /replay/mesh/{k}, and the static files of the
    service's pages. `path` must be a replayable run file (checked by the caller)."""
    from fastapi import FastAPI, Query
    from fastapi.concurrency import run_in_threadpool
    from fastapi.responses import FileResponse, JSONResponse

    from . import replay as replay_mod
    from . import web

    app = FastAPI(title=f"SimPhant view: {os.path.basename(path)}")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return web.static_response("replay.html")

    @app.get("/web/static/{name}", include_in_schema=False)
    def static_file(name: str) -> FileResponse:
        return web.static_response(name)

    @app.get("/web/three/{name}", include_in_schema=False)
    def three_file(name: str) -> FileResponse:
        return web.three_response(name)

    @app.get("/replay")
    async def replay(instance: Optional[int] = Query(None, ge=0), pick: str = Query("index", pattern="^(index|peak)$"),
                     load: Optional[str] = None,
                     max_frames: int = Query(replay_mod.MAX_FRAMES, ge=2, le=20000)) -> JSONResponse:
        data = await run_in_threadpool(web.replay_response, path, instance, pick, load, max_frames, None)
        return JSONResponse(data)

    @app.get("/replay/mesh/{k}")
    async def mesh(k: int) -> FileResponse:
        return await run_in_threadpool(web.mesh_response, path, k, None, None)

    return app


def main(argv: Optional[List[str]] = None) -> int:
    ap = _parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    gone = _extras.missing("serve")
    if gone:
        sys.stderr.write(f"error: view: {_extras.message('serve', gone)}\n")
        return 3
    import uvicorn

    from . import replay as replay_mod
    from .cli_style import uvicorn_level
    path = os.path.abspath(args.results)
    try:
        with replay_mod.open_run(path) as f:
            if "state" not in f or f["state"].ndim != 4 or f["state"].shape[0] == 0:
                raise replay_mod.ReplayError(f"{path}: no recorded /state frames to replay "
                                             f"(the run's output.datasets left out state?)")
    except replay_mod.ReplayError as e:
        sys.stderr.write(f"error: view: {e}\n")
        return 2
    server = uvicorn.Server(uvicorn.Config(create_view_app(path), host=args.host, port=args.port,
                                           log_level=uvicorn_level(args.log_level),
                                           timeout_graceful_shutdown=2))
    announced = threading.Event()

    def announce() -> None:  # once uvicorn listens: print the address (the real port for --port 0)
        while not server.started and not server.should_exit:
            announced.wait(0.05)
        if not server.started:
            return
        port = server.servers[0].sockets[0].getsockname()[1] if server.servers else args.port
        host = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
        address = f"http://{'[' + host + ']' if ':' in host else host}:{port}/"
        print(f"view: {os.path.basename(path)} at {address} (Ctrl-C to stop)", flush=True)
        if not args.no_browser:
            webbrowser.open(address)

    threading.Thread(target=announce, daemon=True).start()
    try:
        server.run()
    except (OSError, SystemExit) as e:  # uvicorn logs the reason and exits when it cannot bind
        if not server.started:
            why = f" ({e})" if isinstance(e, OSError) else " (see the line above)"
            sys.stderr.write(f"error: view: could not listen on {args.host}:{args.port}{why}\n")
            return 3
        raise
    if not server.started:
        sys.stderr.write(f"error: view: could not listen on {args.host}:{args.port}\n")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
