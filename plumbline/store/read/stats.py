"""``GET /stats/{lineage-events,jobs,datasets,sources}``: the dashboard counts, per hour over the last
day (``DAY``) or per local day over the last week (``WEEK``, in ``timezone``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import iso
from plumbline.store.read.errors import InvalidArgumentError
from plumbline.store.read.namespaces import visible_sources
from plumbline.store.read.records import IntervalMetric, LineageMetric
from plumbline.store.read.visibility import VisibleTo, visible_datasets, visible_job_id

PERIODS = ("DAY", "WEEK")
_EVENT_TYPES = {"fail": "FAIL", "start": "START", "complete": "COMPLETE", "abort": "ABORT"}


def buckets(
    period: str, timezone: str | None, now: datetime | None = None
) -> list[tuple[datetime, datetime]]:
    """The (start, end) intervals of ``period`` ending with the current hour or local day, in UTC."""
    try:
        zone = ZoneInfo(timezone) if timezone else UTC
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidArgumentError(f"unknown timezone {timezone!r}") from exc
    local_now = (now or datetime.now(UTC)).astimezone(zone)
    if period == "DAY":
        top = local_now.replace(minute=0, second=0, microsecond=0).astimezone(UTC)
        starts = [top - timedelta(hours=23 - i) for i in range(24)]
        return [(start, start + timedelta(hours=1)) for start in starts]
    if period == "WEEK":
        today = local_now.date()
        days = [today - timedelta(days=6 - i) for i in range(8)]
        edges = [datetime(d.year, d.month, d.day, tzinfo=zone).astimezone(UTC) for d in days]
        return list(zip(edges[:-1], edges[1:], strict=True))
    raise InvalidArgumentError(f"period must be one of {', '.join(PERIODS)}, not {period!r}")


def _intervals(spans: list[tuple[datetime, datetime]]) -> sa.CTE:
    """The intervals as a small table ``(i, start_at, end_at)`` (a UNION ALL of bound rows)."""
    rows = [
        sa.select(
            sa.literal(i, sa.Integer).label("i"),
            sa.literal(start, s.Timestamp).label("start_at"),
            sa.literal(end, s.Timestamp).label("end_at"),
        )
        for i, (start, end) in enumerate(spans)
    ]
    return sa.union_all(*rows).cte("intervals")


def lineage_event_stats(
    conn: Connection,
    period: str,
    timezone: str | None,
    now: datetime | None = None,
    visible_to: VisibleTo = None,
) -> list[LineageMetric]:
    """``[{"startInterval", "endInterval", "fail", "start", "complete", "abort"}]`` per interval."""
    spans = buckets(period, timezone, now)
    iv, e = _intervals(spans), s.lineage_events
    sums = [
        sa.func.coalesce(sa.func.sum(sa.case((e.c.event_type == event_type, 1), else_=0)), 0).label(
            key
        )
        for key, event_type in _EVENT_TYPES.items()
    ]
    query = (
        sa.select(iv.c.i, *sums)
        .select_from(iv)
        .outerjoin(
            e,
            sa.and_(
                e.c.event_time >= iv.c.start_at,
                e.c.event_time < iv.c.end_at,
                sa.true() if visible_to is None else e.c.job_namespace.in_(sorted(visible_to)),
            ),
        )
        .group_by(iv.c.i)
        .order_by(iv.c.i)
    )
    rows = {row.i: row for row in conn.execute(query)}
    return [
        cast(
            LineageMetric,
            {
                "startInterval": iso(start),
                "endInterval": iso(end),
                **{key: int(getattr(rows[i], key)) for key in _EVENT_TYPES},
            },
        )
        for i, (start, end) in enumerate(spans)
    ]


_TABLES = {"jobs": s.jobs, "datasets": s.datasets, "sources": s.sources}
_VISIBLE = {"jobs": visible_job_id, "datasets": visible_datasets, "sources": visible_sources}


def growth_stats(
    conn: Connection,
    what: str,
    period: str,
    timezone: str | None,
    now: datetime | None = None,
    visible_to: VisibleTo = None,
) -> list[IntervalMetric]:
    """``[{"startInterval", "endInterval", "count"}]``: how many ``what`` (jobs, datasets, sources)
    existed at the end of each interval (cumulative, as Marquez counts them)."""
    spans = buckets(period, timezone, now)
    iv, table = _intervals(spans), _TABLES[what]
    query = (
        sa.select(iv.c.i, sa.func.count(table.c.id).label("n"))
        .select_from(iv)
        .outerjoin(
            table, sa.and_(table.c.created_at < iv.c.end_at, _VISIBLE[what](table.c.id, visible_to))
        )
        .group_by(iv.c.i)
        .order_by(iv.c.i)
    )
    rows = {row.i: int(row.n) for row in conn.execute(query)}
    return [
        {"startInterval": iso(start), "endInterval": iso(end), "count": rows[i]}
        for i, (start, end) in enumerate(spans)
    ]
