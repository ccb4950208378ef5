"""Change alerts in a server process (issue 19): the normalizer completes the alerts it finds
(blast radius, run diff) right after its write commits and, in the same transaction, queues them
for the webhooks that want them (the forwarding outbox: retried, kept across restarts); a
background thread runs the freshness check every ``alert_check_seconds`` (and completes and
queues alerts a stopped process left)."""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy.engine import Connection

from plumbline.analysis.health import complete_alerts
from plumbline.server.outbox.worker import notify as wake_workers
from plumbline.server.settings import ServerSettings
from plumbline.store import outbox as queue
from plumbline.store.read import alerts as alert_reads
from plumbline.store.write import StoreWriter
from plumbline.store.write.freshness import check_freshness

NOTIFICATION_TYPE = "plumbline.alert"


def notification(alert: dict[str, Any]) -> bytes:
    """A webhook's JSON body: ``{"type": "plumbline.alert", "alert": {…as the alerts API}}``."""
    return json.dumps({"type": NOTIFICATION_TYPE, "alert": alert}, sort_keys=True).encode()


def complete_and_notify(conn: Connection, settings: ServerSettings, ids: list[int]) -> None:
    """Attach the alerts' blast radius, then queue each for the webhooks that want it (on
    ``conn``, in the caller's transaction: queued once completed, never lost in between)."""
    complete_alerts(conn, ids)
    if not settings.notify:
        return
    queued = 0
    for alert in alert_reads.alerts_by_id(conn, ids):
        keys = [t.key for t in settings.notify if t.wants(alert["kind"], alert["namespace"])]
        queued += queue.enqueue_rows(conn, keys, [(notification(alert), alert["runId"])])
    if queued:
        wake_workers()


logger = logging.getLogger(__name__)


def install(writer: StoreWriter, settings: ServerSettings) -> None:
    """Detection with the server's thresholds, alerts completed once found."""
    writer.normalizer.alert_rules = settings.alerts
    writer.normalizer.on_alerts = functools.partial(_complete_found, settings)


def _complete_found(settings: ServerSettings, conn: Connection, ids: list[int]) -> None:
    complete_and_notify(conn, settings, ids)


def check_once(writer: StoreWriter, settings: ServerSettings) -> int:
    """One freshness check (and completion of alerts left incomplete); new freshness alerts."""

    def work(conn: Connection) -> int:
        found = check_freshness(conn, settings.alerts, datetime.now(UTC))
        left = alert_reads.without_blast_radius(conn)  # the new ones, and any a stop left
        complete_and_notify(conn, settings, sorted(set(found) | set(left)))
        return len(found)

    return writer.normalizer.write_with(work)


@asynccontextmanager
async def background_checks(
    writer: StoreWriter | None, settings: ServerSettings
) -> AsyncIterator[None]:
    """Run :func:`check_once` every ``alert_check_seconds`` while the app runs."""
    if writer is None or not settings.alerts.enabled:
        yield
        return
    stopped = threading.Event()

    def loop() -> None:
        failing = False
        while not stopped.wait(settings.alert_check_seconds):
            try:
                found = check_once(writer, settings)
            except Exception as exc:  # the database out of reach: try again next time
                (logger.debug if failing else logger.warning)("alert check failed: %s", exc)
                failing = True
                continue
            failing = False
            if found:
                logger.info("freshness check: %d dataset(s) overdue", found)

    thread = threading.Thread(target=loop, name="plumbline-alert-checks", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stopped.set()
        thread.join(timeout=10)
