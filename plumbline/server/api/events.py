"""``/events/lineage``: the raw OpenLineage events received."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import Query

from plumbline.server.api.models import LineageEventList
from plumbline.server.api.routing import Limit, Offset, ReadAccess, Reader, make_router
from plumbline.store.read import events, records

router = make_router("Events")


@router.get(
    "/events/lineage",
    response_model=LineageEventList,
    summary="List received OpenLineage events by event time",
)
def list_lineage_events(
    *,
    conn: Reader,
    before: Annotated[
        datetime | None, Query(description="Only events at or before this time")
    ] = None,
    after: Annotated[
        datetime | None, Query(description="Only events at or after this time")
    ] = None,
    sortDirection: Literal["asc", "desc"] = "desc",
    limit: Limit = 100,
    offset: Offset = 0,
    principal: ReadAccess,
) -> records.EventPage:
    return events.list_lineage_events(
        conn,
        before=before,
        after=after,
        sort_direction=sortDirection,
        limit=limit,
        offset=offset,
        visible_to=principal.namespaces,
    )
