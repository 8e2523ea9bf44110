"""create_app(config): the FastAPI application of the service (docs/service.md)."""
from __future__ import annotations

import contextlib
import os

from fastapi import FastAPI

from .config import ServeConfig


def create_app(config: ServeConfig) -> FastAPI:
    """The service's application: the job API and the web pages over the queue in
    config.database_path; workers start with the application and stop with it."""
    os.makedirs(config.jobs_dir, exist_ok=True)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        yield

    app = FastAPI(title="SimPhant simulation service", lifespan=lifespan)
    app.state.config = config
    from .web import router as web_router
    app.include_router(web_router)
    return app
