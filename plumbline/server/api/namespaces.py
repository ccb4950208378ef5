"""``/namespaces`` (list, get, soft delete).

A namespace-limited token sees its own namespaces and those holding a dataset it may read (one its
jobs touch); others answer 404 on get.
"""

from __future__ import annotations

from plumbline.server.api.factories import add_list_route, add_soft_delete_route
from plumbline.server.api.models import Namespace, NamespaceList
from plumbline.server.api.routing import (
    ReadAccess,
    Reader,
    make_router,
)
from plumbline.store.read import namespaces, records
from plumbline.store.write import hiding

router = make_router("Namespaces")


add_list_route(
    router,
    "/namespaces",
    name="list_namespaces",
    summary="List namespaces",
    response_model=NamespaceList,
    read=namespaces.list_namespaces,
)


@router.get("/namespaces/{namespace}", response_model=Namespace, summary="Get a namespace")
def get_namespace(*, namespace: str, conn: Reader, principal: ReadAccess) -> records.Namespace:
    return namespaces.get_namespace(conn, namespace, principal.namespaces)


add_soft_delete_route(
    router,
    "/namespaces/{namespace}",
    names=("namespace",),
    thing="namespace",
    summary="Soft delete a namespace with its datasets and jobs",
    response_model=Namespace,
    hide=hiding.hide_namespace,
)
