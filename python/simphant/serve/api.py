"""The job API (OGC API - Processes, Part 1 shapes; docs/service.md, "API").

POST /jobs, GET /jobs, GET /jobs/{id}, GET /jobs/{id}/events, GET /jobs/{id}/results,
GET /jobs/{id}/results/{name}, DELETE /jobs/{id}. Every route needs a bearer token
(auth.current_token); a job of another owner is answered 404 like a missing one.
"""
from __future__ import annotations

import asyncio
import datetime
import json
import math
import os
import shutil
import uuid
from typing import Any, Dict, List, Literal, Optional, Tuple

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from .auth import current_token
from .bundle import BundleError, check_scene_refs, unpack_zip, write_file
from .config import TokenInfo
from .errors import ApiError, json_path
from .options import JobOptions, refused_combination
from .store import FINAL_STATES, QUEUED, RUNNING, SIMULATION

router = APIRouter(tags=["jobs"])

PROCESS_ID = "simphant-run"
#: The options a Ray sweep (python -m simphant.distributed) takes.
RAY_OPTIONS = {"instances", "dt", "t_end", "seed", "solver"}
#: Result files a job's folder may hold, besides report/ (docs/service.md, "Results").
RESULT_FILES = {"out.h5": "application/x-hdf5", "summary.json": "application/json", "scene.json": "application/json",
                "run.log": "text/plain"}

_SUBMIT_DOC = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {
                "type": "object", "required": ["scene"], "additionalProperties": False,
                "properties": {"scene": {"description": "the scene (docs/scene-format.md): a JSON object, or its text",
                                         "oneOf": [{"type": "object"}, {"type": "string"}]},
                               "options": {"$ref": "#/components/schemas/JobOptions"}}}},
            "multipart/form-data": {"schema": {
                "type": "object", "required": ["scene"],
                "properties": {"scene": {"type": "string", "format": "binary", "description": "the scene file"},
                               "options": {"type": "string", "description": "JobOptions as JSON text"},
                               "bundle": {"type": "string", "format": "binary",
                                          "description": "a zip of the files the scene names (URDF, meshes, designs)"},
                               "files": {"type": "array", "items": {"type": "string", "format": "binary"},
                                         "description": "files the scene names; each file name is its path"}}}},
        },
    }
}


def _iso(t: Optional[float]) -> Optional[str]:
    return None if t is None else datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat()


def status_info(job: Dict[str, Any], with_summary: bool = True) -> Dict[str, Any]:
    """OGC statusInfo of a job, with SimPhant's progress figures: `stage` (running jobs:
    "simulation" or "report", else None), `progress` [%] (the simulation's steps; below
    100 until the job is successful, also while its report is written), `eta_s` (the
    simulation's; None outside the simulation stage)."""
    jid = job["id"]
    running = job["state"] == RUNNING
    stage = (job.get("stage") or SIMULATION) if running else None
    progress = int(math.floor(100 * job["progress"]))
    if running:
        progress = min(progress, 99)
    info = {
        "jobID": jid, "processID": PROCESS_ID, "type": "process", "status": job["state"],
        "message": job["message"], "created": _iso(job["created"]), "started": _iso(job["started"]),
        "finished": _iso(job["finished"]), "updated": _iso(job["updated"]),
        "progress": progress, "stage": stage, "steps_done": job["steps_done"],
        "steps_total": job["steps_total"] or job["options"].get("steps"),
        "eta_s": job["eta_s"] if stage == SIMULATION else None, "attempts": job["attempts"],
        "options": job["options"],
        "links": [{"href": f"/jobs/{jid}", "rel": "self", "type": "application/json"},
                  {"href": f"/jobs/{jid}/events", "rel": "monitor", "type": "text/event-stream"},
                  {"href": f"/jobs/{jid}/results", "rel": "http://www.opengis.net/def/rel/ogc/1.0/results",
                   "type": "application/json"}],
    }
    if with_summary:
        info["summary"] = job["summary"]
    return info


