"""``/coverage``: what plumbline knows and what it does not, per namespace (issue 19).

A thin face over :func:`plumbline.analysis.health.coverage_report`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import Query

from plumbline.analysis.health import coverage_report
from plumbline.server.api.health_models import Coverage
from plumbline.server.api.routing import ReadAccess, Reader, Timestamp, make_router
from plumbline.store import utc

router = make_router("Coverage")

DEFAULT_WINDOW = timedelta(days=7)


@router.get(
    "/coverage",
    response_model=Coverage,
    summary="Lineage coverage overall and per namespace, over a window",
    description="Datasets read with no known producer; outputs without a schema or without "
    "column lineage, and the share of output fields with it; runs with a START and no end; runs "
    "whose events failed normalization; producers seen with their event counts. `since` "
    "(default 7 days ago) is event time for every measure (the events' eventTime), not "
    "receipt time.",
)
def get_coverage(
    *,
    conn: Reader,
    since: Annotated[
        Timestamp | None, Query(description="Window start, in event time (default: 7 days ago)")
    ] = None,
    namespace: Annotated[
        str | None, Query(max_length=1024, description="Only this namespace")
    ] = None,
    principal: ReadAccess,
) -> dict[str, Any]:
    start = utc(since) or datetime.now(UTC) - DEFAULT_WINDOW
    if namespace is not None:
        principal.check_namespace(namespace)
    return coverage_report(conn, start, namespace, principal.namespaces)
