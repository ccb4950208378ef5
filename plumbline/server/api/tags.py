"""``/tags``: list and create tags."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body

from plumbline.server.api.models import CreatedTag, TagList
from plumbline.server.api.routing import (
    Limit,
    Offset,
    ReadAccess,
    Reader,
    StoreEngine,
    WriteAccess,
    make_router,
)
from plumbline.store.read import tags
from plumbline.store.write import tagging

router = make_router("Tags")


@router.get("/tags", response_model=TagList, summary="List tags")
def list_tags(
    *,
    conn: Reader,
    limit: Limit = 100,
    offset: Offset = 0,
    principal: ReadAccess,
) -> dict:
    return tags.list_tags(conn, limit, offset)


@router.put("/tags/{tag}", response_model=TagList, summary="Create a tag or set its description")
def put_tag(
    *,
    tag: str,
    engine: StoreEngine,
    body: Annotated[CreatedTag | None, Body()] = None,
    principal: WriteAccess,
) -> dict:
    with engine.begin() as conn:
        tagging.put_tag(conn, tag, body.description if body else None)
        return tags.list_tags(conn, 100_000, 0)
