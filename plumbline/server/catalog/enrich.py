"""Enrichment on ingestion: give datasets that are catalog tables what only the catalog knows.

For every dataset of an event (inputs, outputs, a DatasetEvent's dataset) that a catalog with
enrichment on resolves, the stored copy gets the ``plumbline_catalogTable`` facet (the table UUID:
a stable identity that survives renames), and the catalog, symlinks (merged), schema, storage and
version facets when the event did not bring its own. The version (snapshot id) is the current one at
ingestion: what an input consumed or an output produced. Forwarded events are never enriched.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from typing import Any

from plumbline.server.catalog.errors import CatalogError
from plumbline.server.catalog.facets import IDENTITY_FACET, symlink_identifier, table_facets
from plumbline.server.catalog.model import CatalogResolver, CatalogTable
from plumbline.server.catalog.registry import catalog_resolvers

logger = logging.getLogger(__name__)

_FILL_IF_MISSING = ("catalog", "schema", "storage", "version")


def enrich_event(settings: Any, event: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``event`` with catalog facets on its catalog datasets (``event`` if none apply).

    ``settings`` is the server's :class:`ServerSettings` (only ``catalogs`` is used). Never
    raises for catalog trouble: an unreachable catalog is logged and the event kept as it is.
    """
    catalogs = getattr(settings, "catalogs", None) or {}
    if not catalogs:
        return event
    try:
        resolvers = [r for r in catalog_resolvers(catalogs) if r.enrich_on_ingest]
    except CatalogError as exc:
        logger.warning("catalog enrichment is off: %s", exc)
        return event
    if not resolvers:
        return event
    enriched: dict[str, Any] | None = None
    for path in _dataset_paths(event):
        dataset = _at(event, path)
        table = _resolve(resolvers, dataset)
        if table is None:
            continue
        if enriched is None:
            enriched = copy.deepcopy(event)
        _apply(_at(enriched, path), table)
    return enriched if enriched is not None else event


def stable_id_of(dataset: Mapping[str, Any]) -> str | None:
    """The catalog identity enrichment put on a dataset (``catalog:tableUuid``), else None."""
    facet = (dataset.get("facets") or {}).get(IDENTITY_FACET)
    if not isinstance(facet, Mapping) or not facet.get("tableUuid"):
        return None
    return f"{facet.get('catalog')}:{facet['tableUuid']}"


def _dataset_paths(event: Mapping[str, Any]) -> list[tuple[str, int | None]]:
    paths: list[tuple[str, int | None]] = []
    if isinstance(event.get("dataset"), Mapping):
        paths.append(("dataset", None))
    for key in ("inputs", "outputs"):
        items = event.get(key)
        if isinstance(items, list):
            paths += [(key, i) for i, item in enumerate(items) if isinstance(item, Mapping)]
    return paths


def _at(event: Mapping[str, Any], path: tuple[str, int | None]) -> Any:
    key, index = path
    return event[key] if index is None else event[key][index]


def _resolve(resolvers: list[CatalogResolver], dataset: Mapping[str, Any]) -> CatalogTable | None:
    namespace, name = dataset.get("namespace"), dataset.get("name")
    if not isinstance(namespace, str) or not isinstance(name, str):
        return None
    facets = dataset.get("facets")
    links = facets.get("symlinks") if isinstance(facets, Mapping) else None
    identifiers = links.get("identifiers") if isinstance(links, Mapping) else None
    symlinks = [s for s in identifiers or [] if isinstance(s, Mapping)]
    for resolver in resolvers:
        try:
            table = resolver.resolve(namespace, name, symlinks)
        except CatalogError as exc:
            logger.warning("catalog %r: %s", resolver.name, exc)
            continue
        if table is not None:
            return table
    return None


def _apply(dataset: dict[str, Any], table: CatalogTable) -> None:
    facets = dataset.get("facets")
    if not isinstance(facets, dict):
        facets = dataset["facets"] = {}
    known = table_facets(table)
    for name in _FILL_IF_MISSING:
        if name in known and name not in facets:
            facets[name] = known[name]
    facets[IDENTITY_FACET] = known[IDENTITY_FACET]
    symlinks = facets.get("symlinks")
    if not isinstance(symlinks, dict) or not isinstance(symlinks.get("identifiers"), list):
        facets["symlinks"] = known["symlinks"]
        return
    wanted = symlink_identifier(table)
    present = {
        (s.get("namespace"), s.get("name"))
        for s in symlinks["identifiers"]
        if isinstance(s, Mapping)
    }
    if (wanted["namespace"], wanted["name"]) not in present:
        symlinks["identifiers"].append(wanted)
