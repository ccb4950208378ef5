"""Serve the single-page web UI: static assets plus an index fallback for deep links."""

from __future__ import annotations

import logging
from pathlib import Path

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Match, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).parent / "static"
ASSETS_PREFIX = "/ui-assets"

# First path segments that the UI's client-side router owns (the pages of app.js's `routes`
# table: tests/web/test_route_tables.py holds the two together). Anything else (``/api``,
# ``/metrics``, ``/openapi.json``, ``/docs``, ...) is never answered by the fallback.
UI_ROUTES = frozenset(
    {"", "datasets", "jobs", "runs", "lineage", "impact", "events", "alerts", "coverage"}
)


class _SpaRoute(Route):
    """A catch-all route that only claims paths whose first segment is a UI route.

    Filtering in ``matches`` (not in the endpoint) keeps the route from shadowing API routes
    even when it is registered before them.
    """

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope.get("type") == "http":
            first = scope.get("path", "/").lstrip("/").split("/", 1)[0]
            if first not in UI_ROUTES:
                return Match.NONE, {}
        return super().matches(scope)


def _index_response() -> Response:
    # no-cache: the index names the assets, and a stale index would pin old assets.
    return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})


async def _spa_index(request: Request) -> Response:
    return _index_response()


def mount_ui(app: FastAPI) -> None:
    """Serve the UI at ``/`` on ``app``: assets under ``/ui-assets`` and ``index.html`` for
    every UI deep link (a path whose first segment is in ``UI_ROUTES``).
    """
    app.mount(ASSETS_PREFIX, StaticFiles(directory=STATIC_DIR), name="ui-assets")
    app.router.routes.append(
        _SpaRoute("/{path:path}", _spa_index, methods=["GET", "HEAD"], name="ui-index")
    )
    log.debug("web UI mounted from %s", STATIC_DIR)
