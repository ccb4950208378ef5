"""Namespaces and sources: created on first sight, looked up by name."""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.schema import namespaces, sources
from plumbline.store.write.context import Appearance, Batch
from plumbline.store.write.upsert import insert_ignore, select_in


def ensure_namespaces(
    connection: Connection, batch: Batch, names: Iterable[str], known: Iterable[str] = ()
) -> None:
    """Make sure every namespace of ``names`` exists; fill ``batch.namespace_ids`` (and note
    which are hidden) for those and for the existing ones of ``known`` (looked up, not created)."""
    wanted = set(names)
    looked_up = sorted((wanted | set(known)) - batch.namespace_ids.keys())
    if not looked_up:
        return
    found = _lookup(connection, batch, looked_up)
    missing = sorted(wanted - found.keys() - batch.namespace_ids.keys())
    insert_ignore(
        connection,
        namespaces,
        [{"name": name, "created_at": batch.now, "updated_at": batch.now} for name in missing],
    )
    if missing:
        found.update(_lookup(connection, batch, missing))
    batch.namespace_ids.update(found)


_NAMESPACES = sa.select(namespaces.c.name, namespaces.c.id, namespaces.c.is_hidden)
_SOURCES = sa.select(sources.c.name, sources.c.id)


def _lookup(connection: Connection, batch: Batch, names: list[str]) -> dict[str, int]:
    found = {}
    for row in select_in(connection, _NAMESPACES, [namespaces.c.name], names):
        found[row.name] = row.id
        if row.is_hidden:
            batch.hidden_namespaces.add(row.name)
    return found


def unhide_namespaces(connection: Connection, batch: Batch) -> None:
    """Namespaces the events write to again are no longer soft-deleted."""
    names = {state.key[0] for state in batch.dataset_state.values()}
    names |= {key[0] for key in batch.job_ids}
    # only those seen hidden, or not looked up in this write, need the statement
    names = {n for n in names if n in batch.hidden_namespaces or n not in batch.namespace_ids}
    if names:
        connection.execute(
            namespaces.update()
            .where(namespaces.c.is_hidden, namespaces.c.name.in_(sorted(names)))
            .values(is_hidden=False, updated_at=batch.now)
        )


def source_of(appearance: Appearance) -> tuple[str, str]:
    """(source name, connection URL): the ``dataSource`` facet, else the dataset's namespace."""
    facets = appearance.dataset.facets
    data_source = facets.data_source if facets is not None else None
    namespace = appearance.dataset.namespace
    name = (data_source.name if data_source else None) or namespace
    url = (data_source.uri if data_source else None) or namespace
    return name, url


def source_type(url: str) -> str:
    """'S3' for s3://bucket, 'FILE' for file, 'POSTGRES' for postgres://host:5432 …"""
    scheme = url.split("://", 1)[0] if "://" in url else url.split(":", 1)[0]
    return (scheme or "UNKNOWN").upper()[:64]


def ensure_sources(connection: Connection, batch: Batch, wanted: dict[str, str]) -> None:
    """Make sure the sources (name -> connection URL) exist; fill ``batch.source_ids``."""
    if not wanted:
        return
    found = {row.name: row.id for row in select_in(connection, _SOURCES, [sources.c.name], wanted)}
    missing = sorted(name for name in wanted if name not in found)
    insert_ignore(
        connection,
        sources,
        [
            {
                "name": name,
                "type": source_type(wanted[name]),
                "connection_url": wanted[name],
                "created_at": batch.now,
                "updated_at": batch.now,
            }
            for name in missing
        ],
    )
    if missing:
        found.update(
            {row.name: row.id for row in select_in(connection, _SOURCES, [sources.c.name], missing)}
        )
    batch.source_ids.update(found)
