"""``GET /events/lineage``: the raw OpenLineage events received, filtered by time and paged."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import count, utc
from plumbline.store.read.records import EventPage
from plumbline.store.read.screen import screen_facets


def list_lineage_events(
    conn: Connection,
    *,
    before: datetime | None,
    after: datetime | None,
    sort_direction: str,
    limit: int,
    offset: int,
    namespace: str | None = None,
    visible_to: frozenset[str] | None = None,
) -> EventPage:
    """Events with ``after <= eventTime <= before``, sorted by event time (``desc`` by default):
    ``{"events": [event…], "totalCount"}``."""
    e = s.lineage_events
    base = sa.select(e.c.id, e.c.event_time, e.c.payload)
    if before is not None:
        base = base.where(e.c.event_time <= utc(before))
    if after is not None:
        base = base.where(e.c.event_time >= utc(after))
    if namespace is not None:
        base = base.where(_in_namespaces([namespace]))
    if visible_to is not None:
        base = base.where(_in_namespaces(sorted(visible_to)))
    order = (
        (e.c.event_time.asc(), e.c.id.asc())
        if sort_direction.lower() == "asc"
        else (e.c.event_time.desc(), e.c.id.desc())
    )
    rows = conn.execute(base.order_by(*order).limit(limit).offset(offset)).all()
    payloads = [row.payload for row in rows]
    if visible_to is not None:
        screen_facets(conn, _datasets_of(payloads), visible_to)
    return {"events": payloads, "totalCount": count(conn, base)}


def _datasets_of(payloads: list[Any]) -> list[dict[str, Any]]:
    """The dataset objects (with facets) of these events, to screen in place."""
    found: list[dict[str, Any]] = []
    for payload in payloads:
        if not isinstance(payload, dict):
            continue
        for key in ("inputs", "outputs", "dataset"):
            value = payload.get(key)
            items = [value] if isinstance(value, dict) else value if isinstance(value, list) else []
            found += [i for i in items if isinstance(i, dict) and isinstance(i.get("facets"), dict)]
    return found


def _in_namespaces(names: list[str]) -> sa.ColumnElement[bool]:
    """Events of these namespaces: a job's, or for a DatasetEvent (no job) its dataset's, the
    namespace its write was authorized against."""
    e = s.lineage_events
    dataset_namespace = e.c.payload["dataset"]["namespace"].as_string()
    return sa.or_(
        e.c.job_namespace.in_(names),
        sa.and_(e.c.kind == "DatasetEvent", dataset_namespace.in_(names)),
    )
