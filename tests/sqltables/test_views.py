"""The lineage SQL tables as views in the store (``plumbline_<table>``, migration 0012): one small
test per table on the scenario's pipeline, on SQLite and PostgreSQL; both backends give the same
rows; history rows agree with the API's answers for the same run, and pruning keeps the edges."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from scenario import (
    AUDIT,
    CLEAN,
    CUSTOMERS,
    DAY1,
    DAY2,
    RAW,
    build,
    pick,
    run_uuid,
    stream_events,
)
from sqlalchemy.engine import Engine
from store_summary import ingest

from plumbline.analysis.version_lineage import version_lineage
from plumbline.lineage_tables import TABLES
from plumbline.store import create_store_engine, prune, upgrade
from plumbline.store.read.runs import get_run
from plumbline.store.read.sql_tables import table_rows, view_columns

R1, R2, R3, R4, R5 = (run_uuid(n) for n in (1, 2, 3, 4, 5))
_, RAW_NAME = RAW
_, CLEAN_NAME = CLEAN
_, CUSTOMERS_NAME = CUSTOMERS
_, AUDIT_NAME = AUDIT


@pytest.fixture
def built(engine: Engine) -> Engine:
    build(engine)
    return engine


def _rows(engine: Engine, table: str, *columns: str) -> list[tuple[Any, ...]]:
    """The shared check: the view has the catalogue's columns, in order; its rows cut to
    ``columns``."""
    with engine.connect() as conn:
        assert view_columns(conn, table) == [name for name, _ in TABLES[table]]
        return pick(table_rows(conn, table), *columns)


def test_table_lineage(built: Engine) -> None:
    assert _rows(
        built, "table_lineage", "source_path", "target_table_full_name", "target_path",
        "entity_name", "entity_run_id", "run_state", "event_date",
    ) == [
        (None, None, None, "report", R3, "FAIL", DAY2),  # shop.public.customers: not a path
        (None, None, RAW_NAME, "extract", R1, "COMPLETE", DAY1),
        ("/data/raw", "db.clean", CLEAN_NAME, "clean", R2, "COMPLETE", DAY1),
        ("/data/raw", "db.clean", CLEAN_NAME, "clean", R4, "COMPLETE", DAY2),
        ("/warehouse/clean", None, None, "report", R3, "FAIL", DAY2),
        ("/warehouse/clean", None, AUDIT_NAME, "audit", R5, "COMPLETE", DAY2),
    ]  # fmt: skip


def test_table_lineage_types(built: Engine) -> None:
    assert _rows(built, "table_lineage", "entity_run_id", "source_type", "target_type") == [
        (R1, None, "PATH"), (R2, "PATH", "TABLE"), (R3, "TABLE", None), (R3, "TABLE", None),
        (R4, "PATH", "TABLE"), (R5, "TABLE", "PATH"),
    ]  # fmt: skip


def test_column_lineage(built: Engine) -> None:
    assert _rows(
        built, "column_lineage", "entity_run_id", "source_column_name", "target_column_name",
        "transformation_type", "transformation_subtype",
    ) == [
        (R2, "amount", "total", "DIRECT", "AGGREGATION"),
        (R2, "country", None, "INDIRECT", "FILTER"),
        (R2, "id", "id", "DIRECT", "IDENTITY"),
        (R4, "amount", "total", "DIRECT", "AGGREGATION"),
        (R4, "country", None, "INDIRECT", "FILTER"),
        (R4, "id", "id", "DIRECT", "IDENTITY"),
    ]  # fmt: skip


def test_table_lineage_edges(built: Engine) -> None:
    assert _rows(
        built, "table_lineage_edges", "source_name", "target_name", "entity_name", "run_count",
        "last_run_id", "last_run_state",
    ) == [
        (None, RAW_NAME, "extract", 1, R1, "COMPLETE"),
        (RAW_NAME, CLEAN_NAME, "clean", 2, R4, "COMPLETE"),
        (CLEAN_NAME, None, "report", 1, R3, "FAIL"),
        (CLEAN_NAME, AUDIT_NAME, "audit", 1, R5, "COMPLETE"),
        (CUSTOMERS_NAME, None, "report", 1, R3, "FAIL"),
    ]  # fmt: skip


def test_column_lineage_edges(built: Engine) -> None:
    assert _rows(
        built, "column_lineage_edges", "source_column_name", "target_column_name",
        "first_seen", "last_seen", "run_count", "last_run_id",
    ) == [
        ("amount", "total", _at(1, 10), _at(2, 10), 2, R4),
        ("country", None, _at(1, 10), _at(2, 10), 2, R4),
        ("id", "id", _at(1, 10), _at(2, 10), 2, R4),
    ]  # fmt: skip


def _at(day: int, second: int) -> datetime:
    return datetime(2024, 1, day, 10, 0, second, tzinfo=UTC)


def test_runs(built: Engine) -> None:
    assert _rows(
        built, "runs", "run_id", "job_name", "state", "duration_ms", "input_rows", "output_rows",
        "output_bytes", "event_date",
    ) == [
        (R1, "extract", "COMPLETE", 5000, None, 2, 200, DAY1),
        (R2, "clean", "COMPLETE", 10000, None, 2, 200, DAY1),
        (R3, "report", "FAIL", 3000, None, None, None, DAY2),
        (R4, "clean", "COMPLETE", 2000, None, 3, 300, DAY2),
        (R5, "audit", "COMPLETE", 1000, None, None, None, DAY2),
    ]  # fmt: skip


def test_jobs(built: Engine) -> None:
    assert _rows(built, "jobs", "namespace", "name", "type", "latest_run_id", "latest_run_state") == [
        ("pipeline", "audit", "BATCH", R5, "COMPLETE"),
        ("pipeline", "clean", "BATCH", R4, "COMPLETE"),
        ("pipeline", "extract", "BATCH", R1, "COMPLETE"),
        ("pipeline", "report", "BATCH", R3, "FAIL"),
    ]  # fmt: skip


def test_datasets(built: Engine) -> None:
    assert _rows(
        built, "datasets", "name", "table_full_name", "path", "dataset_type", "current_version",
        "schema_fields",
    ) == [
        (AUDIT_NAME, None, AUDIT_NAME, "PATH", R5, None),
        (RAW_NAME, None, RAW_NAME, "PATH", "snap-11",
         [{"name": "id", "type": "long"}, {"name": "amount", "type": "double"}]),
        (CLEAN_NAME, "db.clean", CLEAN_NAME, "TABLE", R4, None),
        (CUSTOMERS_NAME, CUSTOMERS_NAME, None, "TABLE", None, None),
    ]  # fmt: skip


def test_dataset_versions(built: Engine) -> None:
    assert _rows(
        built, "dataset_versions", "dataset_name", "version", "created_by_run_id", "row_count",
        "snapshot_id",
    ) == [
        (AUDIT_NAME, R5, R5, None, None),
        (RAW_NAME, "snap-11", R1, 2, "snap-11"),
        (CLEAN_NAME, R2, R2, 2, None),
        (CLEAN_NAME, R4, R4, 3, None),
    ]  # fmt: skip


def test_snapshot_lineage(built: Engine) -> None:
    assert _rows(
        built, "snapshot_lineage", "target_name", "target_version", "source_name",
        "source_snapshot_id", "source_version_source", "entity_name", "entity_run_id",
    ) == [
        (None, None, CLEAN_NAME, None, "eventTime", "report", R3),  # read, wrote nothing
        (None, None, CUSTOMERS_NAME, None, "eventTime", "report", R3),
        (AUDIT_NAME, R5, CLEAN_NAME, None, "eventTime", "audit", R5),  # clean: no snapshot id
        (RAW_NAME, "snap-11", None, None, None, "extract", R1),  # wrote, read nothing
        (CLEAN_NAME, R2, RAW_NAME, "snap-11", "eventTime", "clean", R2),
        (CLEAN_NAME, R4, RAW_NAME, "snap-11", "eventTime", "clean", R4),
    ]  # fmt: skip


def test_history_rows_match_the_api_for_the_same_run(built: Engine) -> None:
    with built.connect() as conn:
        run = get_run(conn, R2)
        tables = {t: [r for r in table_rows(conn, t) if r["entity_run_id"] == R2]
                  for t in ("table_lineage", "snapshot_lineage")}  # fmt: skip
        upstream = version_lineage(
            conn, *CLEAN, run["outputDatasetVersions"][0]["datasetVersionId"]["version"], depth=1
        )
    reads = {(v["datasetVersionId"]["namespace"], v["datasetVersionId"]["name"])
             for v in run["inputDatasetVersions"]}  # fmt: skip
    writes = {(v["datasetVersionId"]["namespace"], v["datasetVersionId"]["name"])
              for v in run["outputDatasetVersions"]}  # fmt: skip
    assert {((r["source_namespace"], r["source_name"]), (r["target_namespace"], r["target_name"]))
            for r in tables["table_lineage"]} == {(i, o) for i in reads for o in writes}  # fmt: skip
    api_versions = {
        (v["datasetVersionId"]["name"], v["datasetVersionId"]["version"])
        for v in run["inputDatasetVersions"]
    }
    assert {(r["source_name"], r["source_version_id"]) for r in tables["snapshot_lineage"]} == (
        api_versions
    )
    one_hop = {(n.name, n.version, n.via_run_id, n.version_source)
               for n in upstream.versions if n.distance == 1}  # fmt: skip
    assert {
        (r["source_name"], r["source_version_id"], r["entity_run_id"], r["source_version_source"])
        for r in tables["snapshot_lineage"]
    } == one_hop


def test_prune_drops_history_and_keeps_edges(built: Engine) -> None:
    prune(built, datetime(2024, 1, 2, tzinfo=UTC))  # run 2 (clean's older run) goes
    assert [r[0] for r in _rows(built, "table_lineage", "entity_run_id")] == [R1, R3, R3, R4, R5]
    assert {r[0] for r in _rows(built, "column_lineage", "entity_run_id")} == {R4}
    assert _rows(
        built, "table_lineage_edges", "target_name", "entity_name", "first_seen", "run_count",
        "last_run_id",
    ) == [
        (None, "report", _at(2, 0), 1, R3),
        (None, "report", _at(2, 0), 1, R3),
        (AUDIT_NAME, "audit", _at(2, 20), 1, R5),
        (RAW_NAME, "extract", _at(1, 0), 1, R1),
        (CLEAN_NAME, "clean", _at(1, 10), 2, R4),
    ]  # fmt: skip
    assert _rows(built, "column_lineage_edges", "source_column_name", "first_seen", "run_count") == [
        ("amount", _at(1, 10), 2), ("country", _at(1, 10), 2), ("id", _at(1, 10), 2),
    ]  # fmt: skip
    prune(built, datetime(2024, 1, 3, tzinfo=UTC))  # nothing more: every job keeps its latest
    assert _rows(built, "column_lineage_edges", "run_count") == [(2,), (2,), (2,)]


# ids made by the store (uuid4) and its own clock differ between two stores
_STORE_MADE = {"entity_id", "job_id", "dataset_id", "created_at", "updated_at"}


def _comparable(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as conn:
        return {
            table: pick(table_rows(conn, table), *(n for n, _ in cols if n not in _STORE_MADE))
            for table, cols in TABLES.items()
        }


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    engine = create_store_engine(f"sqlite:///{tmp_path / 'store.db'}")
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.mark.postgres
def test_sqlite_and_postgresql_give_identical_rows(
    sqlite_engine: Engine, pg_engine: Engine
) -> None:
    for engine in (sqlite_engine, pg_engine):
        build(engine)
        ingest(engine, stream_events())
    on_sqlite, on_pg = _comparable(sqlite_engine), _comparable(pg_engine)
    assert all(on_sqlite[t] for t in TABLES)  # every table has rows
    assert on_sqlite == on_pg


def test_column_history_from_before_0012_is_rebuilt_from_raw_events(built: Engine) -> None:
    from plumbline.store.schema import run_column_shapes
    from plumbline.store.write.history_rebuild import rebuild_column_history

    recorded = _rows(built, "column_lineage", "entity_run_id", "source_column_name")
    with built.begin() as conn:  # a store from before 0012: column edges without their runs
        conn.execute(run_column_shapes.delete())
    assert _rows(built, "column_lineage", "entity_run_id") == []
    assert rebuild_column_history(built, dry_run=True).runs == 2
    assert _rows(built, "column_lineage", "entity_run_id") == []
    done = rebuild_column_history(built)
    assert (done.runs, done.rows, done.skipped) == (2, 6, 0)
    assert _rows(built, "column_lineage", "entity_run_id", "source_column_name") == recorded
    assert rebuild_column_history(built).runs == 0  # nothing left to do


def test_stream_batch_lineage(built: Engine) -> None:
    """One row per micro-batch, source partition and sink, by the batch's time (the stream's
    datasets are named by its batches only: no table name or path is known for them)."""
    ingest(built, stream_events())
    with built.connect() as conn:
        rows = table_rows(conn, "stream_batch_lineage")
    assert pick(rows, "batch_id", "source_namespace", "source_name", "source_partition",
                "source_start_offset", "source_end_offset", "source_offsets_backward",
                "source_fail_on_data_loss", "target_name", "target_version") == [
        (b, "kafka://broker:9092", "orders", p, start, end, 0, "true", "/lake/orders", v)
        for b, p, start, end, v in (
            (0, 0, 0, 500, "56"), (0, 3, 0, 900, "56"), (1, 0, 500, 1200, "57"),
            (1, 3, 900, 1600, "57"), (2, 0, 1200, 1500, "58"), (2, 3, 1600, 2400, "58"),
        )
    ]  # fmt: skip
    assert {(r["entity_name"], r["entity_run_id"], r["event_date"]) for r in rows} == {
        ("ingest", run_uuid(16), DAY2)
    }
    assert {(r["target_path"], r["source_table_full_name"]) for r in rows} == {(None, None)}
    assert min(r["event_time"] for r in rows).isoformat() == "2024-01-02T12:00:00+00:00"
