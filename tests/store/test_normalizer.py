"""The background normalizer: pending events are normalized exactly once, survive a stopped
process, and an event that cannot be normalized is kept, marked failed, without holding up the
others (SQLite and PostgreSQL)."""

from __future__ import annotations

import gc
import json
import threading
import uuid
import weakref
from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from poisoned_jobs import poison_job
from sqlalchemy.engine import Engine
from store_summary import GOLDEN_DIR, counts, dataset, load_golden, run_event, summary
from table_locks import table_locked

from plumbline.openlineage import ParsedEvent, parse_event
from plumbline.server.fresh_reads import wait_until_normalized
from plumbline.store import Store
from plumbline.store.write import NormalizeError, StoreWriter, normalizer, writer_for
from plumbline.store.write.events import store_raw_events

GOLDEN_EXPECTED = json.loads((GOLDEN_DIR / "shop_pipeline.expected.json").read_text())


def _run(job: str) -> list[dict]:
    run_id = str(uuid.uuid4())
    return [
        run_event(
            run_id,
            event_type,
            f"2024-01-01T00:00:0{second}Z",
            job=job,
            inputs=[dataset("ns", f"{job}_in")],
            outputs=[dataset("ns", f"{job}_out")],
        )
        for second, event_type in enumerate(("START", "COMPLETE"))
    ]


def _jobs(engine: Engine) -> list[str]:
    with engine.connect() as connection:
        return sorted(connection.execute(sa.text("SELECT name FROM jobs")).scalars())


def _pending(engine: Engine) -> list[tuple[int, bool, str | None]]:
    with engine.connect() as connection:
        return [
            (row.event_id, row.failed_at is not None, row.error)
            for row in connection.execute(
                sa.text("SELECT event_id, failed_at, error FROM pending_events ORDER BY event_id")
            )
        ]


def test_accepted_events_are_normalized_in_the_background_and_only_once(engine: Engine) -> None:
    writer = writer_for(engine)
    events = [parse_event(e) for e in _run("a") + _run("b")]
    result = writer.accept(events)
    assert len(result.stored) == 4
    assert wait_until_normalized(Store(engine), writer, 30) == 0
    assert _jobs(engine) == ["a", "b"]
    assert _pending(engine) == []
    state = counts(engine)
    assert state["runs"] == 2 and state["run_states"] == 4
    # the same events again are duplicates: nothing new is pending or normalized
    assert writer.accept(events).duplicates == 4
    assert wait_until_normalized(Store(engine), writer, 30) == 0
    assert counts(engine) == state


def test_events_a_stopped_process_left_pending_are_normalized_by_the_next(engine: Engine) -> None:
    """Stored and marked pending as ingestion does, then the process "stops" before its
    normalizer ran: a new writer (a restarted server) finds and normalizes them."""
    events = [parse_event(e) for e in _run("left_behind")]
    with engine.begin() as connection:
        stored = store_raw_events(connection, [(events, None)], datetime.now(UTC))
    assert len(stored[0]) == 2
    assert [failed for _, failed, _ in _pending(engine)] == [False, False]
    assert _jobs(engine) == []

    restarted = StoreWriter(engine)
    restarted.normalizer.start()
    assert wait_until_normalized(Store(engine), restarted, 30) == 0
    assert _jobs(engine) == ["left_behind"]
    assert _pending(engine) == []
    assert counts(engine)["run_states"] == 2


def test_an_event_the_database_refuses_is_kept_marked_failed_and_the_others_go_on(
    engine: Engine,
) -> None:
    poison_job(engine, "poisoned")
    writer = writer_for(engine)
    good, bad, more = _run("good"), _run("poisoned"), _run("also_good")
    result = writer.accept([parse_event(e) for e in good + bad + more])
    assert len(result.stored) == 6

    # reads do not wait for failed events
    assert wait_until_normalized(Store(engine), writer, 30) == 0
    assert _jobs(engine) == ["also_good", "good"]
    pending = _pending(engine)
    assert len(pending) == 2  # the poisoned run's START and COMPLETE, kept
    assert all(failed and "poisoned job" in (error or "") for _, failed, error in pending)
    assert counts(engine)["lineage_events"] == 6  # every raw event is kept

    # a caller that waits for normalization hears about it
    with pytest.raises(NormalizeError, match="poisoned job"):
        writer.write([parse_event(e) for e in _run("poisoned")])
    assert _jobs(engine) == ["also_good", "good"]


def test_accepting_waits_while_too_many_events_wait_for_normalization(
    pg_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Backpressure: with normalization held (a lock on ``jobs``), accepting stops once the
    queue is full, and goes on when normalization does."""
    monkeypatch.setattr(normalizer, "MAX_QUEUED_EVENTS", 2)
    writer = StoreWriter(pg_engine)
    with table_locked(pg_engine, "jobs"):
        assert len(writer.accept([parse_event(e) for e in _run("first")]).stored) == 2
        late = threading.Thread(
            target=writer.accept, args=([parse_event(e) for e in _run("second")],)
        )
        late.start()
        late.join(timeout=1.0)
        assert late.is_alive(), "accepted although the normalization queue was full"
    late.join(timeout=30)
    assert not late.is_alive()
    assert wait_until_normalized(Store(pg_engine), writer, 30) == 0
    assert _jobs(pg_engine) == ["first", "second"]


def test_a_large_write_is_normalized_in_parts_and_each_part_let_go(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ingestion memory (issue 15 item 3): a write larger than a group is normalized a part at a
    time (here one event per part), to the very lineage one group writes (the golden store),
    and each part's events are let go before its progress is reported."""
    monkeypatch.setattr(normalizer, "MAX_GROUP_BYTES", 1)
    released = threading.Event()  # the caller holds none of the events any more
    reports: list[tuple[int, int, int]] = []  # (done, total, events of the parts done alive)
    alive: list[weakref.ref[ParsedEvent]] = []

    # generous waits: each part runs a full gc.collect(), which late in a whole-suite run (a large
    # heap, a loaded CI machine) took seconds per part, and 60 s ran out there
    def progress(done: int, total: int) -> None:
        released.wait(300)
        gc.collect()
        reports.append((done, total, sum(ref() is not None for ref in alive[:done])))

    normalized = threading.Event()
    events = [parse_event(document) for document in load_golden("shop_pipeline.json")]
    alive.extend(weakref.ref(parsed) for parsed in events)
    stored = StoreWriter(engine).accept(events, normalized=normalized.set, progress=progress)
    assert (len(stored.stored), stored.duplicates) == (9, 1)
    alive[:] = [ref for ref in alive if any(ref() is s for s in stored.stored)]
    del events, stored
    released.set()
    assert normalized.wait(300)
    assert reports == [(done, 9, 0) for done in range(1, 10)]
    actual = summary(engine)
    for section, expected in GOLDEN_EXPECTED.items():
        assert actual[section] == expected, f"section {section!r} differs"
