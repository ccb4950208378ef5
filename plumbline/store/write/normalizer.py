"""The background normalizer: moves pending raw events into the lineage tables.

Ingestion answers once an event is stored raw and marked pending (:mod:`.events`). The writer
then hands the parsed events to this thread, which takes whatever has queued up (up to
``MAX_GROUP_EVENTS`` events and ``MAX_GROUP_BYTES`` of their JSON) and, in one transaction per
group, claims the events (deletes their pending rows: one already gone was done by another
process) and normalizes them. Groups are as large as the backlog, so the fixed cost of a write
(its twenty-odd statements) is shared by many events when events arrive faster than they are
written, which is when it matters. A large request is normalized in parts of that size, each
let go (and reported to its ``progress`` callback) once written: what normalization holds
besides the events waiting is one group's working set, whatever the size of the requests.

Failures lose nothing. Deadlocks and serialization failures are retried. When the database is
unreachable the events stay pending in the database and are picked up again later. Any other
error splits the group in halves until the event that fails is alone; that event keeps its raw
row and its pending row, marked with ``failed_at`` and the error, and every other event goes on.
Pending rows that no thread is working on (a process that stopped) are picked up from the
database when the thread starts and whenever it has nothing queued.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, OperationalError

from plumbline.openlineage import EventValidationError, ParsedEvent, parse_event
from plumbline.store.errors import StoreError
from plumbline.store.schema import lineage_events, pending_events
from plumbline.store.write import conflicts
from plumbline.store.write.alert_rules import AlertRules
from plumbline.store.write.cache import WriteCache
from plumbline.store.write.conflicts import Conflict
from plumbline.store.write.context import as_utc
from plumbline.store.write.normalize import normalize
from plumbline.store.write.transactions import KeptConnection, with_retries
from plumbline.store.write.upsert import is_sqlite_connection

logger = logging.getLogger(__name__)

MAX_GROUP_EVENTS = 2000
# a group's events' canonical JSON, at most (a single larger event is a group of its own): what
# one transaction's working set grows with (bench/ingest_memory.py)
MAX_GROUP_BYTES = 2 * 1024 * 1024
# events handed over but not yet normalized, at most: past this, accepting waits (backpressure),
# so that a producer faster than normalization slows down instead of filling the memory
MAX_QUEUED_EVENTS = 5 * MAX_GROUP_EVENTS
# a write's fixed cost (its twenty-odd statements) is paid per group: waiting this long for more
# events before a small group cut the CPU per event by about a quarter with 8 single-event
# clients (bench/RESULTS.md, session 5); reads wait this much longer for fresh events. Not when
# a caller waits for the group (StoreWriter.write): it sends nothing more until then.
LINGER_SECONDS = 0.03
RECOVER_SECONDS = 2.0  # with nothing queued this long, look for pending rows nobody works on
IDLE_SECONDS = 10.0  # the thread ends after this long without work (a new one starts on demand)
RECOVER_BATCH = 500

T = TypeVar("T")
Item = tuple[int, ParsedEvent]  # (lineage_events.id, the event)


class NormalizeError(StoreError):
    """Events were stored but could not be normalized; they are kept, marked failed."""


Progress = Callable[[int, int], None]  # (events normalized so far, events submitted)


class _Parts:
    """One submission normalized in parts: completes its future once every part is done, and
    reports progress after each."""

    def __init__(
        self, parts: int, events: int, done: Future[None] | None, progress: Progress | None
    ) -> None:
        self.left = parts
        self.events = events
        self.normalized = 0
        self.errors: list[str] = []
        self.problem: BaseException | None = None
        self.done = done
        self.progress = progress
        self._lock = threading.Lock()

    def finish(self, events: int, errors: list[str], problem: BaseException | None) -> None:
        """A part of ``events`` events is done (``errors``: those that failed; ``problem``:
        the database failed it)."""
        with self._lock:
            self.left -= 1
            self.normalized += events
            self.errors.extend(errors)
            self.problem = self.problem or problem
            last, normalized = self.left == 0, self.normalized
        if self.progress is not None:
            try:
                self.progress(normalized, self.events)
            except Exception:  # a caller's bookkeeping must not stop the normalizer
                logger.exception("a normalization progress callback failed")
        if not last or self.done is None:
            return
        if self.problem is not None:
            self.done.set_exception(self.problem)
        elif self.errors:
            self.done.set_exception(
                NormalizeError(
                    f"{len(self.errors)} event(s) could not be normalized: {self.errors[0]}"
                )
            )
        else:
            self.done.set_result(None)


@dataclass
class _Work:
    items: list[Item]
    parts: _Parts | None = field(default=None)
    size: int = 0  # the items' canonical JSON, bytes

    @property
    def waited_for(self) -> bool:
        return self.parts is not None and self.parts.done is not None


# a part done: its submission, its events, those that failed, the database's failure
_Finished = tuple[_Parts, int, list[str], BaseException | None]


def _parts(items: list[Item]) -> Iterator[tuple[list[Item], int]]:
    """``items`` in order, in parts of at most ``MAX_GROUP_EVENTS`` events and
    ``MAX_GROUP_BYTES`` of JSON (an event larger than that alone); each with its size."""
    part: list[Item] = []
    size = 0
    for item in items:
        length = len(item[1].canonical)
        if part and (len(part) >= MAX_GROUP_EVENTS or size + length > MAX_GROUP_BYTES):
            yield part, size
            part, size = [], 0
        part.append(item)
        size += length
    if part:
        yield part, size


class Normalizer:
    """One store's normalizer thread (started on demand, ended when idle)."""

    def __init__(
        self,
        engine: Engine,
        cache: WriteCache,
        write_lock: Callable[[], AbstractContextManager[object]],
    ) -> None:
        self.engine = engine
        self.cache = cache
        self._write_lock = write_lock  # SQLite's single writer: one write at a time
        self._queue: queue.SimpleQueue[_Work] = queue.SimpleQueue()
        self._carried: _Work | None = None  # taken from the queue, but over a group's limit
        self._running = False
        self._lock = threading.Lock()
        self._queued = 0  # events in the queue or being normalized
        self._room = threading.Condition()
        self._recovery_failing = False  # logged once per outage
        self.alert_rules = AlertRules()  # the server sets its own
        # called with a connection in a transaction of its own (the write lock held) and the ids
        # of new change alerts, once the write that found them has committed (the server attaches
        # their blast radius); errors are logged, never raised
        self.on_alerts: Callable[[Connection, list[int]], None] | None = None

    def submit(
        self,
        items: list[Item],
        done: Future[None] | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Normalize ``items`` (stored and pending), in parts of at most a group's size;
        ``done`` completes once they are, with a :class:`NormalizeError` if any could not be;
        ``progress(normalized, len(items))`` is called after each part. Waits while
        ``MAX_QUEUED_EVENTS`` are already queued."""
        if not items:
            if done is not None:
                done.set_result(None)
            return
        with self._room:
            # a full queue has a running thread: it ends only once the queue is empty
            self._room.wait_for(lambda: self._queued < MAX_QUEUED_EVENTS)
            self._queued += len(items)
        parts = list(_parts(items))
        tracker = _Parts(len(parts), len(items), done, progress)
        for part, size in parts:
            self._queue.put(_Work(part, tracker, size))
        self.start()  # after the put: a thread about to end sees the work, or a new one starts

    def start(self) -> None:
        """Make sure the thread runs. Once it has had nothing queued for ``RECOVER_SECONDS``,
        it picks up what is pending in the database (everything received before it started;
        later, what waited longer than that)."""
        with self._lock:
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="plumbline-normalizer", daemon=True).start()

    def _run(self) -> None:
        kept = KeptConnection(self.engine)
        idle_since = datetime.now(UTC)
        recover_before: datetime | None = idle_since  # at start: whatever is pending
        while True:
            try:
                first = self._carried or self._queue.get(timeout=RECOVER_SECONDS)
                self._carried = None
            except queue.Empty:
                now = datetime.now(UTC)
                before = recover_before or now - timedelta(seconds=RECOVER_SECONDS)
                if self._recover_logged(kept, before):
                    idle_since, recover_before = now, None
                    continue
                recover_before = None
                if now - idle_since < timedelta(seconds=IDLE_SECONDS):
                    continue
                with self._lock:
                    if self._queue.empty():
                        self._running = False
                        kept.close()
                        return
                continue
            if not first.waited_for and len(first.items) < MAX_GROUP_EVENTS:
                time.sleep(LINGER_SECONDS)  # let a trickle of small requests make one group
            group = self._group(first)
            size = sum(len(work.items) for work in group)
            try:
                finished = self._serve(group, kept)
            finally:
                with self._room:
                    self._queued -= size
                    self._room.notify_all()
            # let the events go before saying so: their memory is what ingestion's budget
            # gives back when told
            del first, group
            for parts, events, errors, problem in finished:
                parts.finish(events, errors, problem)
            del finished
            idle_since = datetime.now(UTC)

    def _group(self, first: _Work) -> list[_Work]:
        """``first`` and the work queued after it, up to a group's limits (the work that would
        pass them is carried over to the next group)."""
        group, events, size = [first], len(first.items), first.size
        while True:
            try:
                work = self._queue.get_nowait()
            except queue.Empty:
                return group
            events += len(work.items)
            size += work.size
            if events > MAX_GROUP_EVENTS or size > MAX_GROUP_BYTES:
                self._carried = work
                return group
            group.append(work)

    def _serve(self, group: list[_Work], kept: KeptConnection) -> list[_Finished]:
        """Normalize ``group``; what to tell each submission it came from, once let go."""
        problem: BaseException | None = None
        failed: dict[int, str] = {}
        try:
            failed = self._normalize([item for work in group for item in work.items], kept)
        except Exception as exc:  # the database is out of reach: the events stay pending
            events = sum(len(work.items) for work in group)
            logger.warning("normalizing %d events failed, left pending: %s", events, exc)
            problem = exc
        return [
            (
                work.parts,
                len(work.items),
                [failed[event_id] for event_id, _ in work.items if event_id in failed],
                problem,
            )
            for work in group
            if work.parts is not None
        ]

    def _normalize(self, items: list[Item], kept: KeptConnection) -> dict[int, str]:
        """Normalize ``items``, splitting around the ones that fail; those ones' errors by id.
        Raises when the database itself failed (nothing is marked then)."""
        try:
            with_retries(lambda connection: self._write(connection, items), kept)
            return {}
        except OperationalError:
            raise  # the database, not the events
        except DBAPIError as exc:
            if exc.connection_invalidated:
                raise
            problem: Exception = exc
        except Exception as exc:  # a bug meeting an unusual event: keep it, report it
            problem = exc
        if len(items) > 1:
            half = len(items) // 2
            return self._normalize(items[:half], kept) | self._normalize(items[half:], kept)
        event_id = items[0][0]
        message = f"{type(problem).__name__}: {problem}"
        logger.error(
            "event %d could not be normalized (kept, marked failed): %s", event_id, message
        )
        self._mark_failed(kept, event_id, message)
        if isinstance(problem, conflicts.RunConflictError):
            conflicts.report([problem.conflict])
        return {event_id: message}

    def _write(self, connection: Connection, items: list[Item]) -> None:
        found: list[Conflict] = []
        alerts: list[int] = []
        with self._write_lock(), connection.begin():
            claimed = claim(connection, [event_id for event_id, _ in items])
            learned = normalize(
                connection,
                [parsed for event_id, parsed in items if event_id in claimed],
                self.cache,
                found,
                self.alert_rules,
                alerts,
            )
        self.cache.learn(learned)  # only what committed
        conflicts.report(found)
        if alerts and self.on_alerts is not None:
            try:
                with self._write_lock(), connection.begin():
                    self.on_alerts(connection, alerts)
            except Exception as exc:  # the periodic check completes them later
                logger.warning("completing %d new alerts failed: %s", len(alerts), exc)

    def write_with(self, work: Callable[[Connection], T]) -> T:
        """Run ``work(connection)`` in a transaction of its own, as the normalizer's writes run
        (SQLite's single writer: one at a time); deadlocks are retried."""

        def write(connection: Connection) -> T:
            with self._write_lock(), connection.begin():
                return work(connection)

        kept = KeptConnection(self.engine)
        try:
            return with_retries(write, kept)
        finally:
            kept.close()

    def _mark_failed(self, kept: KeptConnection, event_id: int, message: str) -> None:
        def mark(connection: Connection) -> None:
            with self._write_lock(), connection.begin():
                connection.execute(
                    sa.update(pending_events)
                    .where(pending_events.c.event_id == event_id)
                    .values(failed_at=datetime.now(UTC), error=message[:4000])
                )

        with_retries(mark, kept)

    def _recover_logged(self, kept: KeptConnection, before: datetime) -> bool:
        """:meth:`_recover`; a failure (the database out of reach) is logged, not raised: the
        events stay pending and the next look finds them."""
        try:
            found = self._recover(kept, before)
        except Exception as exc:
            kept.close()
            log = logger.debug if self._recovery_failing else logger.warning
            log("looking for pending events failed (will retry): %s", exc)
            self._recovery_failing = True
            return False
        if self._recovery_failing:
            logger.info("looking for pending events works again")
            self._recovery_failing = False
        return found

    def _recover(self, kept: KeptConnection, before: datetime) -> bool:
        """Normalize pending events received before ``before`` that nobody is working on (read
        back from their raw rows); whether there were any."""
        rows = with_retries(lambda connection: _orphans(connection, before), kept)
        if not rows:
            return False
        logger.info("normalizing %d pending events left by an earlier process", len(rows))
        for part, _ in _parts(self._parsed(kept, rows)):  # a group's size at a time
            self._normalize(part, kept)
        return True

    def _parsed(self, kept: KeptConnection, rows: list[Any]) -> list[Item]:
        """Raw rows (``event_id``, ``payload``, ``digest``) parsed again; one that no longer
        parses is marked failed instead."""
        items: list[Item] = []
        for row in rows:
            try:
                parsed = parse_event(row.payload)
            except EventValidationError as exc:
                self._mark_failed(kept, row.event_id, f"the stored event no longer parses: {exc}")
                continue
            items.append((row.event_id, dataclasses.replace(parsed, digest=row.digest)))
        return items

    def retry_failed(self, progress: Callable[[int, int], None] | None = None) -> Retried:
        """Normalize again, in this thread, the events marked failed (after an upgrade that
        mends what failed them, say); those that fail again stay marked, with their new error.
        ``progress(done, total)`` is called after each group."""
        kept = KeptConnection(self.engine)
        try:
            total = with_retries(_failed_count, kept)
            normalized, failed, after = 0, {}, -1
            while True:
                rows = with_retries(functools.partial(_unmark_failed, after=after), kept)
                if not rows:
                    break
                after = rows[-1].event_id
                items = self._parsed(kept, rows)
                unparsed = len(rows) - len(items)
                failed_now = self._normalize(items, kept) if items else {}
                failed.update(failed_now)
                normalized += len(items) - len(failed_now)
                if unparsed:
                    failed.update(_errors_of(kept, [row.event_id for row in rows]))
                if progress is not None:
                    progress(normalized + len(failed), total)
            return Retried(normalized=normalized, failed=failed)
        finally:
            kept.close()


def claim(connection: Connection, event_ids: list[int]) -> set[int]:
    """Delete the pending rows of ``event_ids`` not marked failed; the ids deleted (the events
    this transaction normalizes: a row another process deleted first is skipped, and on
    PostgreSQL its delete waits for that process's transaction to end)."""
    table = pending_events
    if is_sqlite_connection(connection):
        claimed: set[int] = set()
        for start in range(0, len(event_ids), 500):
            chunk = event_ids[start : start + 500]
            claimed.update(
                connection.execute(
                    sa.delete(table)
                    .where(table.c.event_id.in_(chunk), table.c.failed_at.is_(None))
                    .returning(table.c.event_id)
                ).scalars()
            )
        return claimed
    return set(connection.execute(_CLAIM, {"ids": sorted(event_ids)}).scalars())


_CLAIM = (
    sa.delete(pending_events)
    .where(
        pending_events.c.event_id
        == sa.func.any(sa.bindparam("ids", type_=postgresql.ARRAY(sa.BigInteger))),
        pending_events.c.failed_at.is_(None),
    )
    .returning(pending_events.c.event_id)
)


@dataclass(frozen=True)
class Retried:
    """What :meth:`Normalizer.retry_failed` did: events normalized, and those that failed
    again with their errors (by ``lineage_events.id``)."""

    normalized: int
    failed: dict[int, str]


def _failed_count(connection: Connection) -> int:
    with connection.begin():
        return connection.execute(
            sa.select(sa.func.count())
            .select_from(pending_events)
            .where(pending_events.c.failed_at.is_not(None))
        ).scalar_one()


def _unmark_failed(connection: Connection, after: int) -> list[Any]:
    """The next failed events (ids above ``after``, ``RECOVER_BATCH`` at most) with their raw
    rows, made pending again (committed) so that the normalizer can claim them."""
    with connection.begin():
        failed = pending_events.c.failed_at.is_not(None)
        rows = list(connection.execute(_with_payloads(failed, pending_events.c.event_id > after)))
        if rows:
            connection.execute(
                sa.update(pending_events)
                .where(pending_events.c.event_id.in_([row.event_id for row in rows]))
                .values(failed_at=None, error=None)
            )
        return rows


def _errors_of(kept: KeptConnection, event_ids: list[int]) -> dict[int, str]:
    """The errors of those of these events that are marked failed."""

    def read(connection: Connection) -> dict[int, str]:
        with connection.begin():
            rows = connection.execute(
                sa.select(pending_events.c.event_id, pending_events.c.error).where(
                    pending_events.c.event_id.in_(event_ids),
                    pending_events.c.failed_at.is_not(None),
                )
            )
            return {row.event_id: row.error or "" for row in rows}

    return with_retries(read, kept)


def failed_events(connection: Connection) -> dict[str, int]:
    """Events marked failed, counted by error message."""
    error = sa.func.coalesce(pending_events.c.error, "")
    rows = connection.execute(
        sa.select(error, sa.func.count())
        .where(pending_events.c.failed_at.is_not(None))
        .group_by(error)
        .order_by(sa.func.count().desc(), error)
    )
    return {message: count for message, count in rows}


def _orphans(connection: Connection, before: datetime) -> list[Any]:
    with connection.begin():
        waiting = pending_events.c.failed_at.is_(None)
        return list(
            connection.execute(_with_payloads(waiting, pending_events.c.received_at < before))
        )


def _with_payloads(*conditions: sa.ColumnElement[bool]) -> sa.Select[Any]:
    """The first ``RECOVER_BATCH`` pending rows meeting ``conditions``, in id order, with their
    raw events: ``event_id``, ``payload``, ``digest``."""
    return (
        sa.select(pending_events.c.event_id, lineage_events.c.payload, lineage_events.c.digest)
        .join(lineage_events, lineage_events.c.id == pending_events.c.event_id)
        .where(*conditions)
        .order_by(pending_events.c.event_id)
        .limit(RECOVER_BATCH)
    )


@dataclass(frozen=True)
class Backlog:
    """Events waiting to be normalized, those that failed, and the oldest one's wait."""

    pending: int
    failed: int
    lag_seconds: float


def normalization_backlog(connection: Connection) -> Backlog:
    """The normalization backlog as the database has it (all server processes together)."""
    waiting = pending_events.c.failed_at.is_(None)
    row = connection.execute(
        sa.select(
            sa.func.count().filter(waiting),
            sa.func.count().filter(pending_events.c.failed_at.is_not(None)),
            sa.func.min(pending_events.c.received_at).filter(waiting),
        )
    ).one()
    oldest = as_utc(row[2])
    lag = 0.0 if oldest is None else max(0.0, (datetime.now(UTC) - oldest).total_seconds())
    return Backlog(pending=row[0], failed=row[1], lag_seconds=lag)


def pending_mark(connection: Connection) -> int | None:
    """The newest pending event's id (failed ones aside), or None when nothing is pending."""
    return connection.execute(
        sa.select(sa.func.max(pending_events.c.event_id)).where(
            pending_events.c.failed_at.is_(None)
        )
    ).scalar()


def pending_up_to(connection: Connection, mark: int) -> int:
    """How many events up to ``mark`` are still pending (failed ones aside)."""
    return connection.execute(
        sa.select(sa.func.count())
        .select_from(pending_events)
        .where(pending_events.c.event_id <= mark, pending_events.c.failed_at.is_(None))
    ).scalar_one()
