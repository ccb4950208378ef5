"""The FastAPI application: wiring of store, routes, auth, background workers and the UI."""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from plumbline import __version__
from plumbline.server import (
    access_log,
    alert_checks,
    forwarding,
    health,
    ingest,
    malloc,
    metrics,
)
from plumbline.server.access_log import AccessLog
from plumbline.server.api import routers as read_api_routers
from plumbline.server.body_limit import BodyLimit
from plumbline.server.catalog import routes as catalog_routes
from plumbline.server.errors import ServerErrors, install_error_handlers
from plumbline.server.fresh_reads import FreshReads
from plumbline.server.ingest_budget import IngestBudget, client_share
from plumbline.server.meta_auth import MetaAuth
from plumbline.server.nul_guard import NulGuard
from plumbline.server.openapi import install_openapi
from plumbline.server.read_budget import analysis_budget
from plumbline.server.request_guard import RequestGuard
from plumbline.server.security_headers import SecurityHeaders
from plumbline.server.settings import ServerSettings
from plumbline.store import Store, upgrade
from plumbline.store.write import classify, writer_for
from plumbline.store.write.classification_rules import use_rules

logger = logging.getLogger(__name__)


def create_app(settings: ServerSettings) -> FastAPI:
    """Build the server for ``settings``: opens the store and migrates it to the newest schema."""
    store = Store.open(settings.db_url)
    use_rules(store.engine, settings.classifications)  # the writer's and the routes' propagation
    writer = writer_for(store.engine, settings.writer_threads) if settings.store else None
    upgrade(store.engine)
    if settings.store:
        store.write(classify.recompute_if_empty)  # a store from before classifications
    if writer is not None:
        alert_checks.install(writer, settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if writer is not None:
            writer.normalizer.start()  # events an earlier process left pending
        async with (
            forwarding.background_worker(app),
            alert_checks.background_checks(writer, settings),
        ):
            yield
        store.dispose()

    app = FastAPI(
        title="plumbline",
        version=__version__,
        description="OpenLineage-compatible lineage server with a Marquez-compatible read API.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.store = store
    app.state.ingest_budget = IngestBudget(
        settings.ingest_memory_bytes,
        share=client_share(settings.ingest_memory_bytes, settings.max_body_bytes),
    )
    app.state.analysis_budget = analysis_budget()
    malloc.limit_arenas()  # before the request threads start
    install_error_handlers(app)
    install_openapi(app)
    if writer is not None:
        app.add_middleware(FreshReads, store=store, writer=writer)
    if settings.auth_meta and settings.auth == "required":
        app.add_middleware(MetaAuth)
    app.add_middleware(RequestGuard, bind_host=settings.host, allowed_hosts=settings.allowed_hosts)
    app.add_middleware(BodyLimit)  # every body but ingestion's, before a route reads it
    app.add_middleware(NulGuard)  # before any route or store query sees the text
    app.add_middleware(ServerErrors)  # a 500 in the common shape, inside the headers and the log
    app.add_middleware(SecurityHeaders)  # on every answer, refusals included
    if settings.access_log:
        access_log.ensure_output()
        app.add_middleware(AccessLog)  # last added, outermost: it times the whole request
    app.include_router(health.router)
    app.include_router(ingest.router)
    for router in read_api_routers:
        app.include_router(router)
    app.include_router(forwarding.router)
    app.include_router(catalog_routes.router)
    app.include_router(metrics.router)
    if importlib.util.find_spec("plumbline.web.routes") is not None:
        from plumbline.web.routes import mount_ui

        mount_ui(app)  # last: its fallback route must not shadow the API
    return app
