"""Error responses of the service: every refusal is JSON {title, status, detail[, path]}
(RFC 9457 problem details; `path` is the JSON path of the offending value, e.g.
"/bodies/1/mass" for the scene's, "/options/instances" for a run option)."""
from __future__ import annotations

import http
import logging
import os
import re
import site
import sys
from typing import Any, Dict, List, Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("simphant.serve")


class ApiError(Exception):
    """A refusal with its HTTP status, a message naming the field and, where there is
    one, the JSON path of the offending value."""

    def __init__(self, status: int, detail: str, path: Optional[str] = None,
                 headers: Optional[Dict[str, str]] = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.path, self.headers = status, detail, path, headers


def _python_paths() -> List[str]:
    """The folders of this Python installation (prefixes, site-packages)."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages(), site.getusersitepackages()}
    return [p for p in paths if p and os.path.isabs(p)]


#: Folders of the server that no message may show (longest first): the Python
#: installation's, and the service's data folder once install() has run.
_PRIVATE: List[str] = sorted(_python_paths(), key=len, reverse=True)


def public(detail: Any) -> Any:
    """`detail` with every private folder of the server replaced by "<server>" (a message
    of the scene compiler can name where it looked, e.g. example-robot-data's folder)."""
    if not isinstance(detail, str):
        return detail
    for p in _PRIVATE:  # whole path components only: "/usr" is not a prefix of "/users"
        detail = re.sub(re.escape(p) + r"(?=[/\s'\"(),:;]|$)", "<server>", detail)
    return detail


def problem(status: int, detail: Any, path: Optional[str] = None, headers: Optional[Dict[str, str]] = None,
            **extra: Any) -> JSONResponse:
    body = {"title": http.HTTPStatus(status).phrase, "status": status, "detail": public(detail)}
    if path is not None:
        body["path"] = path
    body.update(extra)
    return JSONResponse(body, status_code=status, headers=headers, media_type="application/problem+json")


def json_path(loc) -> str:
    """A pydantic error location as a JSON pointer ("/options/instances")."""
    return "/" + "/".join(str(p) for p in loc if p not in ("body",))


def install(app: FastAPI) -> None:
    data_dir = os.path.abspath(app.state.config.data_dir)
    if data_dir not in _PRIVATE:
        _PRIVATE.append(data_dir)
        _PRIVATE.sort(key=len, reverse=True)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, e: ApiError):
        return problem(e.status, e.detail, e.path, e.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, e: StarletteHTTPException):
        detail = e.detail
        if e.status_code == 404 and detail == "Not Found":
            detail = f"no route {request.method} {request.url.path}"
        return problem(e.status_code, detail, headers=getattr(e, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, e: RequestValidationError):
        errs = e.errors()
        first = errs[0] if errs else {"loc": (), "msg": "invalid request"}
        p = json_path(first.get("loc", ()))
        return problem(422, f"{p}: {first.get('msg')}", p,
                       errors=[{"path": json_path(x.get("loc", ())), "message": x.get("msg")} for x in errs])

    @app.exception_handler(BodyTooLarge)
    async def _too_large(request: Request, e: Exception):
        limit = request.app.state.config.limits.max_upload_bytes
        return problem(413, f"the request body exceeds the upload limit of {limit} bytes (limits.max_upload_bytes)",
                       headers={"Connection": "close"})

    @app.exception_handler(Exception)
    async def _internal(request: Request, e: Exception):
        log.exception("%s %s", request.method, request.url.path)
        return problem(500, f"internal error: {type(e).__name__}")


class BodyTooLarge(Exception):
    """The request body passed the upload limit."""


class BodyLimit:
    """ASGI middleware bounding request bodies to `limit` bytes: a Content-Length above it
    is refused with 413 before any byte is read; a body that passes it while streaming
    (chunked) raises BodyTooLarge in the reader, answered with 413. Nothing larger than
    one chunk of the transport is held in memory on its account."""

    def __init__(self, app, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "DELETE", "OPTIONS"):
            return await self.app(scope, receive, send)
        for k, v in scope.get("headers", []):
            if k == b"content-length":
                try:
                    n = int(v)
                except ValueError:
                    n = -1
                if n < 0 or n > self.limit:
                    resp = problem(413 if n > self.limit else 400,
                                   f"the request body ({n} bytes) exceeds the upload limit of {self.limit} bytes "
                                   "(limits.max_upload_bytes)" if n > self.limit else "bad Content-Length",
                                   headers={"Connection": "close"})
                    return await resp(scope, receive, send)
        seen = 0
        started = False

        async def counting_receive():
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge()
            return msg

        async def tracking_send(msg):
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if started:
                raise
            resp = problem(413, f"the request body exceeds the upload limit of {self.limit} bytes "
                           "(limits.max_upload_bytes)", headers={"Connection": "close"})
            await resp(scope, receive, send)
