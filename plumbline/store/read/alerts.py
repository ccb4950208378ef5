"""Reads of change alerts (issue 19): the list the API, the UI and ``plumbline check`` show, and the
alerts whose blast radius is still to compute."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.read.common import iso, json_obj
from plumbline.store.read.screen import visible_node_ids
from plumbline.store.read.visibility import VisibleTo
from plumbline.store.schema import alerts

MAX_LIMIT = 10_000


def _document(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "kind": row.kind,
        "seenAt": iso(row.seen_at),
        "runId": row.run_uuid,
        "subject": row.subject,
        "namespace": row.namespace,
        "details": json_obj(row.details),
        "blastRadius": row.blast_radius,
        "acknowledgedAt": iso(row.acknowledged_at),
        "acknowledgedBy": row.acknowledged_by,
    }


def list_alerts(
    conn: Connection,
    *,
    since: datetime | None = None,
    kinds: Sequence[str] | None = None,
    namespaces: Sequence[str] | None = None,
    acknowledged: bool | None = None,
    limit: int = 100,
    visible_to: VisibleTo = None,
) -> list[dict[str, Any]]:
    """Alerts, newest first, at most ``limit``; filters: seen at or after ``since``, of these
    ``kinds``, about these ``namespaces``, acknowledged or not."""
    statement = sa.select(alerts).order_by(alerts.c.id.desc())  # ids grow with seen_at
    if since is not None:
        statement = statement.where(alerts.c.seen_at >= since)
    if kinds:
        statement = statement.where(alerts.c.kind.in_(sorted(set(kinds))))
    if namespaces:
        statement = statement.where(alerts.c.namespace.in_(sorted(set(namespaces))))
    if visible_to is not None:
        statement = statement.where(alerts.c.namespace.in_(sorted(visible_to)))
    if acknowledged is not None:
        ack = alerts.c.acknowledged_at
        statement = statement.where(ack.is_not(None) if acknowledged else ack.is_(None))
    rows = conn.execute(statement.limit(max(0, min(limit, MAX_LIMIT))))
    docs = [_document(row) for row in rows]
    if visible_to is not None:
        _screen_blast_radius(conn, docs, visible_to)
    return docs


def _screen_blast_radius(
    conn: Connection, docs: list[dict[str, Any]], visible_to: frozenset[str]
) -> None:
    """Keep, in each alert's blast radius, the nodes the caller may see (as ``/impact`` does),
    counted again; ``truncated`` when the radius reached more than it lists (the others are not
    known to be visible, so they are not counted)."""
    radii = [doc["blastRadius"] for doc in docs if isinstance(doc["blastRadius"], dict)]
    listed = {str(n.get("id")) for r in radii for n in r.get("nodes") or [] if isinstance(n, dict)}
    seen = visible_node_ids(conn, listed, visible_to)
    kinds = {"datasets": "DATASET", "jobs": "JOB", "fields": "DATASET_FIELD"}
    for doc in docs:
        radius = doc["blastRadius"]
        if not isinstance(radius, dict):
            continue
        nodes = [n for n in radius.get("nodes") or [] if isinstance(n, dict)]
        complete = len(nodes) == sum(int(radius.get(k) or 0) for k in kinds)
        kept = [n for n in nodes if str(n.get("id")) in seen]
        screened = {**radius, "nodes": kept}
        for key, kind in kinds.items():
            screened[key] = sum(1 for n in kept if n.get("type") == kind)
        screened["truncated"] = bool(radius.get("truncated")) or not complete
        doc["blastRadius"] = screened


def alerts_by_id(
    conn: Connection, ids: Sequence[int], visible_to: VisibleTo = None
) -> list[dict[str, Any]]:
    """These alerts (those that exist), by id."""
    if not ids:
        return []
    rows = conn.execute(sa.select(alerts).where(alerts.c.id.in_(sorted(ids))).order_by(alerts.c.id))
    docs = [_document(row) for row in rows]
    if visible_to is not None:
        _screen_blast_radius(conn, docs, visible_to)
    return docs


def without_blast_radius(conn: Connection, limit: int = 100) -> list[int]:
    """Alerts whose blast radius is still to compute (their write committed, the step after it
    did not run: a stopped process), oldest first."""
    return list(
        conn.execute(
            sa.select(alerts.c.id)
            .where(alerts.c.blast_radius.is_(None))
            .order_by(alerts.c.id)
            .limit(limit)
        ).scalars()
    )


def alert_visible(conn: Connection, alert_id: int, visible_to: VisibleTo) -> bool | None:
    """Whether the caller may see this alert; None when it does not exist."""
    namespace = conn.execute(
        sa.select(alerts.c.namespace).where(alerts.c.id == alert_id)
    ).scalar_one_or_none()
    if namespace is None:
        return None
    return visible_to is None or namespace in visible_to
