"""Pruning old runs and raw events keeps the lineage and the latest run of every job."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from store_summary import EDGE_TABLES, counts, dataset, ingest, run_event, summary

from plumbline.openlineage import parse_event
from plumbline.store.schema import pending_events
from plumbline.store.write.events import store_raw_events
from plumbline.store.write.prune import prune


def test_prune_keeps_lineage_and_latest_runs(engine: Engine) -> None:
    run_ids = [str(uuid.UUID(int=i + 1, version=4)) for i in range(3)]
    for day, run_id in enumerate(run_ids, start=1):
        for event_type, hour in (("START", 0), ("COMPLETE", 1)):
            ingest(
                engine,
                [
                    run_event(
                        run_id,
                        event_type,
                        f"2024-01-0{day}T0{hour}:00:00Z",
                        inputs=[dataset("ns", "in")],
                        outputs=[dataset("ns", "out")],
                    )
                ],
            )
    before = counts(engine)
    deleted = prune(engine, datetime(2024, 1, 3, tzinfo=UTC))
    # runs 1 and 2 ended before Jan 3rd; run 3 is the job's latest and stays anyway
    assert deleted == {
        "lineage_events": 0,
        "runs": 2,
        "dataset_versions": 2,
        "stream_batches": 0,
    }
    after = counts(engine)
    assert (after["runs"], after["run_states"], after["run_io"], after["dataset_versions"]) == (
        1,
        2,
        2,
        1,
    )
    assert {t: after[t] for t in EDGE_TABLES} == {t: before[t] for t in EDGE_TABLES}
    assert [r["run"] for r in summary(engine)["runs"]] == [run_ids[2]]
    # raw events are pruned by when they were received
    assert prune(engine, datetime.now(UTC) + timedelta(minutes=1))["lineage_events"] == 6
    assert counts(engine)["lineage_events"] == 0


def test_prune_keeps_events_still_waiting_for_normalization(engine: Engine) -> None:
    """A raw event is the only copy of an event not normalized yet: pruning keeps it (one that
    failed normalization goes, with its failure)."""
    waiting = [parse_event(run_event(str(uuid.uuid4()), "START", "2024-01-01T00:00:00Z"))]
    failed = [parse_event(run_event(str(uuid.uuid4()), "START", "2024-01-01T00:00:01Z"))]
    with engine.begin() as connection:  # stored and pending, as ingestion leaves them
        stored = store_raw_events(connection, [(waiting + failed, None)], datetime.now(UTC))
        failed_id = next(event_id for event_id, parsed in stored[0] if parsed is failed[0])
        connection.execute(
            sa.update(pending_events)
            .where(pending_events.c.event_id == failed_id)
            .values(failed_at=datetime.now(UTC), error="refused")
        )
    assert prune(engine, datetime.now(UTC) + timedelta(minutes=1))["lineage_events"] == 1
    with engine.connect() as connection:
        left = connection.execute(sa.select(pending_events.c.event_id)).scalars().all()
    assert len(left) == 1 and left[0] != failed_id
    assert counts(engine)["lineage_events"] == 1
