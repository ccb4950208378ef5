"""Per-micro-batch lineage (issue 26 §2), storage: the ``streamBatches`` run facet of a stream's
events becomes ``stream_batches`` / ``stream_batch_parts`` rows through the real write path, on
both backends; each batch once per run; the facet's bounds are enforced at the door."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from store_summary import dataset, facet, ingest, run_event

from plumbline.openlineage import parse_event
from plumbline.openlineage.errors import EventValidationError
from plumbline.openlineage.limits import MAX_BATCH_PARTITIONS, MAX_STREAM_BATCHES
from plumbline.store.read.errors import NotFoundError
from plumbline.store.read.stream_batches import run_batches

KAFKA = "kafka://127.0.0.1:9092"


def kafka_batch(
    batch_id: int, start: int, end: int, version: str, *, backward: bool = False
) -> dict[str, Any]:
    """A batch reading partitions 0 and 3 of topic `orders` into Delta table /lake/orders."""
    partitions: list[dict[str, Any]] = [
        {"topic": "orders", "partition": 0, "startOffset": start, "endOffset": end},
        {"topic": "orders", "partition": 3, "startOffset": start * 2, "endOffset": end * 2},
    ]
    if backward:
        partitions[1]["offsetsBackward"] = True
    found: dict[str, Any] = {
        "batchId": batch_id,
        "timestamp": f"2024-01-01T00:00:{batch_id:02d}.000Z",
        "numInputRows": 2 * (end - start),
        "durationMs": 120,
        "sources": [
            {
                "description": "KafkaV2[Subscribe[orders]]",
                "numInputRows": 2 * (end - start),
                "namespace": KAFKA,
                "failOnDataLoss": "false",
                "partitions": partitions,
                "partitionCount": 2,
            }
        ],
        "sinks": [{"namespace": "file", "name": "/lake/orders", "version": version}],
    }
    if backward:
        found["offsetsBackward"] = True
    return found


def stream_event(
    run_id: str, event_type: str, second: int, *batches: dict[str, Any]
) -> dict[str, Any]:
    return run_event(
        run_id,
        event_type,
        f"2024-01-01T00:01:{second:02d}Z",
        job="stream",
        inputs=[dataset(KAFKA, "orders")],
        outputs=[dataset("file", "/lake/orders")],
        streamBatches=facet(batches=list(batches), omittedBatches=0),
    )


def _rows(engine: Engine) -> list[tuple[Any, ...]]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                sa.text(
                    "SELECT b.batch_id, p.role, p.namespace, p.name, p.kafka_partition,"
                    " p.start_offset, p.end_offset, p.end_version, p.offsets_backward,"
                    " p.fail_on_data_loss FROM stream_batches b"
                    " JOIN stream_batch_parts p ON p.stream_batch_id = b.id"
                    " ORDER BY b.batch_id, p.seq"
                )
            )
        ]


def test_each_batch_is_stored_once_with_its_partitions_and_sink_version(engine: Engine) -> None:
    run_id = str(uuid.uuid4())
    ingest(engine, [stream_event(run_id, "START", 1, kafka_batch(0, 0, 10, "1"))])
    ingest(
        engine,
        [
            stream_event(
                run_id, "RUNNING", 2, kafka_batch(1, 10, 25, "2"), kafka_batch(2, 25, 30, "3")
            )
        ],
    )
    # the same batches again (a resent event, a later event repeating them): nothing added
    repeated = stream_event(run_id, "COMPLETE", 3, kafka_batch(2, 25, 30, "99"))
    ingest(engine, [repeated])
    ingest(engine, [repeated])
    rows = _rows(engine)
    assert [r[0] for r in rows] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    assert rows[3:6] == [
        (1, "source", KAFKA, "orders", 0, 10, 25, None, False, "false"),
        (1, "source", KAFKA, "orders", 3, 20, 50, None, False, "false"),
        (1, "sink", "file", "/lake/orders", None, None, None, "2", False, None),
    ]
    assert rows[8][7] == "3"  # the first event naming batch 2 wins

    with engine.connect() as conn:
        page = run_batches(conn, run_id.upper(), limit=2, offset=1)
    assert page["totalCount"] == 3
    assert [b["batchId"] for b in page["batches"]] == [1, 2]
    first = page["batches"][0]
    assert first["numInputRows"] == 30 and first["timestamp"] == "2024-01-01T00:00:01Z"
    assert first["sinks"] == [{"namespace": "file", "name": "/lake/orders", "version": "2"}]
    (source,) = first["sources"]
    assert source["namespace"] == KAFKA and source["failOnDataLoss"] == "false"
    assert source["partitions"][1] == {
        "topic": "orders",
        "partition": 3,
        "startOffset": 20,
        "endOffset": 50,
        "offsetsBackward": False,
    }


def test_backward_offsets_and_table_sources_are_kept_as_sent(engine: Engine) -> None:
    run_id = str(uuid.uuid4())
    delta_source = {
        "batchId": 7,
        "timestamp": "2024-01-01T00:00:07.000Z",
        "sources": [
            {
                "description": "DeltaSource[file:/lake/raw]",
                "namespace": "file",
                "name": "/lake/raw",
                "startVersion": "4",
                "endVersion": "6",
                "files": ["a.parquet"],
                "fileCount": 3,
            }
        ],
        "sinks": [],
    }
    ingest(
        engine,
        [
            stream_event(
                run_id, "RUNNING", 1, kafka_batch(5, 50, 40, "9", backward=True), delta_source
            )
        ],
    )
    with engine.connect() as conn:
        page = run_batches(conn, run_id, limit=10)
    reset, delta = page["batches"]
    assert reset["offsetsBackward"] and reset["sources"][0]["partitions"][1]["offsetsBackward"]
    assert not reset["sources"][0]["partitions"][0]["offsetsBackward"]
    assert delta["sources"] == [
        {
            "namespace": "file",
            "name": "/lake/raw",
            "description": "DeltaSource[file:/lake/raw]",
            "startVersion": "4",
            "endVersion": "6",
            "filesAdded": 3,
            "failOnDataLoss": None,
            "partitions": [],
        }
    ]


def test_batches_go_with_their_run_and_an_unknown_run_is_not_found(engine: Engine) -> None:
    with engine.connect() as conn, pytest.raises(NotFoundError):
        run_batches(conn, str(uuid.uuid4()), limit=10)
    run_id = str(uuid.uuid4())
    ingest(engine, [stream_event(run_id, "RUNNING", 1, kafka_batch(0, 0, 1, "1"))])
    with engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM runs"))
    assert _rows(engine) == []


def test_the_facets_bounds_are_enforced_at_the_door() -> None:
    run_id = str(uuid.uuid4())
    many = [kafka_batch(i, 0, 1, "1") for i in range(MAX_STREAM_BATCHES + 1)]
    with pytest.raises(EventValidationError, match="streamBatches"):
        parse_event(stream_event(run_id, "RUNNING", 1, *many))
    wide = kafka_batch(0, 0, 1, "1")
    wide["sources"][0]["partitions"] = [
        {"topic": "t", "partition": i, "startOffset": 0, "endOffset": 1}
        for i in range(MAX_BATCH_PARTITIONS + 1)
    ]
    with pytest.raises(EventValidationError, match="partitions"):
        parse_event(stream_event(run_id, "RUNNING", 1, wide))
    parse_event(stream_event(run_id, "RUNNING", 1, *many[:MAX_STREAM_BATCHES]))  # at the bound
