"""The ``outbox`` table: enqueue, claim due rows in per-run order, record outcomes, summarize.

Rows are keyed by target endpoint without its credentials (``target_key(url)``: the server's
settings hold the full URL, once). A row is due when it is ``pending``
and its ``next_attempt_at`` has passed. Events of one run go to a target in acceptance (id) order:
a row is claimable only when no earlier ``pending`` row of the same run and target is left behind
(not due yet, or claimed by another worker). ``dead`` rows do not hold later ones back.
The server's delivery loop (:mod:`plumbline.server.outbox`) drives these operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, TypedDict

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.schema import outbox

if TYPE_CHECKING:
    from plumbline.store.handle import Store

PENDING, DELIVERED, DEAD = "pending", "delivered", "dead"


@dataclass(frozen=True)
class OutboxRow:
    """One claimed delivery: which event body to which target, and how often it was tried."""

    id: int
    target: str
    run_uuid: str | None
    body: bytes
    attempts: int


def utcnow() -> datetime:
    return datetime.now(UTC)


def enqueue_rows(
    connection: Connection,
    targets: Sequence[str],
    accepted: Sequence[tuple[bytes, str | None]],
) -> int:
    """Insert one pending row per (event, target), in acceptance order; returns the row count."""
    now = utcnow()
    rows = [
        {
            "target": target,
            "run_uuid": run_id,
            "body": body,
            "status": PENDING,
            "attempts": 0,
            "next_attempt_at": now,
            "created_at": now,
        }
        for body, run_id in accepted
        for target in targets
    ]
    if rows:
        connection.execute(sa.insert(outbox), rows)
    return len(rows)


def claim_due(connection: Connection, target: str, limit: int) -> list[OutboxRow]:
    """Due rows of ``target`` that may be sent now, oldest first, respecting per-run order.

    On PostgreSQL the rows are locked (``FOR UPDATE SKIP LOCKED``) until ``connection``'s
    transaction ends, so several servers on one database never send the same row at once.
    """
    now = utcnow()
    earlier = outbox.alias("earlier")
    waiting_before = (
        sa.select(earlier.c.id)
        .where(
            earlier.c.target == outbox.c.target,
            earlier.c.run_uuid == outbox.c.run_uuid,
            earlier.c.status == PENDING,
            earlier.c.id < outbox.c.id,
            earlier.c.next_attempt_at > now,
        )
        .exists()
    )
    query = (
        sa.select(outbox.c.id, outbox.c.run_uuid, outbox.c.body, outbox.c.attempts)
        .where(
            outbox.c.target == target,
            outbox.c.status == PENDING,
            outbox.c.next_attempt_at <= now,
            # skip runs held back by an earlier event that waits for its retry, so they do not
            # fill the batch and starve other runs
            ~waiting_before,
        )
        .order_by(outbox.c.id)
        .limit(limit)
    )
    if connection.dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    candidates = connection.execute(query).all()
    if not candidates:
        return []
    claimed_ids = [row.id for row in candidates]
    runs = sorted({row.run_uuid for row in candidates if row.run_uuid is not None})
    # per run, the first pending row this claim does not hold: nothing after it may go yet
    barrier: dict[str, int] = {}
    if runs:
        held_back = connection.execute(
            sa.select(outbox.c.run_uuid, sa.func.min(outbox.c.id))
            .where(
                outbox.c.target == target,
                outbox.c.status == PENDING,
                outbox.c.run_uuid.in_(runs),
                outbox.c.id.not_in(claimed_ids),
                outbox.c.id < max(claimed_ids),
            )
            .group_by(outbox.c.run_uuid)
        ).all()
        barrier = {run: first for run, first in held_back}
    return [
        OutboxRow(row.id, target, row.run_uuid, bytes(row.body), row.attempts)
        for row in candidates
        if row.run_uuid is None or row.id < barrier.get(row.run_uuid, row.id + 1)
    ]


@contextmanager
def claimed(store: Store, target: str, limit: int) -> Iterator[tuple[Connection, list[OutboxRow]]]:
    """A delivery round's unit of work: the rows of ``target`` due now (:func:`claim_due`) and
    the write transaction their outcomes are recorded in, committed when the block ends.

    On PostgreSQL one transaction holds the claimed rows' locks while they are posted, so several
    servers on one database never send a row twice. On SQLite (one server per file) the rows are
    read first and the outcomes written in a short transaction of their own, so ingestion never
    waits behind an HTTP call.
    """
    if not store.is_sqlite:
        with store.writing() as connection:
            yield connection, claim_due(connection, target, limit)
        return
    with store.connection() as connection:
        rows = claim_due(connection, target, limit)
        connection.rollback()
    with store.writing() as connection:
        yield connection, rows


def mark_delivered(connection: Connection, ids: Iterable[int]) -> None:
    """Record successful deliveries."""
    ids = list(ids)
    if ids:
        connection.execute(
            sa.update(outbox)
            .where(outbox.c.id.in_(ids))
            .values(status=DELIVERED, delivered_at=utcnow(), last_error=None)
        )


def mark_failed(
    connection: Connection, row: OutboxRow, error: str, retry_in: timedelta | None
) -> str:
    """Record a failed attempt: pending again after ``retry_in``, or dead when it is None."""
    status = PENDING if retry_in is not None else DEAD
    connection.execute(
        sa.update(outbox)
        .where(outbox.c.id == row.id)
        .values(
            status=status,
            attempts=row.attempts + 1,
            last_error=error,
            next_attempt_at=utcnow() + (retry_in or timedelta(0)),
        )
    )
    return status


def prune_delivered(connection: Connection, target: str, older_than: timedelta) -> int:
    """Delete ``target``'s rows delivered more than ``older_than`` ago; returns how many."""
    result = connection.execute(
        sa.delete(outbox).where(
            outbox.c.target == target,
            outbox.c.status == DELIVERED,
            outbox.c.delivered_at < utcnow() - older_than,
        )
    )
    return int(result.rowcount or 0)


