"""The raw OpenLineage events received: ``/events/lineage`` (Marquez's), and ``/events`` and
``/events/{namespace}`` (what marquez-python's ``list_events`` calls)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Literal

from fastapi import Depends, Path, Query

from plumbline.server.api.models import LineageEventList
from plumbline.server.api.routing import Limit, Offset, ReadAccess, Reader, Timestamp, make_router
from plumbline.store.read import events, records

router = make_router("Events")


@dataclass(frozen=True)
class _Page:
    before: datetime | None
    after: datetime | None
    sort_direction: str
    limit: int
    offset: int


def _page(
    before: Annotated[
        Timestamp | None, Query(description="Only events at or before this time")
    ] = None,
    after: Annotated[
        Timestamp | None, Query(description="Only events at or after this time")
    ] = None,
    sortDirection: Literal["asc", "desc"] = "desc",
    limit: Limit = 100,
    offset: Offset = 0,
) -> _Page:
    return _Page(before, after, sortDirection, limit, offset)


Page = Annotated[_Page, Depends(_page)]


def _list(
    conn: Reader, page: _Page, principal: ReadAccess, namespace: str | None = None
) -> records.EventPage:
    return events.list_lineage_events(
        conn,
        before=page.before,
        after=page.after,
        sort_direction=page.sort_direction,
        limit=page.limit,
        offset=page.offset,
        namespace=namespace,
        visible_to=principal.namespaces,
    )


@router.get(
    "/events/lineage",
    response_model=LineageEventList,
    summary="List received OpenLineage events by event time",
)
def list_lineage_events(*, conn: Reader, page: Page, principal: ReadAccess) -> records.EventPage:
    return _list(conn, page, principal)


@router.get(
    "/events",
    response_model=LineageEventList,
    summary="List received OpenLineage events (marquez-python's list_events)",
    description="The same as `/events/lineage`, at the path marquez-python's `list_events` calls.",
)
def list_events(*, conn: Reader, page: Page, principal: ReadAccess) -> records.EventPage:
    return _list(conn, page, principal)


@router.get(
    "/events/{namespace}",
    response_model=LineageEventList,
    summary="List the received OpenLineage events of one namespace",
    description="The events whose job (for a DatasetEvent, whose dataset) is in `namespace`, as "
    "marquez-python's `list_events(namespace)` asks; an unknown namespace has none. A namespace "
    "named `lineage` is read here as `/events/lineage`, all namespaces.",
)
def list_namespace_events(
    *,
    conn: Reader,
    namespace: Annotated[str, Path(description="Only the events of this namespace")],
    page: Page,
    principal: ReadAccess,
) -> records.EventPage:
    return _list(conn, page, principal, namespace)
