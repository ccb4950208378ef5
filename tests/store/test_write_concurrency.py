"""Concurrent writers never deadlock or lose an event; a failed write leaves nothing behind."""

from __future__ import annotations

import threading
import uuid

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from store_summary import column_lineage, counts, dataset, facet, ingest, run_event, summary

from plumbline.openlineage import parse_event
from plumbline.store.write import writer_for

THREADS = 8
BATCHES = 6
PER_BATCH = 4
SHARED = [f"shared_{i}" for i in range(4)]


def _events(thread: int, batch: int) -> list[dict]:
    events = []
    for i in range(PER_BATCH):
        run_id = str(uuid.uuid4())
        # every thread touches the same datasets, in a different order, with column lineage
        reads = [SHARED[(thread + i) % 4], SHARED[(thread + i + 1) % 4]]
        writes = SHARED[(thread + i + 2) % 4]
        lineage = column_lineage(
            {
                "v": [
                    ("ns", reads[0], "v", "DIRECT", "IDENTITY"),
                    ("ns", reads[1], "v", "DIRECT", "TRANSFORMATION"),
                ]
            }
        )
        out = dataset(
            "ns", writes, schema=facet(fields=[{"name": "v", "type": "int"}]), columnLineage=lineage
        )
        time = f"2024-01-01T{thread:02d}:{batch:02d}:{i:02d}Z"
        for event_type in ("START", "COMPLETE"):
            events.append(
                run_event(
                    run_id,
                    event_type,
                    time,
                    job=f"job_{thread % 3}",
                    inputs=[dataset("ns", r) for r in reads],
                    outputs=[out],
                )
            )
    return events


@pytest.mark.slow
def test_concurrent_writers_store_every_event(engine: Engine) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def work(thread: int) -> None:
        try:
            barrier.wait()
            for batch in range(BATCHES):
                result = ingest(engine, _events(thread, batch))
                assert len(result.stored) == 2 * PER_BATCH
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads), "a writer hung"
    assert errors == []

    total_runs = THREADS * BATCHES * PER_BATCH
    state = counts(engine)
    assert (state["lineage_events"], state["runs"], state["run_states"]) == (
        2 * total_runs,
        total_runs,
        2 * total_runs,
    )
    assert (state["datasets"], state["jobs"]) == (4, 3)
    # every run counted once on each of its edges, whatever the interleaving
    edges = summary(engine)["job_edges"]
    assert sum(edge[-1] for edge in edges if edge[2] == "input") == 2 * total_runs
    assert sum(edge[-1] for edge in edges if edge[2] == "output") == total_runs
    assert state["job_dataset_edges"] == len(edges) <= 3 * 8


def test_a_failed_write_leaves_nothing_behind(engine: Engine) -> None:
    events = [parse_event(e) for e in _events(0, 0)]

    def fail(_connection: object, _stored: object) -> None:
        raise RuntimeError("forwarding queue unavailable")

    with pytest.raises(RuntimeError):
        writer_for(engine).write(events, on_stored=fail)
    assert set(counts(engine).values()) == {0}
    # and the same events go through afterwards
    assert len(writer_for(engine).write(events).stored) == len(events)


def test_a_failing_request_does_not_take_others_down(engine: Engine) -> None:
    """Concurrent requests may share a transaction (group commit); one that fails is isolated."""
    outcomes: dict[int, str] = {}
    barrier = threading.Barrier(THREADS)

    def fail(_connection: object, _stored: object) -> None:
        raise RuntimeError("this request's forwarding failed")

    def work(thread: int) -> None:
        events = [parse_event(e) for e in _events(thread, 0)]
        barrier.wait()
        try:
            writer_for(engine).write(events, on_stored=fail if thread == 3 else None)
            outcomes[thread] = "stored"
        except RuntimeError as exc:
            outcomes[thread] = str(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert outcomes == {
        t: "this request's forwarding failed" if t == 3 else "stored" for t in range(THREADS)
    }
    assert counts(engine)["lineage_events"] == (THREADS - 1) * 2 * PER_BATCH


def test_the_writer_replaces_a_connection_the_database_dropped(pg_engine: Engine) -> None:
    """The writer keeps its connection between writes; when the server drops it, the next write
    reconnects and goes through."""
    writer = writer_for(pg_engine)
    assert len(writer.write([parse_event(e) for e in _events(0, 0)]).stored) == 2 * PER_BATCH
    with pg_engine.connect() as connection:
        dropped = connection.execute(
            sa.text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        ).scalar_one()
    assert dropped >= 1
    assert len(writer.write([parse_event(e) for e in _events(1, 0)]).stored) == 2 * PER_BATCH
    assert counts(pg_engine)["lineage_events"] == 4 * PER_BATCH
