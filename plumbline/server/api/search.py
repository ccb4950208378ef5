"""``/search``: datasets and jobs by name."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Annotated, Literal

from fastapi import Query

from plumbline.server.api.models import SearchResultList
from plumbline.server.api.routing import ReadAccess, Reader, make_router
from plumbline.store.read import records
from plumbline.store.read import search as search_query

router = make_router("Search")


def _day(value: date | None) -> datetime | None:
    return None if value is None else datetime.combine(value, time.min)


@router.get(
    "/search",
    response_model=SearchResultList,
    summary="Search datasets and jobs whose name contains `q` (case-insensitive)",
)
def search(
    *,
    conn: Reader,
    q: Annotated[str, Query(min_length=1, description="Text the name contains")],
    filter: Literal["DATASET", "JOB", "dataset", "job"] | None = None,  # noqa: A002
    sort: Literal["NAME", "UPDATE_AT", "name", "update_at"] = "NAME",
    limit: Annotated[int, Query(ge=0, le=10_000)] = 10,
    namespace: Annotated[str | None, Query(max_length=1024)] = None,
    before: Annotated[date | None, Query(description="Updated before YYYY-MM-DD")] = None,
    after: Annotated[date | None, Query(description="Updated after YYYY-MM-DD")] = None,
    principal: ReadAccess,
) -> records.SearchPage:
    return search_query.search(
        conn,
        q,
        filter=filter.upper() if filter else None,
        sort=sort.upper(),
        limit=limit,
        namespace=namespace,
        before=_day(before),
        after=_day(after),
        visible_to=principal.namespaces,
    )
