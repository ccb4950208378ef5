"""``/sources`` (list, get); a namespace-limited token sees the sources of the datasets it may read."""

from __future__ import annotations

from plumbline.server.api.factories import add_list_route
from plumbline.server.api.models import Source, SourceList
from plumbline.server.api.routing import ReadAccess, Reader, make_router
from plumbline.store.read import namespaces, records

router = make_router("Sources")


add_list_route(
    router,
    "/sources",
    name="list_sources",
    summary="List sources",
    response_model=SourceList,
    read=namespaces.list_sources,
)


@router.get("/sources/{source}", response_model=Source, summary="Get a source")
def get_source(*, source: str, conn: Reader, principal: ReadAccess) -> records.Source:
    return namespaces.get_source(conn, source, principal.namespaces)
