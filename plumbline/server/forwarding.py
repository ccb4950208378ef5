"""Durable pass-through to other OpenLineage backends (outbox worker) and `GET /api/v1/forwarding`.

Ingestion calls :func:`enqueue` in the transaction that stores the accepted events;
:func:`background_worker` runs one delivery thread per configured target for the app's lifetime.
Admins see per-target counts at ``GET /api/v1/forwarding`` and put dead events back in the queue
with ``POST /api/v1/forwarding/retry``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, FastAPI, Query, Request
from sqlalchemy.engine import Connection

from plumbline.openlineage.urls import redact_url, target_key
from plumbline.server import metrics
from plumbline.server.auth import Principal, require
from plumbline.server.errors import APIError
from plumbline.server.outbox.policy import OutboxPolicy
from plumbline.server.outbox.worker import TargetWorker, notify
from plumbline.server.settings import ForwardTarget, NotifyTarget, ServerSettings
from plumbline.store import outbox as queue

logger = logging.getLogger(__name__)

router = APIRouter(tags=["forwarding"])


def target_keys(settings: ServerSettings) -> list[str]:
    """The outbox key (credential-free lineage endpoint) of every configured target, once."""
    keys: list[str] = []
    for target in settings.forward:
        key = target_key(target.url)
        if key not in keys:
            keys.append(key)
    return keys


def enqueue(
    connection: Connection,
    settings: ServerSettings,
    accepted: Sequence[tuple[bytes, str | None]],
) -> None:
    """Write one outbox row per (accepted event, forward target) on ``connection``.

    Called by ingestion inside the transaction that stores the events, so an event is either
    stored and queued for every target, or neither. ``accepted`` holds each event's body as
    received (one JSON document, uncompressed) and its run id.
    """
    if not settings.forward or not accepted:
        return
    queue.enqueue_rows(connection, target_keys(settings), accepted)
    notify()


def outbox_policy(app: FastAPI) -> OutboxPolicy:
    """The app's retry policy (its settings')."""
    settings: ServerSettings = app.state.settings
    return settings.outbox


@asynccontextmanager
async def background_worker(app: FastAPI) -> AsyncIterator[None]:
    """Run the outbox delivery workers (one thread per target) for the lifetime of the app."""
    settings: ServerSettings = app.state.settings
    workers: list[TargetWorker] = []
    seen: set[str] = set()
    targets: list[ForwardTarget | NotifyTarget] = [*settings.forward, *settings.notify]
    for target in targets:
        worker = TargetWorker(
            app.state.store, target, lambda: outbox_policy(app), metrics.record_delivery
        )
        if worker.key in seen:
            continue
        seen.add(worker.key)
        worker.start()
        workers.append(worker)
        what = "change alerts" if target in settings.notify else "accepted events"
        logger.info("forwarding %s to %s", what, worker.shown)
    try:
        yield
    finally:
        for worker in workers:
            worker.stop()


@router.get("/api/v1/forwarding")
def forwarding_status(
    request: Request,
    principal: Annotated[Principal, Depends(require("admin"))],
    limit: Annotated[int, Query(ge=0, le=1000, description="How many dead events to list.")] = 100,
) -> dict[str, Any]:
    """Pending, delivered and dead events per target, and the newest dead events."""
    principal.check_global("the forwarding outbox")
    settings: ServerSettings = request.app.state.settings
    configured = target_keys(settings) + [t.key for t in settings.notify]
    now = queue.utcnow()
    with request.app.state.store.connection() as connection:
        summaries = {s.target: s for s in queue.summarize(connection)}
        dead = queue.dead_rows(connection, limit) if limit else []
    targets = []
    for key in configured + sorted(set(summaries) - set(configured)):
        summary = summaries.get(key) or queue.TargetSummary(key, 0, 0, 0, None)
        targets.append(
            {
                "target": redact_url(key),
                "configured": key in configured,
                "pending": summary.pending,
                "delivered": summary.delivered,
                "dead": summary.dead,
                "oldestPendingAt": _iso(summary.oldest_pending_at),
                "lagSeconds": round(summary.lag_seconds(now), 3),
            }
        )
    return {
        "targets": targets,
        "deadEvents": [
            {
                "id": row["id"],
                "target": redact_url(row["target"]),
                "runId": row["run_uuid"],
                "attempts": row["attempts"],
                "lastError": row["last_error"],
                "createdAt": _iso(row["created_at"]),
            }
            for row in dead
        ],
    }


@router.post("/api/v1/forwarding/retry")
def retry_dead_events(
    request: Request,
    principal: Annotated[Principal, Depends(require("admin"))],
    body: Annotated[
        dict[str, Any] | None,
        Body(
            description='Optional {"target": URL, "ids": [id, …]}: which dead events (default all).'
        ),
    ] = None,
) -> dict[str, int]:
    """Put dead events back in the queue, due now, with their attempt count reset."""
    principal.check_global("the forwarding outbox")
    body = body or {}
    target = body.get("target")
    ids = body.get("ids") or []
    if target is not None and not isinstance(target, str):
        raise APIError(400, "target must be a URL string")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise APIError(400, "ids must be a list of integers")
    try:
        key = target_key(target) if target else None
    except ValueError as exc:
        raise APIError(400, str(exc)) from exc
    with request.app.state.store.writing() as connection:
        count = queue.retry_dead(connection, key, ids)
    notify()
    logger.info("retrying %d dead outbox events", count)
    return {"retried": count}


def _iso(value: Any) -> str | None:
    if value is None:
        return None
    return queue.as_utc(value).isoformat()
