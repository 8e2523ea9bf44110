"""create_app(config): the FastAPI application of the service (docs/service.md)."""
from __future__ import annotations

import contextlib
import os

from fastapi import FastAPI
from fastapi.responses import RedirectResponse

from . import errors
from .config import ServeConfig
from .runner import WorkerPool
from .store import JobStore
from .validation import Validations


def create_app(config: ServeConfig) -> FastAPI:
    """The service's application: the job API (api.py) and the web pages (web.py) over the
    queue in config.database_path. The database is opened (and its lock taken) here; the
    workers start with the application, after jobs left running by a previous service
    are queued to resume, and stop with it, leaving their running jobs to resume at the
    next start.

    Raises ValueError when the simphant executable is not found, store.DatabaseBusy when
    another service holds the database, OSError when the data folder cannot be made.
    """
    os.makedirs(config.jobs_dir, exist_ok=True)
    store = JobStore(config.database_path)
    try:
        pool = WorkerPool(config, store)
    except BaseException:
        store.close()
        raise

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        pool.start()
        try:
            yield
        finally:
            pool.stop()
            store.close()

    app = FastAPI(title="SimPhant simulation service", version=_version(), lifespan=lifespan,
                  description="Jobs of `simphant run` over a persistent queue (OGC API - Processes shapes); "
                              "docs/service.md")
    app.state.config, app.state.store, app.state.pool = config, store, pool
    app.state.validations = Validations(pool.cli, config.validation)
    errors.install(app)
    app.add_middleware(errors.BodyLimit, limit=config.limits.max_upload_bytes)
    from .api import router as api_router
    app.include_router(api_router)
    from .processes import router as processes_router
    app.include_router(processes_router)
    from .web import router as web_router
    app.include_router(web_router)
    _document_job_options(app)
    if not any(getattr(r, "path", None) == "/" for r in app.routes):
        @app.get("/", include_in_schema=False)
        def _root():
            return RedirectResponse("/docs")
    return app


def _document_job_options(app: FastAPI) -> None:
    """/openapi.json with the JobOptions schema POST /jobs refers to (the route reads its
    body itself, to bound it and to accept multipart uploads)."""
    from .options import JobOptions

    def openapi():
        if app.openapi_schema is None:
            from fastapi.openapi.utils import get_openapi
            doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            schema = JobOptions.model_json_schema(ref_template="#/components/schemas/{model}")
            doc.setdefault("components", {}).setdefault("schemas", {})["JobOptions"] = schema
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi


def _version() -> str:
    try:
        from .. import __version__
        return str(__version__)
    except ImportError:
        return "0"
