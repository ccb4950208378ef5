"""Lineage edges are upserted once per distinct edge: repeating the same job's events (new runs)
grows runs, versions and raw events, never the edge tables."""

from __future__ import annotations

import uuid

from sqlalchemy.engine import Engine
from store_summary import (
    EDGE_TABLES,
    column_lineage,
    counts,
    dataset,
    facet,
    ingest,
    run_event,
    summary,
)


def _job_run(run_id: str, second: int) -> list[dict]:
    schema = facet(fields=[{"name": "id", "type": "long"}, {"name": "total", "type": "double"}])
    lineage = column_lineage(
        {
            "id": [("ns", "in", "id", "DIRECT", "IDENTITY")],
            "total": [("ns", "in", "amount", "DIRECT", "AGGREGATION")],
        },
        [("ns", "in", "kind", "INDIRECT", "FILTER")],
    )
    out = dataset("ns", "out", schema=schema, columnLineage=lineage)
    start = run_event(
        run_id,
        "START",
        f"2024-01-01T00:{second // 60:02d}:{second % 60:02d}Z",
        inputs=[dataset("ns", "in")],
        outputs=[out],
    )
    done = run_event(
        run_id,
        "COMPLETE",
        f"2024-01-01T00:{second // 60:02d}:{second % 60:02d}.5Z",
        inputs=[dataset("ns", "in")],
        outputs=[out],
    )
    return [start, done]


def test_repeated_runs_do_not_grow_the_edge_tables(engine: Engine) -> None:
    runs = [str(uuid.UUID(int=i + 1, version=4)) for i in range(12)]
    ingest(engine, _job_run(runs[0], 0))
    first = counts(engine)
    assert {table: first[table] for table in EDGE_TABLES} == {
        "job_dataset_edges": 2,
        "column_lineage_edges": 2,
        "column_dataset_edges": 1,
    }
    for index, run_id in enumerate(runs[1:], start=1):
        ingest(engine, _job_run(run_id, index))
    after = counts(engine)
    assert {table: after[table] for table in EDGE_TABLES} == {
        table: first[table] for table in EDGE_TABLES
    }
    # per-run facts grow with use
    assert (after["runs"], after["run_io"], after["dataset_versions"], after["lineage_events"]) == (
        12,
        24,
        12,
        24,
    )
    assert after["schema_versions"] == first["schema_versions"] == 1
    state = summary(engine)
    assert [edge[2:] for edge in state["job_edges"]] == [
        ["input", "2024-01-01T00:00:00Z", "2024-01-01T00:00:11Z", 12],
        ["output", "2024-01-01T00:00:00Z", "2024-01-01T00:00:11Z", 12],
    ]
    # column edges keep the span of the events that carried them (last seen: within the hour)
    assert [edge[-2:] for edge in state["column_edges"]] == [
        ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z"]
    ] * 2
    assert [edge[-2:] for edge in state["column_dataset_edges"]] == [
        ["2024-01-01T00:00:00Z", "2024-01-01T00:00:00Z"]
    ]


def test_reposting_the_same_events_leaves_every_table_as_it_is(engine: Engine) -> None:
    events = _job_run(str(uuid.uuid4()), 0)
    ingest(engine, events)
    before = summary(engine)
    result = ingest(engine, events)
    assert (result.stored, result.duplicates) == ([], 2)
    assert summary(engine) == before


def test_changed_transformation_is_a_new_edge(engine: Engine) -> None:
    ingest(engine, _job_run(str(uuid.uuid4()), 0))
    lineage = column_lineage({"id": [("ns", "in", "id", "DIRECT", "TRANSFORMATION")]})
    ingest(
        engine,
        [
            run_event(
                str(uuid.uuid4()),
                "COMPLETE",
                "2024-01-02T00:00:00Z",
                outputs=[dataset("ns", "out", columnLineage=lineage)],
            )
        ],
    )
    edges = [(e[0][2], e[1][2], e[3], e[-1]) for e in summary(engine)["column_edges"]]
    assert edges == [
        ("id", "id", "IDENTITY", "2024-01-01T00:00:00Z"),
        ("id", "id", "TRANSFORMATION", "2024-01-02T00:00:00Z"),
        ("total", "amount", "AGGREGATION", "2024-01-01T00:00:00Z"),
    ]


def test_late_event_of_a_known_run_widens_the_edges_without_counting_the_run_again(
    engine: Engine,
) -> None:
    run_id = str(uuid.uuid4())
    start = _job_run(run_id, 10)[0]
    done = _job_run(run_id, 20)[1]
    ingest(engine, [done])
    ingest(engine, [start])  # earlier in event time, arriving later
    state = summary(engine)
    assert [edge[2:] for edge in state["job_edges"]] == [
        ["input", "2024-01-01T00:00:10Z", "2024-01-01T00:00:20Z", 1],
        ["output", "2024-01-01T00:00:10Z", "2024-01-01T00:00:20Z", 1],
    ]
    assert [edge[-2:] for edge in state["column_edges"]] == [
        ["2024-01-01T00:00:10Z", "2024-01-01T00:00:20Z"]
    ] * 2
    # another event of the same run inside the known time span changes no job edge
    running = {**start, "eventType": "RUNNING", "eventTime": "2024-01-01T00:00:15Z"}
    ingest(engine, [running])
    after = summary(engine)
    assert after["job_edges"] == state["job_edges"]
    assert after["column_edges"] == state["column_edges"]
