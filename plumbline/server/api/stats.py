"""``/stats/…``: the dashboard's counts per hour (``DAY``) or per local day (``WEEK``).

A namespace-limited token counts only what it may see: its namespaces' events and jobs, the datasets
those jobs touch, and their sources."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Annotated, Literal
from zoneinfo import available_timezones

from fastapi import Query

from plumbline.server.api.models import IntervalMetric, LineageMetric
from plumbline.server.api.routing import ReadAccess, Reader, make_router
from plumbline.store.read import records, stats

router = make_router("Stats")

PeriodParam = Annotated[
    Literal["DAY", "WEEK"],
    Query(description="DAY: 24 hourly intervals; WEEK: 7 daily intervals"),
]
# the IANA zones this machine knows, as an enum: /openapi.json lists them once (components)
TimeZone = Enum(  # type: ignore[misc]
    "TimeZone", {zone: zone for zone in sorted(available_timezones())}, type=str
)
TimezoneParam = Annotated[
    TimeZone | None, Query(description="IANA time zone of the intervals (default UTC)")
]


def _zone(timezone: Enum | None) -> str | None:
    return None if timezone is None else str(timezone.value)


@router.get(
    "/stats/lineage-events",
    response_model=list[LineageMetric],
    summary="Events received per interval, by event type",
)
def lineage_events(
    *,
    conn: Reader,
    period: PeriodParam,
    timezone: TimezoneParam = None,
    principal: ReadAccess,
) -> list[records.LineageMetric]:
    return stats.lineage_event_stats(conn, period, _zone(timezone), visible_to=principal.namespaces)


def _growth(what: str) -> Callable[..., list[records.IntervalMetric]]:
    def route(
        *,
        conn: Reader,
        period: PeriodParam,
        timezone: TimezoneParam = None,
        principal: ReadAccess,
    ) -> list[records.IntervalMetric]:
        return stats.growth_stats(
            conn, what, period, _zone(timezone), visible_to=principal.namespaces
        )

    route.__name__ = f"{what}_stats"
    return route


for _what in ("jobs", "datasets", "sources"):
    router.add_api_route(
        f"/stats/{_what}",
        _growth(_what),
        methods=["GET"],
        response_model=list[IntervalMetric],
        summary=f"How many {_what} existed at the end of each interval",
    )
