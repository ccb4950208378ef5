"""`GET /api/v1/catalogs/{catalog}/lineage/datasets/{namespace}/{table}`: a table's OpenLineage facets.

For an engine's OpenLineage client to merge into its own events; the engine knows whether it reads or
writes the table and places the facets accordingly. Iceberg namespaces are dot-separated
(``sales.eu``), the table name is the last path segment.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from plumbline.server.auth import Principal, require
from plumbline.server.catalog.errors import (
    CatalogUnavailableError,
    UnknownCatalogError,
    UnknownTableError,
)
from plumbline.server.catalog.facets import dataset_identity, table_facets
from plumbline.server.catalog.registry import get_resolver
from plumbline.server.errors import APIError
from plumbline.store import dataset_pk
from plumbline.store.read import NotFoundError

router = APIRouter(tags=["catalogs"])


@router.get("/api/v1/catalogs/{catalog}/lineage/datasets/{namespace}/{table}")
def catalog_dataset_facets(
    catalog: str,
    namespace: str,
    table: str,
    request: Request,
    principal: Annotated[Principal, Depends(require("read"))],
) -> dict[str, Any]:
    """The dataset identity (by location) and the facets the catalog knows about the table.

    A namespace-limited token gets the tables whose dataset is in its namespaces or visible to it
    (one its jobs touch); any other table answers 404, as if missing."""
    identifier = (*[part for part in namespace.split(".") if part], table)
    try:
        resolver = get_resolver(request.app.state.settings.catalogs, catalog)
        found = resolver.table(identifier)
    except UnknownCatalogError as exc:
        raise APIError(404, str(exc)) from exc
    except UnknownTableError as exc:
        raise APIError(404, str(exc)) from exc
    except CatalogUnavailableError as exc:
        raise APIError(503, str(exc)) from exc
    ds_namespace, ds_name = dataset_identity(found)
    if not principal.allows_namespace(ds_namespace):
        with request.app.state.store.connection() as conn:
            try:
                dataset_pk(conn, ds_namespace, ds_name, visible_to=principal.namespaces)
            except NotFoundError:
                raise APIError(404, f"table {found.qualified_name!r} not found") from None
    return {
        "catalog": catalog,
        "table": found.qualified_name,
        "namespace": ds_namespace,
        "name": ds_name,
        "facets": table_facets(found),
    }
