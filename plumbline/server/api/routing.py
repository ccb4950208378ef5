"""What every read-API module shares: the route class, database connections, paging parameters.

Names in paths (datasets named by file paths, namespaces such as ``s3://bucket``) contain ``/``; clients
send them percent-encoded (``%2F``), as Marquez's clients do. :class:`ReadRoute` matches on the raw,
still-encoded path and decodes each parameter, so an encoded ``/`` stays inside its segment.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Coroutine, Iterable, Iterator
from datetime import datetime
from typing import Annotated, Any
from urllib.parse import unquote

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.routing import APIRoute
from pydantic import BeforeValidator, StringConstraints
from sqlalchemy.engine import Connection
from starlette.routing import Match
from starlette.types import Scope

from plumbline.openlineage.limits import MAX_NAMESPACE
from plumbline.server.auth import Principal, require
from plumbline.server.errors import APIError
from plumbline.store import InvalidArgumentError, NotFoundError, Store

PREFIX = "/api/v1"


class ReadRoute(APIRoute):
    """An API route that matches encoded path segments and answers store errors as 404/400."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        raw = scope.get("raw_path")
        if scope["type"] != "http" or not raw or b"%" not in raw:
            return super().matches(scope)
        encoded = raw.split(b"?", 1)[0].decode("latin-1")
        match, child = super().matches({**scope, "path": encoded, "root_path": ""})
        if match != Match.NONE:
            params = child.get("path_params", {})
            child["path_params"] = {
                key: unquote(value) if isinstance(value, str) else value
                for key, value in params.items()
            }
        return match, child

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def route(request: Request) -> Response:
            try:
                return await handler(request)
            except NotFoundError as exc:
                raise APIError(404, str(exc)) from exc
            except InvalidArgumentError as exc:
                raise APIError(400, str(exc)) from exc

        return route


def make_router(tag: str) -> APIRouter:
    """A router for one resource of the read API under ``/api/v1``."""
    return APIRouter(prefix=PREFIX, tags=[tag], route_class=ReadRoute)


def read_connection(request: Request) -> Iterator[Connection]:
    """A connection for one request's reads (:meth:`Store.reading`)."""
    with request.app.state.store.reading() as conn:
        yield conn


def request_store(request: Request) -> Store:
    """The store; write routes commit their own unit of work (``with store.writing()``) before
    answering, so the next request sees the change."""
    return request.app.state.store  # type: ignore[no-any-return]


def max_graph_nodes(request: Request) -> int:
    """The server's cap on graph results (``ServerSettings.max_graph_nodes``)."""
    return int(request.app.state.settings.max_graph_nodes)


def max_analysis_rows(request: Request) -> int:
    """The rows one analysis read may read (``ServerSettings.max_analysis_rows``)."""
    return int(request.app.state.settings.max_analysis_rows)


# an analysis route's work budget: run the analysis in ``work_budget(rows)``, answer ``mark``ed
WorkRows = Annotated[int, Depends(max_analysis_rows)]


Reader = Annotated[Connection, Depends(read_connection)]
TheStore = Annotated[Store, Depends(request_store)]
MAX_OFFSET = 2**31 - 1  # Marquez's offsets are Java ints; the stores' BIGINT would take 2**63 - 1
Limit = Annotated[int, Query(ge=0, le=100_000, description="Page size")]
Offset = Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Rows to skip")]

# A request line over ~64 KiB is refused by the HTTP layer (a plain-text 400): list parameters are
# bounded so that whatever the document calls valid fits, percent-encoded (12 bytes a character
# at worst)
MAX_NAMESPACES = 4
Namespace = Annotated[str, StringConstraints(max_length=MAX_NAMESPACE)]

# RFC 3339 date-times (``format: date-time``): not the bare numbers or dates pydantic also takes
_DATE_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?", re.ASCII
)


def _date_time_text(value: Any) -> Any:
    if isinstance(value, str) and not _DATE_TIME.fullmatch(value):
        raise ValueError("expected an RFC 3339 date-time, e.g. 2024-05-01T12:00:00Z")
    return value


Timestamp = Annotated[datetime, BeforeValidator(_date_time_text)]
"""A query parameter's date-time: what ``format: date-time`` says, and nothing else."""

# NS:NAME, the name not empty (no ":" last), optionally #VERSION (after the last "#"); no NUL
_ANY, _NO_HASH = r"[^\u0000]", r"[^#\u0000]"
_NAME = rf"(?:{_NO_HASH}+:{_NO_HASH}*[^#:\u0000]|{_ANY}+:{_ANY}*[^:\u0000]#{_NO_HASH}*)"
_FIELD = (
    rf"(?:{_NO_HASH}+:{_NO_HASH}+:{_NO_HASH}*[^#:\u0000]"
    rf"|{_ANY}+:{_ANY}+:{_ANY}*[^:\u0000]#{_NO_HASH}*)"
)
_NODE_ID_REST = {"dataset": _NAME, "job": _NAME, "datasetField": _FIELD}


def comma_list_pattern(values: Iterable[str], *, spaces: bool = False) -> str:
    """The ``pattern`` of a comma-separated list of ``values`` (empty items allowed; with
    ``spaces``, blanks around each item)."""
    blank = " *" if spaces else ""
    item = f"{blank}(?:{'|'.join(re.escape(value) for value in values)})?{blank}"
    return f"^{item}(?:,{item})*$"


def node_id_pattern(*kinds: str) -> str:
    """The ``pattern`` of a ``nodeId`` of these kinds (``dataset:NS:NAME``, ``job:NS:NAME``,
    ``datasetField:NS:NAME:FIELD``, each optionally ``#VERSION``)."""
    return "^(?:" + "|".join(f"{kind}:{_NODE_ID_REST[kind]}" for kind in kinds) + ")$"


# the access each route needs (``principal.check_namespace`` is called where a namespace is known)
ReadAccess = Annotated[Principal, Depends(require("read"))]
WriteAccess = Annotated[Principal, Depends(require("write"))]
AdminAccess = Annotated[Principal, Depends(require("admin"))]
