"""``/sources`` (list, get); a namespace-limited token sees the sources of the datasets it may read."""

from __future__ import annotations

from plumbline.server.api.models import Source, SourceList
from plumbline.server.api.routing import Limit, Offset, ReadAccess, Reader, make_router
from plumbline.store.read import namespaces

router = make_router("Sources")


@router.get("/sources", response_model=SourceList, summary="List sources")
def list_sources(
    *,
    conn: Reader,
    limit: Limit = 100,
    offset: Offset = 0,
    principal: ReadAccess,
) -> dict:
    return namespaces.list_sources(conn, limit, offset, principal.namespaces)


@router.get("/sources/{source}", response_model=Source, summary="Get a source")
def get_source(*, source: str, conn: Reader, principal: ReadAccess) -> dict:
    return namespaces.get_source(conn, source, principal.namespaces)
