"""The delivery loop: one thread per forward target, all state in the outbox table.

Each round claims due rows (see :func:`queue.claimed`), posts them in order, and records every
outcome. On PostgreSQL a round runs in one transaction holding the claimed rows' locks; on SQLite
(one server per file) rows are read, posted, then updated in a short write transaction so ingestion
is never blocked behind an HTTP call (the store decides which). A crash between a post and its record only causes a
redelivery of that same event: delivery is at least once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from sqlalchemy.engine import Connection

from plumbline.server.outbox.delivery import DeliveryResult, TargetClient
from plumbline.server.outbox.policy import OutboxPolicy
from plumbline.server.settings import ForwardTarget, NotifyTarget
from plumbline.store import Store
from plumbline.store import outbox as queue

logger = logging.getLogger(__name__)

_PRUNE_EVERY_S = 300.0

# wakes every worker in this process when events were enqueued
_wakeups: set[threading.Event] = set()
_wakeups_lock = threading.Lock()


def notify() -> None:
    """Tell the workers of this process that new rows may be due."""
    with _wakeups_lock:
        for event in _wakeups:
            event.set()


class TargetWorker:
    """Delivers one target's outbox rows until :meth:`stop`."""

    def __init__(
        self,
        store: Store,
        target: ForwardTarget | NotifyTarget,
        policy: Callable[[], OutboxPolicy],
        on_outcome: Callable[[str, str], None] | None = None,
    ) -> None:
        self.store = store
        self.key = target.key  # credentials stay in the settings, not in rows
        self.shown = self.key
        self._target = target
        self._policy = policy
        self._on_outcome = on_outcome or (lambda _target, _outcome: None)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._pool = ThreadPoolExecutor(
            max_workers=policy().concurrency, thread_name_prefix=f"plumbline-outbox {self.shown}"
        )
        self._thread = threading.Thread(
            target=self._run, name=f"plumbline-outbox {self.shown}", daemon=True
        )

    def start(self) -> None:
        with _wakeups_lock:
            _wakeups.add(self._wake)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)
        with _wakeups_lock:
            _wakeups.discard(self._wake)

    def _run(self) -> None:
        policy = self._policy()
        client = TargetClient(self._target, policy.request_timeout_s)
        next_prune = 0.0
        try:
            while not self._stop.is_set():
                if time.monotonic() >= next_prune:
                    next_prune = time.monotonic() + _PRUNE_EVERY_S
                    self._prune()
                try:
                    busy = self.run_once(client)
                except Exception:
                    logger.exception("outbox round for %s failed; retrying shortly", self.shown)
                    busy = False
                if not busy:
                    self._wake.wait(self._policy().poll_interval_s)
                    if self._wake.is_set():
                        self._wake.clear()
                        # the enqueuing transaction commits just after it notifies
                        self._stop.wait(0.02)
        finally:
            self._pool.shutdown(wait=True)
            client.close()

    def _prune(self) -> None:
        retention = timedelta(seconds=self._policy().delivered_retention_s)
        try:
            with self.store.writing() as connection:
                pruned = queue.prune_delivered(connection, self.key, retention)
        except Exception:
            logger.warning("could not prune delivered outbox rows of %s", self.shown, exc_info=True)
            return
        if pruned:
            logger.info("pruned %d delivered outbox rows of %s", pruned, self.shown)

    def run_once(self, client: TargetClient) -> bool:
        """One round: deliver what is due; True when there may be more right away."""
        policy = self._policy()
        with queue.claimed(self.store, self.key, policy.batch_size) as (connection, rows):
            self._deliver(connection, client, rows, policy)
        return len(rows) >= policy.batch_size

    def _send_in_order(
        self, client: TargetClient, rows: list[queue.OutboxRow]
    ) -> list[tuple[queue.OutboxRow, DeliveryResult]]:
        """Send one run's rows in order, stopping at the first failure (the rest waits)."""
        outcomes: list[tuple[queue.OutboxRow, DeliveryResult]] = []
        for row in rows:
            if self._stop.is_set():
                break
            result = client.deliver(row.body)
            outcomes.append((row, result))
            if not result.delivered:
                break
        return outcomes

    def _deliver(
        self,
        connection: Connection,
        client: TargetClient,
        rows: list[queue.OutboxRow],
        policy: OutboxPolicy,
    ) -> None:
        outcomes: list[tuple[queue.OutboxRow, DeliveryResult]] = []
        for group_outcomes in self._pool.map(
            lambda group: self._send_in_order(client, group), _by_run(rows)
        ):
            outcomes += group_outcomes
        delivered = [row.id for row, result in outcomes if result.delivered]
        queue.mark_delivered(connection, delivered)
        for _ in delivered:
            self._on_outcome(self.key, queue.DELIVERED)
        for row, result in outcomes:
            if result.delivered:
                continue
            final = not result.retryable or row.attempts + 1 >= policy.max_attempts
            retry_in = None if final else policy.backoff(row.attempts + 1)
            status = queue.mark_failed(connection, row, result.error or "failed", retry_in)
            self._on_outcome(self.key, "failed" if status == queue.PENDING else queue.DEAD)
            log = logger.warning if status == queue.DEAD else logger.info
            log(
                "forwarding event %d to %s failed (attempt %d): %s%s",
                row.id,
                self.shown,
                row.attempts + 1,
                result.error,
                "; giving up (dead)" if status == queue.DEAD else "",
            )


def _by_run(rows: list[queue.OutboxRow]) -> list[list[queue.OutboxRow]]:
    """Rows grouped by run id in acceptance order (a row without a run id is a group of its own)."""
    groups: dict[object, list[queue.OutboxRow]] = {}
    for row in rows:
        groups.setdefault(row.run_uuid if row.run_uuid is not None else ("id", row.id), []).append(
            row
        )
    return list(groups.values())
