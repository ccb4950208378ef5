"""Raw events: stored as received, one row per distinct event (the digest makes re-posts no-ops),
each new one marked pending until the normalizer has written it into the lineage tables."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.openlineage import ParsedEvent, RunEvent
from plumbline.store.schema import lineage_events, pending_events
from plumbline.store.write.context import as_utc
from plumbline.store.write.upsert import execute_many, insert, is_sqlite_connection


def store_raw_events(
    connection: Connection,
    requests: list[tuple[list[ParsedEvent], str | None]],
    now: datetime,
) -> list[list[tuple[int, ParsedEvent]]]:
    """Insert the events (of each request: its events and its token's name) not stored before,
    in one statement, and mark them pending; return, per request, those it stored with their
    ``lineage_events.id`` (duplicates, in the request, in an earlier request of the same write
    or in the store, are left out)."""
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
    stored = _insert(connection, rows)
    if stored:
        execute_many(
            connection,
            pending_events,
            [{"event_id": event_id, "received_at": now} for event_id in sorted(stored.values())],
        )
    per_request: list[list[tuple[int, ParsedEvent]]] = [[] for _ in requests]
    for digest, parsed in unique.items():
        if digest in stored:
            per_request[owner[digest]].append((stored[digest], parsed))
    return per_request


def _insert(connection: Connection, rows: list[dict[str, Any]]) -> dict[str, int]:
    """Insert the rows, skipping known digests; the ids of the digests inserted."""
    if not is_sqlite_connection(connection):
        # one statement whatever the number of rows; the payload, JSON already, is embedded in
        # the rows' JSON as it is (not as a string to parse twice)
        for row in rows:
            row["payload"] = orjson.Fragment(row["payload"])
        inserted = execute_many(connection, lineage_events, rows, _returning_digests)
        assert inserted is not None
        return {row.digest: row.id for row in inserted}
    for row in rows:
        row["payload"] = row["payload"].decode()
    values: dict[str, Any] = {name: sa.bindparam(name) for name in rows[0]}
    values["payload"] = sa.bindparam("payload", type_=sa.Text)  # JSON text as it is, not encoded
    statement = (
        insert(connection, lineage_events)
        .values(values)
        .on_conflict_do_nothing(index_elements=["digest"])
        .returning(lineage_events.c.digest, lineage_events.c.id)
    )
    return {row.digest: row.id for row in connection.execute(statement, rows)}


def _returning_digests(statement: Any) -> Any:
    return statement.on_conflict_do_nothing(index_elements=["digest"]).returning(
        lineage_events.c.digest, lineage_events.c.id
    )


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
        "payload": parsed.canonical,  # the JSON text made for the digest: no second encoding
        "token_name": token_name,
        "received_at": now,
    }
