"""Raw events: stored as received, one row per distinct event (the digest makes re-posts no-ops)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection

from plumbline.openlineage import ParsedEvent, RunEvent
from plumbline.store.schema import lineage_events
from plumbline.store.write.context import as_utc
from plumbline.store.write.upsert import insert, is_sqlite_connection


def store_raw_events(
    connection: Connection,
    requests: list[tuple[list[ParsedEvent], str | None]],
    now: datetime,
) -> list[list[ParsedEvent]]:
    """Insert the events (of each request: its events and its token's name) not stored before,
    in one statement; return, per request, those it stored (duplicates, in the request, in an
    earlier request of the same write or in the store, are left out)."""
    owner: dict[str, int] = {}  # digest -> the first request that sent it
    unique: dict[str, ParsedEvent] = {}
    for index, (events, _token) in enumerate(requests):
        for parsed in events:
            if parsed.digest not in unique:
                unique[parsed.digest] = parsed
                owner[parsed.digest] = index
    if not unique:
        return [[] for _ in requests]
    rows = [
        _row(parsed, requests[owner[digest]][1], now) for digest, parsed in sorted(unique.items())
    ]
    # the payload goes in as the JSON text already made for the digest (no second encoding)
    payload: Any = sa.bindparam("payload", type_=sa.Text)
    if not is_sqlite_connection(connection):
        payload = sa.cast(payload, postgresql.JSONB)
    values: dict[str, Any] = {name: sa.bindparam(name) for name in rows[0] if name != "payload"}
    statement = (
        insert(connection, lineage_events)
        .values({**values, "payload": payload})
        .on_conflict_do_nothing(index_elements=["digest"])
        .returning(lineage_events.c.digest)
    )
    stored = set(connection.execute(statement, rows).scalars().all())
    per_request: list[list[ParsedEvent]] = [[] for _ in requests]
    for digest, parsed in unique.items():
        if digest in stored:
            per_request[owner[digest]].append(parsed)
    return per_request


def _row(parsed: ParsedEvent, token_name: str | None, now: datetime) -> dict[str, object]:
    event = parsed.event
    job = getattr(event, "job", None)
    return {
        "kind": parsed.kind,
        "event_type": event.event_type if isinstance(event, RunEvent) else None,
        "event_time": as_utc(parsed.event_time),
        "run_uuid": parsed.run_id,
        "job_namespace": job.namespace if job is not None else None,
        "job_name": job.name if job is not None else None,
        "producer": event.producer,
        "digest": parsed.digest,
        "payload": parsed.canonical.decode(),
        "token_name": token_name,
        "received_at": now,
    }
