"""``GET /search``: datasets and jobs whose name contains a text (case-insensitive)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import iso, utc
from plumbline.store.read.nodeids import dataset_node, job_node
from plumbline.store.read.records import SearchPage, SearchResult
from plumbline.store.read.visibility import visible_datasets, visible_jobs


def _pattern(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _candidates(
    table: sa.Table,
    kind: str,
    q: str,
    namespace: str | None,
    before: datetime | None,
    after: datetime | None,
    visible_to: frozenset[str] | None,
) -> sa.Select[Any]:
    n = s.namespaces
    query = (
        sa.select(
            sa.literal(kind).label("type"),
            table.c.name,
            table.c.updated_at,
            n.c.name.label("namespace"),
        )
        .join(n, n.c.id == table.c.namespace_id)
        .where(
            sa.func.lower(table.c.name).like(_pattern(q), escape="\\"),
            table.c.is_hidden == sa.false(),
            n.c.is_hidden == sa.false(),
            visible_jobs(n.c.name, visible_to)
            if kind == "JOB"
            else visible_datasets(table.c.id, visible_to),
        )
    )
    if namespace is not None:
        query = query.where(n.c.name == namespace)
    if before is not None:
        query = query.where(table.c.updated_at < utc(before))
    if after is not None:
        query = query.where(table.c.updated_at > utc(after))
    return query


def search(
    conn: Connection,
    q: str,
    *,
    filter: str | None = None,
    sort: str = "NAME",
    limit: int = 10,
    namespace: str | None = None,
    before: datetime | None = None,
    after: datetime | None = None,
    visible_to: frozenset[str] | None = None,
) -> SearchPage:
    """``{"totalCount", "results": [{"type", "name", "updatedAt", "namespace", "nodeId"}]}``.

    ``filter`` is ``DATASET`` or ``JOB`` (None: both); ``sort`` is ``NAME`` or ``UPDATE_AT`` (newest
    first); ``visible_to`` limits the results to what a namespace-limited caller may see.
    """
    parts = []
    if filter in (None, "DATASET"):
        parts.append(_candidates(s.datasets, "DATASET", q, namespace, before, after, visible_to))
    if filter in (None, "JOB"):
        parts.append(_candidates(s.jobs, "JOB", q, namespace, before, after, visible_to))
    union = sa.union_all(*parts).subquery("matches")
    total = conn.execute(sa.select(sa.func.count()).select_from(union)).scalar_one()
    order = (
        (union.c.updated_at.desc(), union.c.name, union.c.type)
        if sort.upper() == "UPDATE_AT"
        else (union.c.name, union.c.type, union.c.namespace)
    )
    rows = conn.execute(sa.select(union).order_by(*order).limit(limit)).all()
    results: list[SearchResult] = [
        {
            "type": row.type,
            "name": row.name,
            "updatedAt": iso(row.updated_at),
            "namespace": row.namespace,
            "nodeId": (dataset_node if row.type == "DATASET" else job_node)(
                row.namespace, row.name
            ),
        }
        for row in rows
    ]
    return {"totalCount": int(total), "results": results}
