"""Namespaces and sources in Marquez's shapes (``Namespace``, ``Source``)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import count, iso, namespace_row
from plumbline.store.read.errors import NotFoundError
from plumbline.store.read.records import Namespace, NamespacePage, Source, SourcePage
from plumbline.store.read.visibility import VisibleTo, readable_dataset_ids, visible_namespaces


def _namespace_doc(row: sa.Row[Any]) -> Namespace:
    return {
        "name": row.name,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
        "ownerName": row.owner_name or "anonymous",
        "description": row.description,
        "isHidden": bool(row.is_hidden),
    }


def list_namespaces(
    conn: Connection, limit: int, offset: int, visible_to: VisibleTo = None
) -> NamespacePage:
    """``GET /namespaces``: visible namespaces by name, ``{"namespaces", "totalCount"}``."""
    n = s.namespaces
    base = sa.select(n).where(
        n.c.is_hidden == sa.false(), visible_namespaces(n.c.id, n.c.name, visible_to)
    )
    rows = conn.execute(base.order_by(n.c.name).limit(limit).offset(offset)).all()
    return {"namespaces": [_namespace_doc(r) for r in rows], "totalCount": count(conn, base)}


def get_namespace(conn: Connection, name: str, visible_to: VisibleTo = None) -> Namespace:
    """``GET /namespaces/{namespace}``."""
    return _namespace_doc(namespace_row(conn, name, visible_to=visible_to))


def _source_doc(row: sa.Row[Any]) -> Source:
    return {
        "type": row.type,
        "name": row.name,
        "createdAt": iso(row.created_at),
        "updatedAt": iso(row.updated_at),
        "connectionUrl": row.connection_url,
        "description": row.description,
    }


def visible_sources(
    source_id: sa.ColumnElement[Any], visible_to: VisibleTo
) -> sa.ColumnElement[bool]:
    """Sources the caller may see: those of the datasets whose contents it may read (not of a
    dataset its jobs only read: that one's source is its owners')."""
    if visible_to is None:
        return sa.true()
    d = s.datasets.alias("vis_src_dataset")
    used = sa.select(d.c.source_id).where(d.c.id.in_(readable_dataset_ids(visible_to)))
    return source_id.in_(used)


def list_sources(
    conn: Connection, limit: int, offset: int, visible_to: VisibleTo = None
) -> SourcePage:
    """``GET /sources``: ``{"sources", "totalCount"}``."""
    src = s.sources
    base = sa.select(src).where(visible_sources(src.c.id, visible_to))
    rows = conn.execute(base.order_by(src.c.name).limit(limit).offset(offset)).all()
    return {"sources": [_source_doc(r) for r in rows], "totalCount": count(conn, base)}


def get_source(conn: Connection, name: str, visible_to: VisibleTo = None) -> Source:
    """``GET /sources/{source}``."""
    src = s.sources
    query = sa.select(src).where(src.c.name == name, visible_sources(src.c.id, visible_to))
    row = conn.execute(query).first()
    if row is None:
        raise NotFoundError(f"source {name!r} not found")
    return _source_doc(row)
