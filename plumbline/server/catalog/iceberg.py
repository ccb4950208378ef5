"""A :class:`CatalogResolver` over a pyiceberg catalog (SQL on SQLite or PostgreSQL, REST, Glue…).

Configured with pyiceberg's own properties (``type``, ``uri``, ``warehouse``, …) plus plumbline's
``enrich`` (``true``/``false``: enrich ingested events, default true). Lookups are cached briefly
so that ingestion stays fast; a table that is not found is cached too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from plumbline.openlineage.urls import redact_url
from plumbline.server.catalog.errors import CatalogUnavailableError, UnknownTableError
from plumbline.server.catalog.locations import key_of_location, relative_parts, same_location
from plumbline.server.catalog.model import CatalogTable, SchemaField

logger = logging.getLogger(__name__)

# plumbline's own keys, never passed to pyiceberg
_OWN_KEYS = ("enrich", "cache_ttl")
_TABLE_LIMIT = 10_000  # tables scanned when building the location index


def _flag(value: Any) -> bool:
    return str(value).strip().lower() not in ("false", "0", "no", "off")


class IcebergResolver:
    """Resolves datasets to tables of one pyiceberg catalog."""

    framework = "iceberg"

    def __init__(self, name: str, properties: Mapping[str, Any]) -> None:
        props = {str(k): v for k, v in properties.items()}
        self.name = name
        self.enrich_on_ingest = _flag(props.get("enrich", "true"))
        self.cache_ttl_s = float(props.get("cache_ttl", 10.0))
        self.properties = {k: v for k, v in props.items() if k not in _OWN_KEYS}
        self.catalog_type = str(self.properties.get("type", "rest"))
        self.warehouse = self.properties.get("warehouse")
        self._catalog: Any = None
        self._lock = threading.RLock()
        self._tables: dict[tuple[str, ...], tuple[float, CatalogTable | None]] = {}
        self._index: tuple[float, dict[str, tuple[str, ...]]] | None = None

    def _open(self) -> Any:
        with self._lock:
            if self._catalog is None:
                try:
                    from pyiceberg.catalog import load_catalog

                    self._catalog = load_catalog(self.name, **self.properties)
                except Exception as exc:
                    raise CatalogUnavailableError(
                        f"cannot open catalog {self.name!r}: {type(exc).__name__}: {exc}"
                    ) from exc
            return self._catalog

    def table(self, identifier: tuple[str, ...]) -> CatalogTable:
        """The table ``identifier`` (namespace levels + name), from the cache when fresh."""
        now = time.monotonic()
        with self._lock:
            cached = self._tables.get(identifier)
        if cached is not None and cached[0] > now:
            found = cached[1]
        else:
            found = self._load(identifier)
            with self._lock:
                self._tables[identifier] = (now + self.cache_ttl_s, found)
        if found is None:
            raise UnknownTableError(f"catalog {self.name!r} has no table {'.'.join(identifier)!r}")
        return found

    def _load(self, identifier: tuple[str, ...]) -> CatalogTable | None:
        from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError

        if len(identifier) < 2:
            return None
        catalog = self._open()
        try:
            table = catalog.load_table(identifier)
        except (NoSuchTableError, NoSuchNamespaceError):
            return None
        except Exception as exc:
            raise CatalogUnavailableError(
                f"catalog {self.name!r} failed to load {'.'.join(identifier)!r}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return self._describe(identifier, table)

    def _describe(self, identifier: tuple[str, ...], table: Any) -> CatalogTable:
        snapshot = table.current_snapshot()
        uri = self.properties.get("uri")
        return CatalogTable(
            catalog=self.name,
            catalog_type=self.catalog_type,
            framework=self.framework,
            identifier=tuple(identifier),
            table_uuid=str(table.metadata.table_uuid),
            location=str(table.location()),
            current_snapshot_id=snapshot.snapshot_id if snapshot is not None else None,
            fields=tuple(_field(f) for f in table.schema().fields),
            file_format=str(table.properties.get("write.format.default", "parquet")).lower(),
            metadata_uri=redact_url(str(uri)) if uri else None,
            warehouse=str(self.warehouse) if self.warehouse else None,
        )

    def resolve(
        self, namespace: str, name: str, symlinks: list[Mapping[str, Any]]
    ) -> CatalogTable | None:
        """The table a dataset is: by a TABLE symlink (or name) in this catalog, else by location."""
        named = [(namespace, name)] + [
            (str(s.get("namespace", "")), str(s.get("name", "")))
            for s in symlinks
            if str(s.get("type", "TABLE")).upper() == "TABLE"
        ]
        for ns, table_name in named:
            if self._is_this_catalog(ns) and "." in table_name:
                found = self._try(tuple(table_name.split(".")))
                if found is not None:
                    return found
        return self._by_location(namespace, name)

    def _is_this_catalog(self, namespace: str) -> bool:
        if namespace == self.name:
            return True
        return (
            bool(self.warehouse)
            and "://" in namespace
            and same_location(namespace, str(self.warehouse))
        )

    def _try(self, identifier: tuple[str, ...]) -> CatalogTable | None:
        try:
            return self.table(identifier)
        except UnknownTableError:
            return None

    def _by_location(self, namespace: str, name: str) -> CatalogTable | None:
        uri = _uri(namespace, name)
        if uri is None:
            return None
        key = key_of_location(uri)
        # SQL and most catalogs place tables at <warehouse>/<ns…>/<table> (older: <ns>.db)
        parts = relative_parts(uri, str(self.warehouse)) if self.warehouse else None
        if parts and len(parts) >= 2:
            guess = tuple(p.removesuffix(".db") for p in parts)
            found = self._try(guess)
            if found is not None and key_of_location(found.location) == key:
                return found
        if self.warehouse and parts is None:
            # outside the warehouse: not worth a scan of the catalog on the ingestion path
            return None
        identifier = self._location_index().get(key)
        return self._try(identifier) if identifier else None

    def _location_index(self) -> dict[str, tuple[str, ...]]:
        now = time.monotonic()
        with self._lock:
            if self._index is not None and self._index[0] > now:
                return self._index[1]
        index: dict[str, tuple[str, ...]] = {}
        try:
            catalog = self._open()
            pending = [tuple(ns) for ns in catalog.list_namespaces()]
            seen: set[tuple[str, ...]] = set()
            while pending and len(index) < _TABLE_LIMIT:
                ns = pending.pop()
                if ns in seen:
                    continue
                seen.add(ns)
                pending += [tuple(child) for child in catalog.list_namespaces(ns)]
                for identifier in catalog.list_tables(ns):
                    table = self._try(tuple(identifier))
                    if table is not None:
                        index[key_of_location(table.location)] = table.identifier
        except CatalogUnavailableError:
            raise
        except Exception as exc:
            logger.warning("cannot list the tables of catalog %r: %s", self.name, exc)
        with self._lock:
            self._index = (now + max(self.cache_ttl_s, 30.0), index)
        return index


def _uri(namespace: str, name: str) -> str | None:
    if namespace == "file":
        return "file://" + name
    if "://" in namespace:
        return namespace.rstrip("/") + "/" + name.lstrip("/")
    return None


def _field(nested: Any) -> SchemaField:
    from pyiceberg.types import StructType

    kind = nested.field_type
    children = tuple(_field(f) for f in kind.fields) if isinstance(kind, StructType) else ()
    return SchemaField(
        name=nested.name, type=str(kind), description=nested.doc or None, fields=children
    )
