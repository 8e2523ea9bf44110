"""The service's web pages (docs/service.md, "Web page and replay"): the job list with the
submit form (`/web/`), a job's page with its report figures and the 3D replay
(`/web/jobs/{id}`), the submit form's option controls derived from JobOptions
(`/web/job-options.json`), the static files (`/web/static/...`, three.js from Debian's
libjs-three under `/web/three/...`) and the replay's data (`GET /jobs/{id}/replay`, JSON;
`GET /jobs/{id}/replay/mesh/{k}`, the STL files it draws). The job's page shows the
report's figures through the job API's `GET /jobs/{id}/results/report/<file>`.

The pages are plain HTML and JavaScript without a build step; they call the job API with
the bearer token the user enters once (kept in the browser's localStorage and in the
cookie `simphant_token` that auth.current_token accepts). The data routes need the token
and see only the caller's jobs (another owner's job: 404).
"""
from __future__ import annotations

import os
import re
from typing import Optional

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse

from . import replay as replay_mod
from .auth import current_token
from .config import TokenInfo
from .replay_urdf import robot_data_dir

#: The package's static files (HTML, JS, CSS).
STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
#: Debian's libjs-three; SIMPHANT_THREE_DIR overrides it (a folder with build/three.min.js).
THREE_DIR = os.environ.get("SIMPHANT_THREE_DIR", "/usr/share/javascript/three")
#: The three.js files the replay loads, by the name it asks for.
THREE_FILES = {
    "three.min.js": "build/three.min.js",
    "OrbitControls.js": "examples/js/controls/OrbitControls.js",
    "STLLoader.js": "examples/js/loaders/STLLoader.js",
}
_STATIC_NAME = re.compile(r"^[A-Za-z0-9_-]+\.(html|js|css)$")
_JOB_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

router = APIRouter()


def static_response(name: str) -> FileResponse:
    """One file of static/ (404 for any other name)."""
    if not _STATIC_NAME.match(name) or not os.path.isfile(os.path.join(STATIC_DIR, name)):
        raise HTTPException(404, f"no static file {name!r}")
    return FileResponse(os.path.join(STATIC_DIR, name), headers={"Cache-Control": "no-cache"})


def three_response(name: str) -> FileResponse:
    """three.js (three.min.js, OrbitControls.js, STLLoader.js) from libjs-three; 404 naming
    the package when it is not installed."""
    rel = THREE_FILES.get(name)
    if rel is None:
        raise HTTPException(404, f"no three.js file {name!r}")
    path = os.path.join(THREE_DIR, rel)
    if not os.path.isfile(path):
        raise HTTPException(404, f"{path}: not installed (apt-get install libjs-three, or set SIMPHANT_THREE_DIR)")
    return FileResponse(path, media_type="text/javascript", headers={"Cache-Control": "max-age=86400"})


def client_message(msg: str, path: str) -> str:
    """msg with the results file's folder left out: the client sees the name in the job's
    folder (out.h5), never the server's absolute paths."""
    folder = os.path.dirname(os.path.abspath(path))
    for root in {folder, os.path.realpath(folder)}:
        msg = msg.replace(root + os.sep, "")
    return msg


def replay_response(path: str, instance: Optional[int], pick: str, load: Optional[str], max_frames: int,
                    mesh_root: Optional[str]) -> dict:
    """replay.replay_data as the routes answer it: 404 when the run has no file yet, 400
    for a bad instance / pick / load, 422 when the file cannot be replayed."""
    if not os.path.isfile(path):
        raise HTTPException(404, "no results file yet")
    try:
        return replay_mod.replay_data(path, instance=instance, pick=pick, load=load, max_frames=max_frames,
                                      mesh_root=mesh_root)
    except replay_mod.ReplayError as e:
        msg = client_message(str(e), path)
        code = 400 if msg.startswith(("instance ", "pick ", "load ")) else 422
        raise HTTPException(code, msg) from None


def mesh_response(path: str, k: int, mesh_root: Optional[str], allowed_roots: Optional[list]) -> FileResponse:
    """Mesh file k of the replay of `path`; 404 when there is none or it lies outside every
    folder of allowed_roots (None: anywhere)."""
    try:
        files = replay_mod.mesh_files(path, mesh_root)
        p = replay_mod.mesh_path(files, k, allowed_roots)
    except replay_mod.ReplayError as e:
        raise HTTPException(404, client_message(str(e), path)) from None
    return FileResponse(p, media_type="model/stl")


def job_folder(request: Request, job_id: str, token: TokenInfo) -> str:
    """The folder of the caller's job `job_id` (<data>/jobs/<id>); 404 when the job does
    not exist or belongs to another owner."""
    if not _JOB_ID.match(job_id):
        raise HTTPException(404, f"no job {job_id!r}")
    if request.app.state.store.get(job_id, token.name) is None:
        raise HTTPException(404, f"no job {job_id!r}")
    return os.path.join(request.app.state.config.jobs_dir, job_id)


# ---- pages and static files (no token: they hold no data) ------------------------------
@router.get("/", include_in_schema=False)
def root() -> RedirectResponse:
    return RedirectResponse("/web/")


@router.get("/web", include_in_schema=False)
def web_root() -> RedirectResponse:
    return RedirectResponse("/web/")


@router.get("/web/", include_in_schema=False)
def jobs_page() -> FileResponse:
    return static_response("index.html")


@router.get("/web/jobs/{job_id}", include_in_schema=False)
def job_page(job_id: str) -> FileResponse:
    return static_response("job.html")


@router.get("/web/job-options.json", include_in_schema=False)
def job_options_form() -> JSONResponse:
    """The submit form's controls, one per JobOptions field (options.form_controls)."""
    from .options import form_controls

    return JSONResponse({"controls": form_controls()}, headers={"Cache-Control": "no-cache"})


@router.get("/web/static/{name}", include_in_schema=False)
def static_file(name: str) -> FileResponse:
    return static_response(name)


@router.get("/web/three/{name}", include_in_schema=False)
def three_file(name: str) -> FileResponse:
    return three_response(name)


# ---- data of a job (token) --------------------------------------------------------------
@router.get("/jobs/{job_id}/replay", tags=["replay"])
async def job_replay(request: Request, job_id: str, instance: Optional[int] = Query(None, ge=0),
                     pick: str = Query("index", pattern="^(index|peak)$"), load: Optional[str] = None,
                     max_frames: int = Query(replay_mod.MAX_FRAMES, ge=2, le=20000),
                     token: TokenInfo = Depends(current_token)) -> JSONResponse:
    """The 3D replay of one instance of a job's results (docs/service.md, "Web page and
    replay"): frame times, body poses (base64 float32), body shapes, joint anchors; by
    index (`instance`) or the instance with the largest peak of `load` (`pick=peak`)."""
    folder = job_folder(request, job_id, token)
    data = await run_in_threadpool(replay_response, os.path.join(folder, "out.h5"), instance, pick, load,
                                   max_frames, folder)
    return JSONResponse(data)


@router.get("/jobs/{job_id}/replay/mesh/{k}", tags=["replay"])
async def job_replay_mesh(request: Request, job_id: str, k: int,
                          token: TokenInfo = Depends(current_token)) -> FileResponse:
    """Mesh file k of a job's replay (STL); only files inside the job's folder or, for
    `example-robot-data:` robots, inside that package's robots folder."""
    folder = job_folder(request, job_id, token)
    return await run_in_threadpool(mesh_response, os.path.join(folder, "out.h5"), k, folder,
                                   [folder, robot_data_dir()])