def _job_or_404(request: Request, job_id: str, token: TokenInfo) -> Dict[str, Any]:
    job = request.app.state.store.get(job_id, token.name)
    if job is None:
        raise ApiError(404, f"no job {job_id!r}", "/jobID")
    return job


async def _read_json(request: Request) -> Tuple[Any, Dict[str, Any]]:
    raw = await request.body()
    try:
        doc = json.loads(raw)
    except ValueError as e:
        raise ApiError(400, f"the request body is not JSON: {e}") from None
    except RecursionError:
        raise ApiError(400, "the request body is nested too deeply") from None
    if not isinstance(doc, dict):
        raise ApiError(422, "the request body must be an object {\"scene\": ..., \"options\": {...}}", "/")
    extra = sorted(set(doc) - {"scene", "options"})
    if extra:
        raise ApiError(422, f"/{extra[0]}: unknown key (known: scene, options)", f"/{extra[0]}")
    if "scene" not in doc:
        raise ApiError(422, "/scene: required (the scene as a JSON object or its text)", "/scene")
    options = doc.get("options")
    if options is None:  # absent or null: no options; any other value but an object is refused
        options = {}
    if not isinstance(options, dict):
        raise ApiError(422, f"/options: expected an object (got {type(options).__name__})", "/options")
    return doc["scene"], options


async def _read_multipart(request: Request, folder: str, budget: int) -> Tuple[Any, Dict[str, Any]]:
    try:
        form = await request.form(max_files=10000, max_fields=100)
    except Exception as e:  # noqa: BLE001 - starlette's MultiPartException and parser errors
        from .errors import BodyTooLarge
        if isinstance(e, BodyTooLarge):
            raise
        raise ApiError(400, f"the multipart body cannot be read: {e}") from None
    try:
        allowed = {"scene", "options", "bundle", "files"}
        for key in form.keys():
            if key not in allowed:
                raise ApiError(422, f"/{key}: unknown form field (known: scene, options, bundle, files)", f"/{key}")
        scene = form.get("scene")
        if scene is None:
            raise ApiError(422, "/scene: required (the scene file)", "/scene")
        if isinstance(scene, UploadFile):
            scene = (await scene.read()).decode("utf-8", "replace")
        options: Dict[str, Any] = {}
        if form.get("options") is not None:  # an empty field is refused below, not taken as none
            o = form.get("options")
            text = (await o.read()).decode("utf-8", "replace") if isinstance(o, UploadFile) else o
            try:
                options = json.loads(text)
            except ValueError as e:
                raise ApiError(400, f"/options: not JSON: {e}", "/options") from None
            except RecursionError:
                raise ApiError(400, "/options: nested too deeply", "/options") from None
            if not isinstance(options, dict):
                raise ApiError(422, f"/options: expected an object (got {type(options).__name__})", "/options")
        written = 0
        for part in form.getlist("bundle"):
            if not isinstance(part, UploadFile):
                raise ApiError(422, "/bundle: expected a zip file", "/bundle")
            written += await run_in_threadpool(unpack_zip, folder, part.file, budget - written, budget)
        for part in form.getlist("files"):
            if not isinstance(part, UploadFile) or not part.filename:
                raise ApiError(422, "/files: expected files with names", "/files")
            written += await run_in_threadpool(write_file, folder, part.filename, part.file, budget - written,
                                          budget)
        return scene, options
    finally:
        await form.close()


def _scene_error_path(message: str) -> Optional[str]:
    head = message.split(":", 1)[0].strip()
    return head if head.startswith("/") else None


