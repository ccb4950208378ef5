"""``/namespaces`` (list, get, soft delete).

A namespace-limited token sees its own namespaces and those holding a dataset it may read (one its
jobs touch); others answer 404 on get.
"""

from __future__ import annotations

from plumbline.server.api.factories import add_list_route
from plumbline.server.api.models import Namespace, NamespaceList
from plumbline.server.api.routing import (
    AdminAccess,
    ReadAccess,
    Reader,
    StoreEngine,
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


@router.delete(
    "/namespaces/{namespace}",
    response_model=Namespace,
    summary="Soft delete a namespace with its datasets and jobs",
    description="Hidden until a new event mentions the namespace again.",
)
def delete_namespace(
    *, namespace: str, engine: StoreEngine, principal: AdminAccess
) -> records.Namespace:
    principal.check_namespace(namespace)
    with engine.begin() as conn:
        return hiding.hide_namespace(conn, namespace)
