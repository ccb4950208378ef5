"""``/alerts``: change alerts with their blast radius (issue 19), and acknowledging one.

A thin face over :mod:`plumbline.store.read.alerts`; a namespace-limited token sees the alerts of
its namespaces only."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Path, Query
from fastapi.responses import Response
from pydantic import StringConstraints

from plumbline.server.api.health_models import AlertList
from plumbline.server.api.lineage import GraphResponse
from plumbline.server.api.routing import (
    MAX_NAMESPACES,
    Namespace,
    ReadAccess,
    Reader,
    TheStore,
    Timestamp,
    WriteAccess,
    comma_list_pattern,
    make_router,
)
from plumbline.server.errors import APIError
from plumbline.store import utc
from plumbline.store.read import alerts
from plumbline.store.write import alert_rules
from plumbline.store.write import alerts as alert_writes

router = make_router("Alerts")

KINDS_TEXT = ", ".join(alert_rules.KINDS)
KINDS_PATTERN = comma_list_pattern(alert_rules.KINDS, spaces=True)


def parse_kinds(values: list[str] | None) -> list[str] | None:
    """Kinds from repeated or comma-separated values; 400 naming an unknown one."""
    if not values:
        return None
    kinds = [k.strip() for value in values for k in value.split(",") if k.strip()]
    for kind in kinds:
        if kind not in alert_rules.KINDS:
            raise APIError(400, f"unknown alert kind {kind!r}: expected one of {KINDS_TEXT}")
    return kinds


@router.get(
    "/alerts",
    response_model=AlertList,
    summary="Change alerts, newest first, each with its blast radius",
)
def list_alerts(
    *,
    conn: Reader,
    since: Annotated[
        Timestamp | None, Query(description="Only alerts seen at or after this time")
    ] = None,
    kind: Annotated[
        list[Annotated[str, StringConstraints(pattern=KINDS_PATTERN, max_length=200)]] | None,
        Query(
            max_length=20,  # a request that fits the server's request-line limit
            description=f"Only these kinds ({KINDS_TEXT}); repeatable or comma-separated",
        ),
    ] = None,
    namespace: Annotated[
        list[Namespace] | None,
        Query(max_length=MAX_NAMESPACES, description="Only alerts about these namespaces"),
    ] = None,
    acknowledged: Annotated[
        bool | None, Query(description="true: only acknowledged ones; false: only the others")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=alerts.MAX_LIMIT, description="At most this many")] = 100,
    principal: ReadAccess,
) -> Response:
    # answered as built (documented by AlertList, checked against it by the tests): validating
    # each alert again cost ~0.8 ms per alert listed (bench/alerts_list.py)
    return GraphResponse(
        {
            "alerts": alerts.list_alerts(
                conn,
                since=utc(since),
                kinds=parse_kinds(kind),
                namespaces=namespace,
                acknowledged=acknowledged,
                limit=limit,
                visible_to=principal.namespaces,
            )
        }
    )


@router.post(
    "/alerts/{id}/ack",
    response_model=AlertList,
    summary="Acknowledge an alert (plumbline check ignores it then)",
)
def ack_alert(
    *,
    id: Annotated[int, Path(ge=1, le=2**62, description="The alert's id")],  # noqa: A002
    store: TheStore,
    principal: WriteAccess,
) -> dict[str, Any]:
    alert_id = id
    with store.writing() as conn:
        visible = alerts.alert_visible(conn, alert_id, principal.namespaces)
        if not visible:  # a hidden one is not found either: its existence is not told
            raise APIError(404, f"alert {alert_id} not found")
        alert_writes.acknowledge(conn, alert_id, principal.name, datetime.now(UTC))
        return {"alerts": alerts.alerts_by_id(conn, [alert_id], principal.namespaces)}