def _requested_instances(scene: Dict[str, Any], option: Optional[int]) -> Optional[int]:
    """The instance count a request asks for, read from the request alone: the option, the
    sweep's `instances`, a grid's product of list lengths, else 1 (docs/scene-format.md,
    "Sweep"); None where only compiling tells (saltelli, design, a malformed sweep)."""
    if option:
        return option
    sweep = scene.get("sweep")
    if sweep is None:
        return 1
    if not isinstance(sweep, dict) or sweep.get("mode") in ("saltelli", "design"):
        return None
    n = sweep.get("instances")
    if isinstance(n, int) and not isinstance(n, bool):
        return n
    if sweep.get("mode") == "grid":
        params = sweep.get("parameters")
        lengths = [len(p.get("values", [])) for p in params if isinstance(p, dict)] if isinstance(params, list) else []
        return math.prod(lengths) if lengths else None
    return 1


def _solver_number(scene: Dict[str, Any], key: str) -> Optional[float]:
    """solver.<key> of the request's scene when it is a positive number, else None."""
    solver = scene.get("solver")
    v = solver.get(key) if isinstance(solver, dict) else None
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def _check_limits(limits, instances: Optional[int], dt: Optional[float], t_end: Optional[float]) -> int:
    """403 for a job over limits.max_instances or limits.max_steps (instance-steps); the
    steps per instance (0 when dt or t_end is unknown). Unknown values pass: the check
    after compiling has them all."""
    if instances is not None and instances > limits.max_instances:
        raise ApiError(403, f"{instances} instances: over the limit of {limits.max_instances} per job "
                       "(limits.max_instances)", "/options/instances")
    steps = math.ceil(t_end / dt - 1e-9) if dt and t_end else 0
    if instances is not None and instances * steps > limits.max_steps:
        raise ApiError(403, f"{instances} instances x {steps} steps = {instances * steps} instance-steps: over the "
                       f"limit of {limits.max_steps} per job (limits.max_steps)", "/options/t_end")
    return steps


def _too_many_jobs(owner: str, max_active: int) -> ApiError:
    return ApiError(429, f"{owner} has {max_active} unfinished jobs, the limit (max_jobs); wait for one to finish or "
                    "dismiss one", headers={"Retry-After": "10"})


@router.post("/jobs", status_code=201, summary="Submit a job (a scene and run options)", openapi_extra=_SUBMIT_DOC,
             responses={201: {"description": "queued; Location names the job"}, 400: {"description": "malformed"},
                        413: {"description": "upload too large"}, 422: {"description": "invalid scene or options"},
                        403: {"description": "over a limit"}, 429: {"description": "too many unfinished jobs"}})