def retry_dead(connection: Connection, target: str | None = None, ids: Sequence[int] = ()) -> int:
    """Put dead rows (all, one target's, or the given ids) back to pending, due now."""
    query = sa.update(outbox).where(outbox.c.status == DEAD)
    if target is not None:
        query = query.where(outbox.c.target == target)
    if ids:
        query = query.where(outbox.c.id.in_(list(ids)))
    result = connection.execute(
        query.values(status=PENDING, attempts=0, next_attempt_at=utcnow(), last_error=None)
    )
    return int(result.rowcount or 0)


@dataclass(frozen=True)
class TargetSummary:
    """Counts of one target's rows by status, and how far behind it is."""

    target: str
    pending: int
    delivered: int
    dead: int
    oldest_pending_at: datetime | None

    def lag_seconds(self, now: datetime) -> float:
        """Age of the oldest undelivered event (0 when nothing is pending)."""
        if self.oldest_pending_at is None:
            return 0.0
        return max((now - self.oldest_pending_at).total_seconds(), 0.0)


def summarize(connection: Connection) -> list[TargetSummary]:
    """One summary per target that has rows."""
    rows = connection.execute(
        sa.select(
            outbox.c.target,
            outbox.c.status,
            sa.func.count(),
            sa.func.min(outbox.c.created_at),
        ).group_by(outbox.c.target, outbox.c.status)
    ).all()
    counts: dict[str, dict[str, int]] = {}
    oldest: dict[str, datetime] = {}
    for target, status, count, first in rows:
        counts.setdefault(target, {})[status] = int(count)
        if status == PENDING and first is not None:
            oldest[target] = as_utc(first)
    return [
        TargetSummary(
            target=target,
            pending=by_status.get(PENDING, 0),
            delivered=by_status.get(DELIVERED, 0),
            dead=by_status.get(DEAD, 0),
            oldest_pending_at=oldest.get(target),
        )
        for target, by_status in sorted(counts.items())
    ]


class DeadRow(TypedDict):
    """A dead row as the admin view lists it (without its body)."""

    id: int
    target: str
    run_uuid: str | None
    attempts: int
    last_error: str | None
    created_at: datetime


def dead_rows(connection: Connection, limit: int) -> list[DeadRow]:
    """The newest dead rows (without bodies), for the admin view."""
    rows = connection.execute(
        sa.select(
            outbox.c.id,
            outbox.c.target,
            outbox.c.run_uuid,
            outbox.c.attempts,
            outbox.c.last_error,
            outbox.c.created_at,
        )
        .where(outbox.c.status == DEAD)
        .order_by(outbox.c.id.desc())
        .limit(limit)
    ).all()
    return [
        DeadRow(
            id=row.id,
            target=row.target,
            run_uuid=row.run_uuid,
            attempts=row.attempts,
            last_error=row.last_error,
            created_at=row.created_at,
        )
        for row in rows
    ]


def as_utc(value: datetime | str) -> datetime:
    """An aware UTC datetime from what the database returned."""
    # SQLite returns naive datetimes (and min() over a DateTime column may come back as text)
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
