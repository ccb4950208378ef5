"""Catalog-aware enrichment: resolve datasets to catalog tables (pyiceberg).

- :func:`enrich_event` — the ingestion hook (stored copy only; forwarded events stay as received);
- :func:`stable_id_of` — the stable identity enrichment puts on a dataset, for the store;
- ``routes.router`` — ``GET /api/v1/catalogs/{catalog}/lineage/datasets/{namespace}/{table}``.
"""

from plumbline.server.catalog.enrich import enrich_event, stable_id_of
from plumbline.server.catalog.errors import (
    CatalogError,
    CatalogUnavailableError,
    UnknownCatalogError,
    UnknownTableError,
)
from plumbline.server.catalog.facets import IDENTITY_FACET, table_facets
from plumbline.server.catalog.iceberg import IcebergResolver
from plumbline.server.catalog.model import CatalogResolver, CatalogTable

__all__ = [
    "IDENTITY_FACET",
    "CatalogError",
    "CatalogResolver",
    "CatalogTable",
    "CatalogUnavailableError",
    "IcebergResolver",
    "UnknownCatalogError",
    "UnknownTableError",
    "enrich_event",
    "stable_id_of",
    "table_facets",
]
