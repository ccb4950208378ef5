"""Factories for the routes the read API repeats: paged lists, tagging and soft delete.

:func:`add_list_route`: ``GET`` a page of namespaces, sources or tags (``limit``, ``offset``) as the
caller may see them. :func:`add_tag_routes`: ``POST …/tags/{tag}`` adds the tag (creating an unknown
tag, as Marquez does, for a token not limited to namespaces: tags are global), ``DELETE`` removes it;
both need the ``write`` scope and the namespace, and answer the tagged dataset or job as it is now.
:func:`add_soft_delete_route`: ``DELETE`` a namespace, dataset or job (hidden until a new event
mentions it again); needs the ``admin`` scope and the namespace, answers the thing as it was.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from fastapi import APIRouter
from sqlalchemy.engine import Connection

from plumbline.server.api.routing import (
    AdminAccess,
    Limit,
    Offset,
    ReadAccess,
    Reader,
    TheStore,
    WriteAccess,
)
from plumbline.server.auth import Principal
from plumbline.store import Store, VisibleTo
from plumbline.store.read import tags

# namespaces.list_namespaces(conn, limit, offset, visible_to) and its siblings
PageReader = Callable[[Connection, int, int, VisibleTo], Any]
# tagging.tag_dataset(conn, namespace, name, tag, add=…) and its siblings
Tagger = Callable[..., None]
# hiding.hide_dataset(conn, namespace, name) and its siblings: the thing as it was before
Hider = Callable[..., Any]
# the answer, from the first two path parameters: get_dataset(conn, namespace, name), get_job(…)
Answer = Callable[[Connection, str, str], Any]


def add_list_route(
    router: APIRouter, path: str, *, name: str, summary: str, response_model: Any, read: PageReader
) -> None:
    """Add ``GET path``: one page of what ``read`` lists, limited to what the caller may see."""

    def endpoint(
        *, conn: Reader, limit: Limit = 100, offset: Offset = 0, principal: ReadAccess
    ) -> Any:
        return read(conn, limit, offset, principal.namespaces)

    router.add_api_route(
        path,
        endpoint,
        methods=["GET"],
        response_model=response_model,
        summary=summary,
        name=name,
    )


def add_tag_routes(
    router: APIRouter,
    path: str,
    *,
    names: Sequence[str],
    thing: str,
    response_model: Any,
    tagger: Tagger,
    answer: Answer,
) -> None:
    """Add ``POST`` and ``DELETE`` on ``path`` (which ends with ``/tags/{tag}``).

    ``names`` are the path's other parameters in order, the namespace first; the routes are named
    ``tag_<thing>`` and ``untag_<thing>`` (their OpenAPI operation ids).
    """
    for add in (True, False):
        router.add_api_route(
            path,
            _endpoint(names, add, tagger, answer),
            methods=["POST" if add else "DELETE"],
            response_model=response_model,
            summary=f"Tag {thing_phrase(thing)}"
            if add
            else f"Remove a tag from {thing_phrase(thing)}",
            name=f"{'tag' if add else 'untag'}_{thing}",
        )


def add_soft_delete_route(
    router: APIRouter,
    path: str,
    *,
    names: Sequence[str],
    thing: str,
    summary: str,
    response_model: Any,
    hide: Hider,
) -> None:
    """Add ``DELETE path``: ``hide(conn, *names)`` in one transaction, answering what it returns.

    ``names`` are the path's parameters in order, the namespace first; the route is named
    ``delete_<thing>`` (its OpenAPI operation id) and needs the ``admin`` scope and the namespace.
    """

    def endpoint(**params: Any) -> Any:
        principal, store, values = _checked(params, names)
        with store.writing() as conn:
            return hide(conn, *values)

    endpoint.__signature__ = _signature(names, AdminAccess)  # type: ignore[attr-defined]
    router.add_api_route(
        path,
        endpoint,
        methods=["DELETE"],
        response_model=response_model,
        summary=summary,
        description=f"Hidden until a new event mentions the {thing} again.",
        name=f"delete_{thing}",
    )


def thing_phrase(thing: str) -> str:
    """How a summary names the tagged thing: ``a dataset``, ``a field of a dataset``, ``a job``."""
    return {"field": "a field of a dataset"}.get(thing, f"a {thing}")


def _endpoint(
    names: Sequence[str], add: bool, tagger: Tagger, answer: Answer
) -> Callable[..., Any]:
    def endpoint(**params: Any) -> Any:
        principal, store, values = _checked(params, names)
        with store.writing() as conn:
            if (
                add
                and principal.namespaces is not None
                and not tags.tag_exists(conn, params["tag"])
            ):
                principal.check_global(f"tag {params['tag']!r} is not defined; a new tag")
            tagger(conn, *values, params["tag"], add=add)
            return answer(conn, values[0], values[1])

    endpoint.__signature__ = _signature((*names, "tag"), WriteAccess)  # type: ignore[attr-defined]
    return endpoint


def _checked(params: dict[str, Any], names: Sequence[str]) -> tuple[Principal, Store, list[str]]:
    """The caller, the store and the path's values of a generated endpoint's ``params``, once
    the caller is checked for the namespace (the first of ``names``)."""
    principal: Principal = params["principal"]
    values = [params[name] for name in names]
    principal.check_namespace(values[0])
    return principal, params["store"], values


def _signature(names: Sequence[str], access: Any) -> inspect.Signature:
    """What FastAPI reads of a generated endpoint: the path parameters, the store, the caller."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    return inspect.Signature(
        [inspect.Parameter(name, keyword, annotation=str) for name in names]
        + [
            inspect.Parameter("store", keyword, annotation=TheStore),
            inspect.Parameter("principal", keyword, annotation=access),
        ],
        return_annotation=dict,
    )
