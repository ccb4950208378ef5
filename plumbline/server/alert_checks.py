"""Change alerts in a server process (issue 19): the normalizer completes the alerts it finds
(blast radius, run diff) right after its write commits, and a background thread runs the
freshness check every ``alert_check_seconds`` (and completes alerts a stopped process left)."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from sqlalchemy.engine import Connection

from plumbline.analysis.health import complete_alerts, complete_pending
from plumbline.server.settings import ServerSettings
from plumbline.store.write import StoreWriter
from plumbline.store.write.freshness import check_freshness

logger = logging.getLogger(__name__)


def install(writer: StoreWriter, settings: ServerSettings) -> None:
    """Detection with the server's thresholds, alerts completed once found."""
    writer.normalizer.alert_rules = settings.alerts
    writer.normalizer.on_alerts = complete_alerts


def check_once(writer: StoreWriter, settings: ServerSettings) -> int:
    """One freshness check (and completion of alerts left incomplete); new freshness alerts."""

    def work(conn: Connection) -> int:
        found = check_freshness(conn, settings.alerts, datetime.now(UTC))
        complete_pending(conn)
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
