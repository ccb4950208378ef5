"""``/tags``: list and create tags."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body

from plumbline.server.api.factories import add_list_route
from plumbline.server.api.models import CreatedTag, TagList
from plumbline.server.api.routing import TheStore, WriteAccess, make_router
from plumbline.store.read import records, tags
from plumbline.store.write import tagging

router = make_router("Tags")


# tags belong to no namespace: every reader sees them all
add_list_route(
    router,
    "/tags",
    name="list_tags",
    summary="List tags",
    response_model=TagList,
    read=lambda conn, limit, offset, _visible_to: tags.list_tags(conn, limit, offset),
)


@router.put("/tags/{tag}", response_model=TagList, summary="Create a tag or set its description")
def put_tag(
    *,
    tag: str,
    store: TheStore,
    body: Annotated[CreatedTag | None, Body()] = None,
    principal: WriteAccess,
) -> records.TagPage:
    principal.check_global(f"tag {tag!r}")
    with store.writing() as conn:
        tagging.put_tag(conn, tag, body.description if body else None)
        return tags.list_tags(conn, 100_000, 0)
