"""Small helpers shared by the read queries: timestamps, pagination, name lookups."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.errors import NotFoundError
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.visibility import VisibleTo, visible_datasets, visible_namespaces

DEFAULT_LIMIT = 100


def utc(value: datetime | None) -> datetime | None:
    """``value`` as an aware UTC datetime (SQLite hands back naive UTC values)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def iso(value: datetime | None) -> str | None:
    """ISO-8601 in UTC with a ``Z`` suffix, as Marquez (and pydantic) write instants.

    Called for every timestamp of every graph node, so it avoids needless conversions.
    """
    if value is None:
        return None
    offset = value.utcoffset()
    if offset:  # aware, not UTC
        value = value.astimezone(UTC)
    if value.tzinfo is not None:
        value = value.replace(tzinfo=None)
    return value.isoformat() + "Z"


def json_obj(value: Any) -> dict[str, Any]:
    """A JSON column's value as a dict (``{}`` for NULL or a non-object)."""
    return value if isinstance(value, dict) else {}


def chunks(values: Sequence[Any], size: int = 500) -> Iterable[Sequence[Any]]:
    """``values`` in slices of at most ``size`` (keeps IN lists within SQLite's parameter limit)."""
    for start in range(0, len(values), size):
        yield values[start : start + size]


def tag_names_by_owner(
    conn: Connection, owner: sa.Column[Any], ids: Sequence[int]
) -> dict[int, list[str]]:
    """Tag names (sorted) per owner id, through a link table's ``owner`` column (e.g.
    ``dataset_tags.c.dataset_id``, ``job_tags.c.job_id``) whose table also has ``tag_id``."""
    out: dict[int, list[str]] = {}
    for owner_id, name in conn.execute(_tags_query(owner), {"ids": list(ids)}).all():
        out.setdefault(owner_id, []).append(name)
    return out


@cache
def _tags_query(owner: sa.Column[Any]) -> sa.Select[Any]:
    link, t = owner.table, s.tags
    return (
        sa.select(owner.label("owner_id"), t.c.name)
        .join(t, t.c.id == link.c.tag_id)
        .where(in_ids(owner))
        .order_by(t.c.name)
    )


def namespace_row(
    conn: Connection, name: str, *, include_hidden: bool = False, visible_to: VisibleTo = None
) -> sa.Row[Any]:
    """The namespace called ``name``; :class:`NotFoundError` when it is missing, hidden, or one
    ``visible_to`` may not see."""
    n = s.namespaces
    query = sa.select(n).where(n.c.name == name, visible_namespaces(n.c.id, n.c.name, visible_to))
    row = conn.execute(query).first()
    if row is None or (row.is_hidden and not include_hidden):
        raise NotFoundError(f"namespace {name!r} not found")
    return row


def dataset_pk(
    conn: Connection,
    namespace: str,
    name: str,
    *,
    include_hidden: bool = False,
    visible_to: VisibleTo = None,
) -> int:
    """The id of dataset ``namespace``/``name``, also when it is named by one of its symlinks.

    A dataset ``visible_to`` may not see is reported missing (not forbidden: no existence leak).
    """
    d, n = s.datasets, s.namespaces
    query = (
        sa.select(d.c.id, d.c.is_hidden)
        .join(n, n.c.id == d.c.namespace_id)
        .where(n.c.name == namespace, d.c.name == name)
    )
    row = conn.execute(query).first()
    if row is None:
        link = s.dataset_symlinks
        query = (
            sa.select(d.c.id, d.c.is_hidden)
            .join(link, link.c.dataset_id == d.c.id)
            .where(link.c.namespace == namespace, link.c.name == name)
        )
        row = conn.execute(query).first()
    if (
        row is None
        or (row.is_hidden and not include_hidden)
        or not _visible(conn, visible_datasets(sa.literal(row.id, s.BigId), visible_to), visible_to)
    ):
        raise NotFoundError(f"dataset {name!r} not found in namespace {namespace!r}")
    return int(row.id)


def _visible(conn: Connection, condition: sa.ColumnElement[bool], visible_to: VisibleTo) -> bool:
    if visible_to is None:
        return True
    return conn.execute(sa.select(sa.literal(1)).where(condition)).first() is not None


def job_pk(
    conn: Connection,
    namespace: str,
    name: str,
    *,
    include_hidden: bool = False,
    visible_to: VisibleTo = None,
) -> int:
    """The id of job ``namespace``/``name`` (reported missing to a caller who may not see it)."""
    j, n = s.jobs, s.namespaces
    query = (
        sa.select(j.c.id, j.c.is_hidden)
        .join(n, n.c.id == j.c.namespace_id)
        .where(n.c.name == namespace, j.c.name == name)
    )
    row = conn.execute(query).first()
    hidden = row is not None and row.is_hidden and not include_hidden
    if row is None or hidden or (visible_to is not None and namespace not in visible_to):
        raise NotFoundError(f"job {name!r} not found in namespace {namespace!r}")
    return int(row.id)


def count(conn: Connection, query: sa.Select[Any]) -> int:
    """The number of rows ``query`` returns."""
    return int(conn.execute(sa.select(sa.func.count()).select_from(query.subquery())).scalar_one())
