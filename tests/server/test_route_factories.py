"""Soft delete and untag are written once (issue 29 §3): every DELETE route that hides a namespace,
dataset or job, or untags, is built by ``plumbline/server/api/factories.py``
(``add_soft_delete_route``, ``add_tag_routes``), none by hand in a resource's module."""

from __future__ import annotations

from fastapi.routing import APIRoute

from plumbline.server.api import factories, routers


def _deletes() -> dict[str, tuple[str, str]]:
    """Each DELETE route's path: the module and the function that made its endpoint."""
    return {
        route.path: (route.endpoint.__module__, route.endpoint.__qualname__.split(".")[0])
        for router in routers
        for route in router.routes
        if isinstance(route, APIRoute) and "DELETE" in route.methods
    }


def test_soft_delete_and_untag_come_from_the_factories() -> None:
    deletes = _deletes()
    by_hand = {path: made for path, made in deletes.items() if made[0] != factories.__name__}
    # a DELETE written in a resource's module may undo something of its own (a declassification),
    # never hide a namespace, dataset or job, nor untag
    hides_or_untags = ("{namespace}", "{dataset}", "{job}", "/tags/{tag}")
    assert [p for p in by_hand if p.endswith(hides_or_untags)] == [], (
        "soft delete or untag written by hand (use server/api/factories.py)"
    )
    soft = {path for path, (_, maker) in deletes.items() if maker == "add_soft_delete_route"}
    assert soft == {
        "/api/v1/namespaces/{namespace}",
        "/api/v1/namespaces/{namespace}/datasets/{dataset}",
        "/api/v1/namespaces/{namespace}/jobs/{job}",
    }
    untag = {path for path in deletes if path.endswith("/tags/{tag}")}
    assert len(untag) == 3  # untag a dataset, a dataset's field, a job
    assert untag.isdisjoint(by_hand)
