"""Pruning old runs and raw events keeps the lineage and the latest run of every job."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy.engine import Engine
from store_summary import EDGE_TABLES, counts, dataset, ingest, run_event, summary

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
    assert deleted == {"lineage_events": 0, "runs": 2, "dataset_versions": 2}
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
