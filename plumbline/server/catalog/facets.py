"""OpenLineage dataset facets from what a catalog knows about a table."""

from __future__ import annotations

from typing import Any

from plumbline import __version__
from plumbline.openlineage.schema_urls import CATALOG_TABLE_FACET_SCHEMA_URL, facet_schema_url
from plumbline.server.catalog.locations import dataset_of_location
from plumbline.server.catalog.model import CatalogTable, SchemaField

PRODUCER = f"https://github.com/plumbline/plumbline/tree/{__version__}/plumbline/server/catalog"
# facet name in an event -> the name of its schema
SCHEMAS = {
    "catalog": "CatalogDatasetFacet",
    "symlinks": "SymlinksDatasetFacet",
    "schema": "SchemaDatasetFacet",
    "version": "DatasetVersionDatasetFacet",
    "storage": "StorageDatasetFacet",
}
# plumbline's own facet: the catalog's stable identity of the table (no standard facet has it)
IDENTITY_FACET = "plumbline_catalogTable"


def _base(name: str) -> dict[str, str]:
    return {"_producer": PRODUCER, "_schemaURL": facet_schema_url(SCHEMAS[name])}


def symlink_identifier(table: CatalogTable) -> dict[str, str]:
    """The TABLE symlink of a catalog table: the warehouse URI (else the catalog name) + name."""
    return {
        "namespace": table.warehouse or table.catalog,
        "name": table.qualified_name,
        "type": "TABLE",
    }


def dataset_identity(table: CatalogTable) -> tuple[str, str]:
    """(namespace, name) an engine gives the table: its location, as the Spark integration does."""
    return dataset_of_location(table.location)


def table_facets(table: CatalogTable) -> dict[str, dict[str, Any]]:
    """The facets the catalog knows: catalog, symlinks, schema, version, storage, identity."""
    catalog: dict[str, Any] = {
        **_base("catalog"),
        "framework": table.framework,
        "type": table.catalog_type,
        "name": table.catalog,
    }
    if table.metadata_uri:
        catalog["metadataUri"] = table.metadata_uri
    if table.warehouse:
        catalog["warehouseUri"] = table.warehouse
    facets: dict[str, dict[str, Any]] = {
        "catalog": catalog,
        "symlinks": {**_base("symlinks"), "identifiers": [symlink_identifier(table)]},
        "schema": {**_base("schema"), "fields": [_field(f) for f in table.fields]},
        "storage": {
            **_base("storage"),
            "storageLayer": table.framework,
            "fileFormat": table.file_format or "parquet",
        },
    }
    if table.current_snapshot_id is not None:
        facets["version"] = {**_base("version"), "datasetVersion": str(table.current_snapshot_id)}
    facets[IDENTITY_FACET] = {
        "_producer": PRODUCER,
        "_schemaURL": CATALOG_TABLE_FACET_SCHEMA_URL,
        "catalog": table.catalog,
        "identifier": table.qualified_name,
        "tableUuid": table.table_uuid,
        "location": table.location,
        "currentSnapshotId": table.current_snapshot_id,
    }
    return facets


def _field(field: SchemaField) -> dict[str, Any]:
    out: dict[str, Any] = {"name": field.name, "type": field.type}
    if field.description:
        out["description"] = field.description
    if field.fields:
        out["fields"] = [_field(f) for f in field.fields]
    return out
