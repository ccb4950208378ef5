"""``/namespaces`` (list, get, soft delete).

A namespace-limited token sees its own namespaces and those holding a dataset it may read (one its
jobs touch); others answer 404 on get.
"""

from __future__ import annotations

from plumbline.server.api.models import Namespace, NamespaceList
from plumbline.server.api.routing import (
    AdminAccess,
    Limit,
    Offset,
    ReadAccess,
    Reader,
    StoreEngine,
    make_router,
)
from plumbline.store.read import namespaces
from plumbline.store.write import hiding

router = make_router("Namespaces")


@router.get("/namespaces", response_model=NamespaceList, summary="List namespaces")
def list_namespaces(
    *,
    conn: Reader,
    limit: Limit = 100,
    offset: Offset = 0,
    principal: ReadAccess,
) -> dict:
    return namespaces.list_namespaces(conn, limit, offset, principal.namespaces)


@router.get("/namespaces/{namespace}", response_model=Namespace, summary="Get a namespace")
def get_namespace(*, namespace: str, conn: Reader, principal: ReadAccess) -> dict:
    return namespaces.get_namespace(conn, namespace, principal.namespaces)


@router.delete(
    "/namespaces/{namespace}",
    response_model=Namespace,
    summary="Soft delete a namespace with its datasets and jobs",
    description="Hidden until a new event mentions the namespace again.",
)
def delete_namespace(*, namespace: str, engine: StoreEngine, principal: AdminAccess) -> dict:
    principal.check_namespace(namespace)
    with engine.begin() as conn:
        return hiding.hide_namespace(conn, namespace)
