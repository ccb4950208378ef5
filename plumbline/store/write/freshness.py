"""Freshness alerts (issue 19): a dataset not written within its usual interval. Found by a
periodic check, not as events arrive (it fires when events are missing): each dataset's last
writes by COMPLETE runs (event times), the median interval between them, and how long since the
last one. One alert per late write (the same lateness is not reported twice)."""

from __future__ import annotations

import statistics
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.read.common import iso
from plumbline.store.read.nodeids import dataset_node
from plumbline.store.schema import datasets, namespaces, run_io, runs
from plumbline.store.write.alert_rules import AlertRules
from plumbline.store.write.alerts import NewAlert, insert_alerts
from plumbline.store.write.context import as_utc


def check_freshness(connection: Connection, rules: AlertRules, now: datetime) -> list[int]:
    """Store a freshness alert for each dataset overdue at ``now``; the ids of the new ones."""
    if not rules.enabled:
        return []
    ranked = (
        sa.select(
            run_io.c.dataset_id,
            runs.c.uuid,
            runs.c.ended_at,
            sa.func.row_number()
            .over(partition_by=run_io.c.dataset_id, order_by=runs.c.ended_at.desc())
            .label("rn"),
        )
        .join(runs, runs.c.id == run_io.c.run_id)
        .where(
            run_io.c.direction == "output",
            runs.c.current_state == "COMPLETE",
            runs.c.ended_at.is_not(None),
        )
        .subquery()
    )
    rows = connection.execute(
        sa.select(
            ranked.c.dataset_id,
            ranked.c.uuid,
            ranked.c.ended_at,
            namespaces.c.name.label("ns"),
            datasets.c.name,
        )
        .join(datasets, datasets.c.id == ranked.c.dataset_id)
        .join(namespaces, namespaces.c.id == datasets.c.namespace_id)
        .where(ranked.c.rn <= rules.history_runs + 1, datasets.c.is_hidden.is_(False))
        .order_by(ranked.c.dataset_id, ranked.c.ended_at.desc())
    )
    writes: dict[int, list[tuple[datetime, str, str, str]]] = {}
    for row in rows:
        ended = as_utc(row.ended_at)
        writes.setdefault(row.dataset_id, []).append((ended, row.uuid, row.ns, row.name))
    found = []
    for history in writes.values():
        found.extend(_overdue(history, rules, now))
    return insert_alerts(connection, found, now)


def _overdue(
    history: list[tuple[datetime, str, str, str]], rules: AlertRules, now: datetime
) -> list[NewAlert]:
    times = sorted({ended for ended, *_ in history}, reverse=True)
    intervals = [(a - b).total_seconds() for a, b in zip(times, times[1:], strict=False)]
    if len(intervals) < rules.min_history:
        return []
    usual = statistics.median(intervals)
    last, run_uuid, ns, name = max(history)
    late = (now - last).total_seconds()
    if usual <= 0 or late <= rules.freshness_factor * usual:
        return []
    details = {
        "lastWrite": iso(last),
        "usualIntervalSeconds": usual,
        "secondsSinceLastWrite": late,
        "writes": len(times),
    }
    subject = dataset_node(ns, name)
    return [NewAlert("freshness", ns, subject, iso(last) or "", run_uuid, details)]
