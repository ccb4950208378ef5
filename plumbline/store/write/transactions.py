"""What the store's writer threads share: a kept connection, retries of conflicting writes, and
taking a group of queued work."""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

logger = logging.getLogger(__name__)

# PostgreSQL SQLSTATEs worth retrying: deadlock_detected, serialization_failure
RETRYABLE_SQLSTATES = {"40P01", "40001"}
MAX_ATTEMPTS = 5

T = TypeVar("T")
W = TypeVar("W")


class KeptConnection:
    """A writer thread's own connection, kept while it has work: no pool checkout and no
    pre-ping round trip per transaction; replaced when the database dropped it."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._connection: Connection | None = None

    def get(self) -> Connection:
        connection = self._connection
        if connection is None or connection.closed or connection.invalidated:
            self.close()
            connection = self._connection = self.engine.connect()
        return connection

    def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except Exception:  # closing a broken connection: nothing left to release
                logger.debug("closing a writer's connection failed", exc_info=True)


def with_retries(write: Callable[[Connection], T], kept: KeptConnection) -> T:
    """``write(connection)`` (one transaction), run again on a deadlock or serialization
    failure (up to ``MAX_ATTEMPTS`` times) and once on a new connection when the database had
    dropped the kept one; other errors are raised."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return write(kept.get())
        except DBAPIError as exc:
            if exc.connection_invalidated:
                # the kept connection went away (database restart): a new one, once
                kept.close()
                if attempt == 1:
                    continue
                raise
            code = getattr(exc.orig, "sqlstate", None)
            if code not in RETRYABLE_SQLSTATES or attempt == MAX_ATTEMPTS:
                raise
            logger.info("write conflict (%s), retrying (attempt %d)", code, attempt)
            time.sleep(0.01 * attempt)
    raise AssertionError("unreachable")


def take_group(
    waiting: queue.SimpleQueue[W], first: W, size: Callable[[W], int], limit: int
) -> tuple[list[W], int]:
    """``first`` and what else is waiting in ``waiting``, until ``limit`` events are taken
    (the last item may pass it); the items and their number of events."""
    group, taken = [first], size(first)
    while taken < limit:
        try:
            item = waiting.get_nowait()
        except queue.Empty:
            break
        group.append(item)
        taken += size(item)
    return group, taken
