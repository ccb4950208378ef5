"""The configured catalogs of a server, built once per distinct configuration."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from plumbline.server.catalog.errors import CatalogError, UnknownCatalogError
from plumbline.server.catalog.iceberg import IcebergResolver
from plumbline.server.catalog.model import CatalogResolver

_resolvers: dict[tuple[str, str], CatalogResolver] = {}
_lock = threading.Lock()


def resolver_for(name: str, properties: Mapping[str, Any]) -> CatalogResolver:
    """The resolver of catalog ``name`` with ``properties`` (shared while the properties match)."""
    key = (name, repr(sorted((str(k), str(v)) for k, v in properties.items())))
    with _lock:
        resolver = _resolvers.get(key)
        if resolver is None:
            resolver = _new_resolver(name, properties)
            _resolvers[key] = resolver
        return resolver


def _new_resolver(name: str, properties: Mapping[str, Any]) -> CatalogResolver:
    try:
        return IcebergResolver(name, properties)
    except (TypeError, ValueError) as exc:
        raise CatalogError(f"catalog {name!r} is misconfigured: {exc}") from exc


def catalog_resolvers(catalogs: Mapping[str, Mapping[str, Any]]) -> list[CatalogResolver]:
    """Resolvers for every configured catalog, in name order."""
    return [resolver_for(name, catalogs[name]) for name in sorted(catalogs)]


def get_resolver(catalogs: Mapping[str, Mapping[str, Any]], name: str) -> CatalogResolver:
    """The resolver of the configured catalog ``name``; UnknownCatalogError when there is none."""
    if name not in catalogs:
        known = ", ".join(sorted(catalogs)) or "none"
        raise UnknownCatalogError(f"unknown catalog {name!r} (configured: {known})")
    return resolver_for(name, catalogs[name])
