"""The single entry point of the write path: writer threads per store, group commit.

A write is two steps. **Accepting** stores the raw events and marks the new ones pending, in
one short transaction; then the events go to the store's :class:`~.normalizer.Normalizer`,
which writes them into the lineage tables in the background, in groups as large as its
backlog. ``POST /api/v1/lineage`` answers once its events are accepted
(:meth:`StoreWriter.accept`); :meth:`StoreWriter.write` also waits for their normalization.
Reads of the API wait for the events accepted before them (:mod:`plumbline.server.fresh_reads`).

Accepting runs on the store's writer threads (lanes): one on SQLite, two on PostgreSQL by
default (the server's ``writer_threads`` setting). A request goes to the lane of its first event's job. A
lane takes whatever requests are waiting (up to ``MAX_GROUP_EVENTS`` events) and stores them in
one transaction: many small requests cost about what one batch costs. Each request still gets
its own result and its own ``on_stored`` call inside the transaction. If a group fails, its
requests are retried one by one, so one bad request never takes others down; PostgreSQL
deadlocks and serialization failures are retried. On SQLite, lanes and normalizer take turns
(one write at a time), as SQLite has a single writer.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import weakref
import zlib
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy.engine import Connection, Engine

from plumbline.openlineage import ParsedEvent
from plumbline.store.write.cache import WriteCache
from plumbline.store.write.events import store_raw_events
from plumbline.store.write.normalizer import Item, Normalizer, Progress
from plumbline.store.write.transactions import KeptConnection, take_group, with_retries

logger = logging.getLogger(__name__)

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
    wait_normalized: bool
    progress: Progress | None = None
    future: Future[tuple[WriteResult, Future[None] | None]] = field(default_factory=Future)


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
        self._write_lock: Callable[[], AbstractContextManager[object]]
        if engine.dialect.name == "sqlite":
            single_writer = threading.Lock()
            self._write_lock = lambda: single_writer
        else:
            self._write_lock = contextlib.nullcontext
        self.normalizer = Normalizer(engine, self.cache, self._write_lock)

    def accept(
        self,
        events: list[ParsedEvent],
        *,
        token_name: str | None = None,
        on_stored: OnStored | None = None,
        normalized: Callable[[], None] | None = None,
        progress: Progress | None = None,
    ) -> WriteResult:
        """Store ``events`` raw in one transaction (duplicates are skipped) and queue the new
        ones for normalization; returns once they are stored.

        ``on_stored(connection, stored)`` runs inside the same transaction (e.g. to queue the
        events for forwarding), so either everything is stored or nothing. ``normalized()`` is
        called once the normalizer is done with the events (whatever the outcome; ingestion
        gives their memory back to its budget then), or when the write fails;
        ``progress(done, stored)`` after each part the normalizer has written and let go.
        Blocks until stored; raises what the write raised.
        """
        try:
            result, done = self._submit(
                events, token_name, on_stored, normalized is not None, progress
            )
        except BaseException:
            if normalized is not None:
                normalized()
            raise
        if done is not None and normalized is not None:
            done.add_done_callback(lambda _future: normalized())
        return result

    def write(
        self,
        events: list[ParsedEvent],
        *,
        token_name: str | None = None,
        on_stored: OnStored | None = None,
    ) -> WriteResult:
        """:meth:`accept` ``events`` and wait until they are normalized too; raises
        :class:`~.normalizer.NormalizeError` when some could not be (they stay stored)."""
        result, normalized = self._submit(events, token_name, on_stored, True)
        if normalized is not None:
            normalized.result()
        return result

    def _submit(
        self,
        events: list[ParsedEvent],
        token_name: str | None,
        on_stored: OnStored | None,
        wait_normalized: bool,
        progress: Progress | None = None,
    ) -> tuple[WriteResult, Future[None] | None]:
        request = _Request(list(events), token_name, on_stored, wait_normalized, progress)
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
        kept = KeptConnection(self.engine)
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
            group, _ = take_group(lane.queue, first, _event_count, MAX_GROUP_EVENTS)
            self._serve(group, kept)
            del first, group  # the events are the normalizer's now: hold none of them here

    def _serve(self, group: list[_Request], kept: KeptConnection) -> None:
        try:
            stored = with_retries(lambda connection: self._store_group(group, connection), kept)
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
        for request, items in zip(group, stored, strict=True):
            normalized: Future[None] | None = Future() if request.wait_normalized else None
            self.normalizer.submit(items, normalized, request.progress)
            result = WriteResult(
                stored=[parsed for _, parsed in items],
                duplicates=len(request.events) - len(items),
            )
            request.events = []  # the normalizer lets them go part by part
            request.future.set_result((result, normalized))

    def _store_group(self, group: list[_Request], connection: Connection) -> list[list[Item]]:
        now = datetime.now(UTC)
        with self._write_lock(), connection.begin():
            stored = store_raw_events(
                connection, [(request.events, request.token_name) for request in group], now
            )
            for request, items in zip(group, stored, strict=True):
                if request.on_stored is not None and items:
                    request.on_stored(connection, [parsed for _, parsed in items])
        return stored


def _event_count(request: _Request) -> int:
    return len(request.events)


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


def default_writer_threads(engine: Engine, configured: int | None = None) -> int:
    """Writer threads per store: one on SQLite (its single writer), else ``configured`` or two on
    PostgreSQL, whose writes of different datasets run side by side."""
    if engine.dialect.name == "sqlite":
        return 1
    return configured or 2


_writers: weakref.WeakKeyDictionary[Engine, StoreWriter] = weakref.WeakKeyDictionary()
_writers_lock = threading.Lock()


def writer_for(engine: Engine, threads: int | None = None) -> StoreWriter:
    """The one writer of ``engine`` (created on first use, with ``threads`` writer threads on
    PostgreSQL; see :func:`default_writer_threads`)."""
    with _writers_lock:
        writer = _writers.get(engine)
        if writer is None:
            writer = _writers[engine] = StoreWriter(engine, default_writer_threads(engine, threads))
        return writer
