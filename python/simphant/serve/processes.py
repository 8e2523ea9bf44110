"""The OGC API - Processes description routes: /conformance, /processes and the one
process, `simphant-run` (a `simphant run` job), whose execution is POST /jobs (also
reachable as POST /processes/simphant-run/execution)."""
from __future__ import annotations

from typing import Any, Dict

from fastapi import APIRouter, Depends, Request

from .api import PROCESS_ID, submit_job
from .auth import current_token
from .config import TokenInfo
from .errors import ApiError
from .options import JobOptions

router = APIRouter(tags=["processes"])

CONFORMANCE = [
    "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/json",
    "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/job-list",
    "http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/dismiss",
]


def _summary() -> Dict[str, Any]:
    return {"id": PROCESS_ID, "title": "simphant run", "version": "1",
            "description": "Samples the scene's sweep, assembles and integrates every instance, records the HDF5 "
                           "file (README \"Command line\")",
            "jobControlOptions": ["async-execute", "dismiss"], "outputTransmission": ["reference"],
            "links": [{"href": f"/processes/{PROCESS_ID}", "rel": "self", "type": "application/json"},
                      {"href": f"/processes/{PROCESS_ID}/execution", "type": "application/json",
                       "rel": "http://www.opengis.net/def/rel/ogc/1.0/execute"}]}


@router.get("/conformance", summary="The OGC API - Processes conformance classes this service follows")
def conformance() -> Dict[str, Any]:
    return {"conformsTo": CONFORMANCE}


@router.get("/processes", summary="The processes this service runs")
def processes(token: TokenInfo = Depends(current_token)) -> Dict[str, Any]:
    return {"processes": [_summary()], "links": [{"href": "/processes", "rel": "self", "type": "application/json"}]}


@router.get("/processes/{process_id}", summary="A process: its inputs and outputs")
def process(process_id: str, token: TokenInfo = Depends(current_token)) -> Dict[str, Any]:
    if process_id != PROCESS_ID:
        raise ApiError(404, f"no process {process_id!r} (this service runs {PROCESS_ID!r})")
    d = _summary()
    d["inputs"] = {
        "scene": {"title": "scene", "description": "the scene (docs/scene-format.md): a JSON object or its text",
                  "schema": {"oneOf": [{"type": "object"}, {"type": "string"}]}},
        "options": {"title": "run options", "schema": JobOptions.model_json_schema(), "minOccurs": 0},
    }
    d["outputs"] = {name: {"title": name, "schema": {"type": "string", "contentMediaType": media}}
                    for name, media in (("out.h5", "application/x-hdf5"), ("summary.json", "application/json"),
                                        ("report/report.html", "text/html"))}
    return d


@router.post("/processes/{process_id}/execution", status_code=201, include_in_schema=True,
             summary="Execute the process: the same as POST /jobs")
async def execute(process_id: str, request: Request, token: TokenInfo = Depends(current_token)):
    if process_id != PROCESS_ID:
        raise ApiError(404, f"no process {process_id!r} (this service runs {PROCESS_ID!r})")
    return await submit_job(request, token)
