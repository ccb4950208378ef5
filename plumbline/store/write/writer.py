"""The single entry point of the write path: writer threads per store, group commit.

Every write request (one HTTP request's events) is queued to one of the store's writer threads
(lanes): one on SQLite, its single writer; two on PostgreSQL by default
(``PLUMBLINE_WRITER_THREADS``), where a write locks only the rows it changes, so that one lane's
Python work overlaps the other's time in the database. A request goes to the lane of its first
event's job: a run's START and COMPLETE, sent by different clients at once, are then grouped
into one transaction instead of two waiting on each other's locks. A lane takes whatever
requests are waiting (up to ``MAX_GROUP_EVENTS`` events) and writes them in one transaction:
many small requests cost about what one batch costs. Each request still gets its own result
and its own ``on_stored`` call inside the transaction. If a group fails, its requests are retried
one by one, so one bad request never takes others down; PostgreSQL deadlocks and serialization
failures are retried. The writer's cache (:mod:`plumbline.store.write.cache`) learns what each
committed group stored.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
import weakref
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from plumbline.openlineage import ParsedEvent
from plumbline.store.errors import StoreError
from plumbline.store.write.cache import WriteCache
from plumbline.store.write.events import store_raw_events
from plumbline.store.write.normalize import normalize

logger = logging.getLogger(__name__)

# PostgreSQL SQLSTATEs worth retrying: deadlock_detected, serialization_failure
_RETRYABLE = {"40P01", "40001"}
MAX_ATTEMPTS = 5
MAX_GROUP_EVENTS = 1000
IDLE_SECONDS = (
    10.0  # the writer thread ends after this long without work (a new one starts on demand)
)

OnStored = Callable[[Connection, list[ParsedEvent]], None]


@dataclass(frozen=True)
class WriteResult:
    """What a write did: the events newly stored, and how many were already there."""

    stored: list[ParsedEvent]
    duplicates: int


@dataclass
class _Request:
    events: list[ParsedEvent]
    token_name: str | None
    on_stored: OnStored | None
    future: Future[WriteResult] = field(default_factory=Future)


class _KeptConnection:
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


class _Lane:
    """One writer thread's queue; the thread runs while the queue has work."""

    def __init__(self) -> None:
        self.queue: queue.SimpleQueue[_Request] = queue.SimpleQueue()
        self.running = False
        self.lock = threading.Lock()


class StoreWriter:
    """Writes validated events into the store. One per engine (see :func:`writer_for`)."""

    def __init__(self, engine: Engine, threads: int | None = None) -> None:
        self.engine = engine
        self._lanes = [_Lane() for _ in range(threads or default_writer_threads(engine))]
        self.cache = WriteCache()

    def write(
        self,
        events: list[ParsedEvent],
        *,
        token_name: str | None = None,
        on_stored: OnStored | None = None,
    ) -> WriteResult:
        """Store ``events`` (raw and normalized) in one transaction; duplicates are skipped.

        ``on_stored(connection, stored)`` runs inside the same transaction (e.g. to queue the
        events for forwarding), so either everything is written or nothing. Blocks until done;
        raises what the write raised.
        """
        request = _Request(list(events), token_name, on_stored)
        lane = self._lanes[_lane_of(request.events, len(self._lanes))]
        lane.queue.put(request)
        with lane.lock:
            if not lane.running:
                lane.running = True
                threading.Thread(
                    target=self._run, args=(lane,), name="plumbline-store-writer", daemon=True
                ).start()
        return request.future.result()

    def _run(self, lane: _Lane) -> None:
        kept = _KeptConnection(self.engine)
        while True:
            try:
                first = lane.queue.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with lane.lock:
                    if lane.queue.empty():
                        lane.running = False
                        kept.close()
                        return
                continue
            group = [first]
            size = len(group[0].events)
            while size < MAX_GROUP_EVENTS:
                try:
                    request = lane.queue.get_nowait()
                except queue.Empty:
                    break
                group.append(request)
                size += len(request.events)
            self._serve(group, kept)

    def _serve(self, group: list[_Request], kept: _KeptConnection) -> None:
        try:
            results = self._with_retries(group, kept)
        except Exception as exc:
            if len(group) == 1:
                group[0].future.set_exception(exc)
                return
            logger.info(
                "a group of %d writes failed (%s); writing them one by one", len(group), exc
            )
            for request in group:
                self._serve([request], kept)
            return
        for request, result in zip(group, results, strict=True):
            request.future.set_result(result)

    def _with_retries(self, group: list[_Request], kept: _KeptConnection) -> list[WriteResult]:
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                return self._write_group(group, kept.get())
            except DBAPIError as exc:
                if exc.connection_invalidated:
                    # the kept connection went away (database restart): a new one, once
                    kept.close()
                    if attempt == 1:
                        continue
                    raise
                code = getattr(exc.orig, "sqlstate", None)
                if code not in _RETRYABLE or attempt == MAX_ATTEMPTS:
                    raise
                logger.info("write conflict (%s), retrying (attempt %d)", code, attempt)
                time.sleep(0.01 * attempt)
        raise AssertionError("unreachable")

    def _write_group(self, group: list[_Request], connection: Connection) -> list[WriteResult]:
        now = datetime.now(UTC)
        with connection.begin():
            stored = store_raw_events(
                connection, [(request.events, request.token_name) for request in group], now
            )
            learned = normalize(
                connection, [event for events in stored for event in events], self.cache
            )
            for request, events in zip(group, stored, strict=True):
                if request.on_stored is not None and events:
                    request.on_stored(connection, events)
        self.cache.learn(learned)  # only what committed
        return [
            WriteResult(stored=events, duplicates=len(request.events) - len(events))
            for request, events in zip(group, stored, strict=True)
        ]


def _lane_of(events: list[ParsedEvent], lanes: int) -> int:
    """The lane of a request: by the job of its first event, so that the events of one job (a
    run's START and COMPLETE, say) are grouped into one write rather than two writes waiting on
    each other's row locks, while writes of different jobs run side by side."""
    if lanes == 1:
        return 0
    for parsed in events:
        job = getattr(parsed.event, "job", None)
        if job is not None:
            return zlib.crc32(f"{job.namespace}\x00{job.name}".encode()) % lanes
    return 0


def default_writer_threads(engine: Engine) -> int:
    """Writer threads per store: one on SQLite (its single writer), two on PostgreSQL, whose
    writes of different datasets run side by side (``PLUMBLINE_WRITER_THREADS`` overrides)."""
    if engine.dialect.name == "sqlite":
        return 1
    configured = os.environ.get("PLUMBLINE_WRITER_THREADS", "2").strip()
    if not configured.isdigit() or int(configured) < 1:
        raise StoreError(
            f"PLUMBLINE_WRITER_THREADS must be a whole number of at least 1, not {configured!r}"
        )
    return int(configured)


_writers: weakref.WeakKeyDictionary[Engine, StoreWriter] = weakref.WeakKeyDictionary()
_writers_lock = threading.Lock()


def writer_for(engine: Engine) -> StoreWriter:
    """The one writer of ``engine`` (created on first use)."""
    with _writers_lock:
        writer = _writers.get(engine)
        if writer is None:
            writer = _writers[engine] = StoreWriter(engine)
        return writer
