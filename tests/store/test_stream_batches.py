"""Per-micro-batch lineage (issue 26 §2), storage: the ``streamBatches`` run facet of a stream's
events becomes ``stream_batches`` / ``stream_batch_parts`` rows through the real write path, on
both backends; each batch once per run; the facet's bounds are enforced at the door."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from sqlalchemy.engine import Engine
from store_summary import ingest
from stream_batch_events import KAFKA, kafka_batch, stream_event

from plumbline.cli import main
from plumbline.openlineage import parse_event
from plumbline.openlineage.errors import EventValidationError
from plumbline.openlineage.limits import MAX_BATCH_PARTITIONS, MAX_STREAM_BATCHES
from plumbline.store.read.errors import NotFoundError
from plumbline.store.read.stream_batches import run_batches


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


def test_batches_have_their_own_retention_in_db_prune(db_url: str, engine: Engine) -> None:
    """A stream is one long run, its job's latest (never pruned): its batches go by their own
    cut-off, by when they ran; a run's other batches and the run stay."""
    run_id = str(uuid.uuid4())
    ingest(
        engine,
        [stream_event(run_id, "RUNNING", 1, *(kafka_batch(i, i, i + 1, str(i)) for i in range(4)))],
    )

    def prune(*args: str) -> str:
        result = CliRunner().invoke(main, ["db", "prune", "--db", db_url, *args], env={})
        assert result.exit_code == 0, result.output
        return result.output

    # batches 0-3 ran at 00:00:00-03; the run cut-off (2024-01-01) spares the running run
    output = prune(
        "--before", "2024-01-01", "--batches-before", "2024-01-01T00:00:02Z", "--dry-run"
    )
    assert "micro-batch cut-off 2024-01-01T00:00:02+00:00" in output
    assert "would delete 2 stream_batches rows" in output
    assert len(_rows(engine)) == 12  # a dry run changes nothing
    output = prune("--before", "2024-01-01", "--batches-before", "2024-01-01T00:00:02Z")
    assert "deleted 2 stream_batches rows" in output and "deleted 0 runs rows" in output
    with engine.connect() as conn:
        assert [b["batchId"] for b in run_batches(conn, run_id, limit=10)["batches"]] == [2, 3]
    # without a batch cut-off, the run cut-off is theirs too
    assert "deleted 2 stream_batches rows" in prune("--before", "2030-01-01")
    assert _rows(engine) == []
    bad = CliRunner().invoke(
        main,
        ["db", "prune", "--db", db_url, "--older-than", "1d", "--batches-older-than", "1d",
         "--batches-before", "2024-01-01"],
        env={},
    )  # fmt: skip
    assert bad.exit_code == 2 and "at most one of --batches-older-than" in bad.output
