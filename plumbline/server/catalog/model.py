"""What a catalog knows about one table, independent of the catalog's implementation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class SchemaField:
    """One column (nested columns in ``fields``)."""

    name: str
    type: str
    description: str | None = None
    fields: tuple[SchemaField, ...] = ()


@dataclass(frozen=True)
class CatalogTable:
    """A catalog table: its stable identity, where it lives, its schema and current snapshot."""

    catalog: str  # the configured catalog name
    catalog_type: str  # e.g. "sql", "rest", "glue"
    framework: str  # e.g. "iceberg"
    identifier: tuple[str, ...]  # namespace parts + table name
    table_uuid: str
    location: str
    current_snapshot_id: int | None
    fields: tuple[SchemaField, ...]
    file_format: str | None = None
    metadata_uri: str | None = None  # the catalog's connection URI, credentials removed
    warehouse: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict)

    @property
    def qualified_name(self) -> str:
        """``namespace.table`` with dot-separated namespace levels."""
        return ".".join(self.identifier)


class CatalogResolver(Protocol):
    """Maps datasets to tables of one catalog."""

    name: str
    enrich_on_ingest: bool

    def table(self, identifier: tuple[str, ...]) -> CatalogTable:
        """The table ``identifier``; raises UnknownTableError or CatalogUnavailableError."""
        ...

    def resolve(
        self, namespace: str, name: str, symlinks: list[Mapping[str, Any]]
    ) -> CatalogTable | None:
        """The table an OpenLineage dataset (with its symlink identifiers) is, or None."""
        ...