async def submit_job(request: Request, token: TokenInfo = Depends(current_token)) -> JSONResponse:
    config, store = request.app.state.config, request.app.state.store
    limits = config.limits
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype not in ("application/json", "multipart/form-data"):
        raise ApiError(415, f"Content-Type {ctype or '(none)'!r}: send application/json or multipart/form-data")
    job_id = uuid.uuid4().hex
    folder = os.path.join(config.jobs_dir, job_id)
    try:
        os.makedirs(folder)
    except OSError as e:
        raise ApiError(507, f"the job's folder cannot be made: {e.strerror}") from None
    try:
        try:
            if ctype == "application/json":
                scene, raw_options = await _read_json(request)
            else:
                scene, raw_options = await _read_multipart(request, folder, limits.max_upload_bytes)
        except BundleError as e:
            raise ApiError(e.status, str(e)) from None
        try:
            opts = JobOptions(**raw_options)
        except ValidationError as e:
            errs = e.errors()
            p = json_path(("options", *errs[0]["loc"]))
            msg = errs[0]["msg"].removeprefix("Value error, ")
            raise ApiError(422, f"{p}: {msg}", p) from None
        if config.ray_address:
            extra = sorted(set(opts.model_dump(exclude_none=True)) - RAY_OPTIONS - {"backend", "precision"})
            if extra:
                raise ApiError(422, f"/options/{extra[0]}: not available for jobs run as Ray sweeps (ray_address); "
                               f"those take {', '.join(sorted(RAY_OPTIONS | {'backend', 'precision'}))}",
                               f"/options/{extra[0]}")
        if isinstance(scene, str):
            text = scene
            try:
                scene = json.loads(text)
            except ValueError as e:
                raise ApiError(422, f"/scene: not JSON: {e}", "/scene") from None
            except RecursionError:
                raise ApiError(422, "/scene: nested too deeply", "/scene") from None
        else:
            text = json.dumps(scene, indent=1)
        if not isinstance(scene, dict):
            raise ApiError(422, "/scene: expected a JSON object (docs/scene-format.md)", "/scene")
        refused = refused_combination(opts, scene)
        if refused is not None:
            raise ApiError(422, f"{refused[0]}: {refused[1]}", refused[0])
        # The size limits first, from the request as written: no scene is compiled or
        # sweep sampled for a job that is over them (the check after compiling stays).
        _check_limits(limits, _requested_instances(scene, opts.instances), opts.dt or _solver_number(scene, "dt"),
                      opts.t_end or _solver_number(scene, "t_end"))
        max_active = token.max_jobs or limits.max_jobs_per_token

        def below_max_jobs() -> None:  # now, before the check, and when queued
            if store.active_count(token.name) >= max_active:
                raise _too_many_jobs(token.name, max_active)

        below_max_jobs()
        try:
            check_scene_refs(scene, folder)
        except BundleError as e:
            raise ApiError(400, str(e), _scene_error_path(str(e))) from None
        scene_path = os.path.join(folder, "scene.json")
        with open(scene_path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            report = await request.app.state.validations.check(token.name, scene_path, below_max_jobs)
        except ValueError as e:
            msg = str(e).replace(folder + os.sep, "")
            raise ApiError(422, f"scene: {msg}", _scene_error_path(msg)) from None
        instances = opts.instances or report["instances"]
        dt, t_end = opts.dt or report["dt"], opts.t_end or report["t_end"]
        steps = _check_limits(limits, instances, dt, t_end)
        options = opts.model_dump(exclude_none=True)
        options.update(scene_name=report["name"], instances_total=instances, steps=steps)
        if not store.insert_if_below(job_id, token.name, options, max_active):
            raise _too_many_jobs(token.name, max_active)
    except OSError as e:  # a full disk, a quota: the request is fine, the service cannot keep it
        shutil.rmtree(folder, ignore_errors=True)
        raise ApiError(507, f"the job's files cannot be written: {e.strerror or type(e).__name__}") from None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    request.app.state.pool.notify()
    return JSONResponse(status_info(store.get(job_id)), status_code=201, headers={"Location": f"/jobs/{job_id}"})


JobState = Literal["queued", "running", "successful", "failed", "dismissed"]


@router.get("/jobs", summary="The caller's jobs, newest first")
def list_jobs(request: Request, token: TokenInfo = Depends(current_token),
              status: Optional[List[JobState]] = Query(None, description="only jobs in these states"),
              limit: int = Query(1000, ge=1, le=10000, description="at most this many")) -> Dict[str, Any]:
    jobs = request.app.state.store.list(token.name, limit, status)
    return {"jobs": [status_info(j, with_summary=False) for j in jobs],
            "links": [{"href": "/jobs", "rel": "self", "type": "application/json"}]}


@router.get("/jobs/{job_id}", summary="A job's state, progress, ETA and summary")
def get_job(job_id: str, request: Request, token: TokenInfo = Depends(current_token)) -> Dict[str, Any]:
    return status_info(_job_or_404(request, job_id, token))


@router.get("/jobs/{job_id}/events", summary="Server-sent events: the job's statusInfo at each change, "
            "until a final state", response_class=StreamingResponse)
async def job_events(job_id: str, request: Request, token: TokenInfo = Depends(current_token)) -> StreamingResponse:
    store = request.app.state.store
    _job_or_404(request, job_id, token)

    async def events():
        last = None
        idle = 0.0
        while True:
            job = await run_in_threadpool(store.get, job_id, token.name)
            if job is None:
                yield "event: deleted\ndata: {}\n\n"
                return
            key = (job["state"], job.get("stage"), job["steps_done"], job["message"], job["attempts"])
            if key != last:
                last, idle = key, 0.0
                yield f"event: status\ndata: {json.dumps(status_info(job))}\n\n"
                if job["state"] in FINAL_STATES:
                    return
            elif idle >= 15.0:
                idle = 0.0
                yield ": keep-alive\n\n"
            if await request.is_disconnected():
                return
            await asyncio.sleep(0.25)
            idle += 0.25

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _result_files(folder: str) -> List[str]:
    names = [n for n in RESULT_FILES if os.path.isfile(os.path.join(folder, n))]
    report = os.path.join(folder, "report")
    for dirpath, dirnames, filenames in os.walk(report):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for fn in sorted(filenames):
            if not fn.startswith("."):
                names.append(os.path.relpath(os.path.join(dirpath, fn), folder).replace(os.sep, "/"))
    return names


@router.get("/jobs/{job_id}/results", summary="Links to the job's result files")
def job_results(job_id: str, request: Request, token: TokenInfo = Depends(current_token)) -> Dict[str, Any]:
    job = _job_or_404(request, job_id, token)
    folder = request.app.state.pool.job_dir(job_id)
    if job["state"] == QUEUED:
        raise ApiError(404, f"job {job_id}: no results yet (queued)")
    links = []
    for name in _result_files(folder):
        links.append({"href": f"/jobs/{job_id}/results/{name}", "rel": "item", "title": name,
                      "type": RESULT_FILES.get(name, _media_type(name)),
                      "length": os.path.getsize(os.path.join(folder, name))})
    return {"status": job["state"], "links": links}


def _media_type(name: str) -> str:
    ext = os.path.splitext(name)[1].lower()
    return {".html": "text/html", ".png": "image/png", ".svg": "image/svg+xml", ".json": "application/json",
            ".csv": "text/csv", ".css": "text/css", ".js": "text/javascript"}.get(ext, "application/octet-stream")


@router.get("/jobs/{job_id}/results/{name:path}", summary="One result file (out.h5, summary.json, report/...)")
def job_result(job_id: str, name: str, request: Request, token: TokenInfo = Depends(current_token)) -> FileResponse:
    _job_or_404(request, job_id, token)
    folder = request.app.state.pool.job_dir(job_id)
    if name not in _result_files(folder):
        raise ApiError(404, f"job {job_id}: no result {name!r}")
    return FileResponse(os.path.join(folder, name), media_type=RESULT_FILES.get(name, _media_type(name)),
                        filename=os.path.basename(name) if name.endswith(".h5") else None)


@router.delete("/jobs/{job_id}", summary="Dismiss a job: a queued one is dropped, a running one stops at its next "
               "slice keeping its output; a finished one is deleted with its files")
async def dismiss_job(job_id: str, request: Request, token: TokenInfo = Depends(current_token)) -> Dict[str, Any]:
    store, pool = request.app.state.store, request.app.state.pool
    job = _job_or_404(request, job_id, token)
    if job["state"] in FINAL_STATES:
        store.delete(job_id)
        await run_in_threadpool(shutil.rmtree, pool.job_dir(job_id), True)
        info = status_info(job, with_summary=False)
        info.update(status="dismissed", message="deleted with its results")
        return info
    if not store.dismiss_if_queued(job_id):
        pool.cancel(job_id)
        for _ in range(200):  # the run stops at its next slice (about 50 ms) and stores its state
            job = await run_in_threadpool(store.get, job_id)
            if job is None or job["state"] in FINAL_STATES:
                break
            await asyncio.sleep(0.05)
    return status_info(store.get(job_id) or job)
