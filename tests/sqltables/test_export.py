"""`plumbline export`: every lineage table to files that read back identical (pyarrow for
Parquet), history partitioned by event_date, incremental when run again, atomic, on both
backends."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from scenario import (
    AUDIT,
    CLEAN,
    CUSTOMERS,
    DAY2,
    JOBS,
    build,
    later_events,
    pick,
    run_uuid,
    stream_events,
)
from sqlalchemy.engine import Engine
from store_summary import dataset, ingest, run_event

from plumbline.cli import main
from plumbline.export import ExportError, export_tables, patch, run
from plumbline.export.writers import arrow_schema
from plumbline.lineage_tables import HISTORY, TABLES
from plumbline.store import Store, prune
from plumbline.store.read.sql_tables import table_rows
from plumbline.store.write import hiding


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """The export folder: new (tmp_path holds the SQLite store, and an export refuses a
    non-empty folder that is not its own)."""
    return tmp_path / "export"


@pytest.fixture
def built(engine: Engine) -> Engine:
    build(engine)
    ingest(engine, stream_events())
    return engine


def _read_parquet(folder: Path, table: str) -> list[dict[str, Any]]:
    schema = arrow_schema(TABLES[table])
    if table in HISTORY:
        partitioning = ds.partitioning(pa.schema([schema.field("event_date")]), flavor="hive")
        data = ds.dataset(folder / table, format="parquet", partitioning=partitioning)
    else:
        data = ds.dataset(folder / table, format="parquet")
    rows = data.to_table().to_pylist()
    for row in rows:
        for name, kind in TABLES[table]:
            if kind == "json" and row[name] is not None:
                row[name] = json.loads(row[name])
    return rows


def _store(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    with engine.connect() as conn:
        return {table: table_rows(conn, table) for table in TABLES}


def _all(rows: list[dict[str, Any]], table: str) -> list[tuple[Any, ...]]:
    return pick(rows, *(name for name, _ in TABLES[table]))


def test_parquet_export_reads_back_identical(built: Engine, out: Path) -> None:
    result = export_tables(Store(built), out / "out")
    store = _store(built)
    for table in TABLES:
        assert _all(_read_parquet(out / "out", table), table) == _all(store[table], table)
    assert result.rows == {table: len(rows) for table, rows in store.items()}
    days = sorted(p.name for p in (out / "out" / "table_lineage").iterdir())
    assert days == ["event_date=2024-01-01", "event_date=2024-01-02"]


@pytest.mark.parametrize("file_format", ["jsonl", "csv"])
def test_text_formats_hold_every_row(built: Engine, out: Path, file_format: str) -> None:
    export_tables(Store(built), out, file_format=file_format)
    lines = (out / "jobs" / f"part-0.{file_format}").read_text().splitlines()
    names = sorted(json.loads(line)["name"] for line in lines) if file_format == "jsonl" else (
        sorted(line.split(",")[2] for line in lines[1:])
    )  # fmt: skip
    assert names == ["audit", "clean", "extract", "ingest", "report"]
    day = out / "runs" / "event_date=2024-01-02" / f"part-0.{file_format}"
    assert run_uuid(4) in day.read_text() and run_uuid(1) not in day.read_text()


def test_incremental_export_rewrites_only_the_changed_days(built: Engine, out: Path) -> None:
    export_tables(Store(built), out, overlap=timedelta(0))
    day1 = out / "table_lineage" / "event_date=2024-01-01" / "part-0.parquet"
    before = day1.stat().st_mtime_ns
    new_run = run_uuid(6)
    ingest(built, [
        run_event(new_run, "START", "2024-01-03T09:00:00Z", job="late", namespace=JOBS,
                  inputs=[dataset(*CLEAN)], outputs=[dataset("file", "/late")]),
        run_event(new_run, "COMPLETE", "2024-01-03T09:00:01Z", job="late", namespace=JOBS,
                  inputs=[dataset(*CLEAN)], outputs=[dataset("file", "/late")]),
    ])  # fmt: skip
    again = export_tables(Store(built), out, overlap=timedelta(0))
    assert again.incremental
    assert again.rows["table_lineage"] == 1 and again.rows["runs"] == 1
    assert day1.stat().st_mtime_ns == before  # untouched
    store = _store(built)
    for table in TABLES:
        assert _all(_read_parquet(out, table), table) == _all(store[table], table)


def test_incremental_export_follows_a_prune(built: Engine, out: Path) -> None:
    export_tables(Store(built), out)
    prune(built, datetime(2024, 1, 2, tzinfo=UTC))
    export_tables(Store(built), out)
    runs = {r["entity_run_id"] for r in _read_parquet(out, "table_lineage")}
    assert runs == {run_uuid(1), run_uuid(3), run_uuid(4), run_uuid(5)}  # clean's run 2 pruned
    edges = {(r["entity_name"], r["run_count"]) for r in _read_parquet(out, "table_lineage_edges")}
    assert ("clean", 2) in edges


def test_a_failed_export_leaves_the_files_before_it(built: Engine, out: Path) -> None:
    export_tables(Store(built), out)
    jobs = out / "jobs" / "part-0.parquet"
    content = jobs.read_bytes()

    def fail(table: str, rows: int) -> None:
        if table == "jobs":
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        export_tables(Store(built), out, full=True, progress=fail)
    assert jobs.read_bytes() == content
    assert not [p for p in out.rglob(".*") if p.is_file()]  # no temporary file left


def test_since_keeps_history_from_that_day(built: Engine, out: Path) -> None:
    result = export_tables(Store(built), out, since=DAY2)
    assert result.rows["runs"] == 4  # day 2's: report, clean, audit, the stream ingest
    assert [p.name for p in (out / "runs").iterdir()] == ["event_date=2024-01-02"]


def test_a_folder_of_another_format_is_refused(built: Engine, out: Path) -> None:
    export_tables(Store(built), out, file_format="csv")
    with pytest.raises(ExportError, match="holds a csv export"):
        export_tables(Store(built), out)
    export_tables(Store(built), out, full=True)  # --full rewrites it as Parquet
    assert not list(out.rglob("part-0.csv"))


def test_the_command_exports_and_says_what_it_wrote(built: Engine, db_url: str, out: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(main, ["export", "--db", db_url, "--out", str(out), "--quiet"])
    assert done.exit_code == 0, done.output
    assert "full export" in done.output and "table_lineage" in done.output
    bad = runner.invoke(main, ["export", "--db", db_url, "--out", str(out), "--since", "soon"])
    assert bad.exit_code == 2 and "expected an ISO-8601 date" in bad.output


def _same_as_the_views(engine: Engine, folder: Path) -> None:
    store = _store(engine)
    for table in TABLES:
        assert _all(_read_parquet(folder, table), table) == _all(store[table], table), table


def _files(folder: Path) -> dict[str, int]:
    """Every current-state file and its modification time."""
    return {
        str(p.relative_to(folder)): p.stat().st_mtime_ns
        for table in TABLES
        if table not in HISTORY
        for p in (folder / table).glob("part-*")
    }


def test_the_export_equals_the_views_with_hidden_and_pruned_rows(built: Engine, out: Path) -> None:
    """The export reads base tables, not the views: with a hidden dataset and job and pruned
    runs folded into the edges, it still holds exactly the views' rows."""
    prune(built, datetime(2024, 1, 2, tzinfo=UTC))
    with built.begin() as conn:
        hiding.hide_dataset(conn, *CUSTOMERS)
        hiding.hide_job(conn, JOBS, "audit")
    export_tables(Store(built), out)
    _same_as_the_views(built, out)
    assert "audit" not in {r["entity_name"] for r in _read_parquet(out, "table_lineage")}


def test_incremental_export_rewrites_only_the_files_of_changed_jobs(
    built: Engine, out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run, "PART_IDS", 1)  # a file per job and per dataset
    export_tables(Store(built), out, overlap=timedelta(0))
    before = _files(out)
    assert len([f for f in before if f.startswith("table_lineage_edges/")]) == 4  # 4 jobs
    new_run = run_uuid(7)
    ingest(built, [
        run_event(new_run, "START", "2024-01-03T09:00:00Z", job="audit", namespace=JOBS,
                  inputs=[dataset(*CLEAN)], outputs=[dataset(*AUDIT)]),
        run_event(new_run, "COMPLETE", "2024-01-03T09:00:01Z", job="audit", namespace=JOBS,
                  inputs=[dataset(*CLEAN)], outputs=[dataset(*AUDIT)]),
    ])  # fmt: skip
    again = export_tables(Store(built), out, overlap=timedelta(0))
    assert again.incremental
    assert again.rows["table_lineage_edges"] == 1  # audit's one edge, now with 2 runs
    after = _files(out)
    rewritten = {f.split("/")[0] for f in after if after[f] != before.get(f)}
    assert rewritten == {"table_lineage_edges", "jobs", "datasets", "dataset_versions"}
    untouched = [f for f in before if after.get(f) == before[f]]
    assert len(untouched) >= len(before) - 6  # audit's edge and job files, its datasets'
    _same_as_the_views(built, out)
    edges = {(r["entity_name"], r["run_count"]) for r in _read_parquet(out, "table_lineage_edges")}
    assert ("audit", 2) in edges


def test_hiding_a_job_after_an_export_drops_its_rows_at_the_next(built: Engine, out: Path) -> None:
    export_tables(Store(built), out)
    with built.begin() as conn:
        hiding.hide_job(conn, JOBS, "clean")
    again = export_tables(Store(built), out)
    assert not again.incremental  # what is hidden changed: everything is rewritten
    _same_as_the_views(built, out)
    names = {r["entity_name"] for r in _read_parquet(out, "column_lineage_edges")}
    assert "clean" not in names


def test_an_export_of_the_one_file_layout_is_rewritten(built: Engine, out: Path) -> None:
    """An export written before current-state files were cut by id range is rewritten whole."""
    export_tables(Store(built), out)
    state = json.loads((out / "_plumbline_export.json").read_text())
    del state["layout"], state["files"]  # as that export wrote it: no list of files either
    (out / "_plumbline_export.json").write_text(json.dumps(state))
    (out / "jobs" / "part-7.parquet").write_bytes(b"old")
    assert not export_tables(Store(built), out).incremental
    assert not (out / "jobs" / "part-7.parquet").exists()
    _same_as_the_views(built, out)


def _same_files(incremental: Path, full: Path) -> None:
    for table in TABLES:
        rows = _all(_read_parquet(incremental, table), table)
        assert rows == _all(_read_parquet(full, table), table), table
        key = patch.IDENTITY.get(table)
        if key and not table.endswith("_edges"):  # exactly one row per job, dataset, version
            keys = [r[key] for r in _read_parquet(incremental, table)]
            assert len(keys) == len(set(keys)), table


@pytest.mark.parametrize("part_ids", [4096, 2])
def test_incremental_export_reads_back_as_a_full_one(
    built: Engine, out: Path, monkeypatch: pytest.MonkeyPatch, part_ids: int
) -> None:
    """An export updated incrementally (current-state files patched by changed key, or
    rewritten whole when their range is new or mostly changed) reads back with pyarrow exactly
    as a full export of the same store, and as the views."""
    monkeypatch.setattr(run, "PART_IDS", part_ids)
    patched: list[Path] = []
    write_patched = patch.write_patched

    def spy(target: Path, *args: Any) -> bool:
        patched.append(target)
        return write_patched(target, *args)

    monkeypatch.setattr(patch, "write_patched", spy)
    export_tables(Store(built), out / "incremental", overlap=timedelta(0))
    assert not patched  # a first export writes every file from the store
    ingest(built, later_events())
    again = export_tables(Store(built), out / "incremental", overlap=timedelta(0))
    assert again.incremental
    tables = {p.parent.name for p in patched}
    assert {"table_lineage_edges", "column_lineage_edges", "jobs", "datasets"} <= tables
    assert all(pq.ParquetFile(p).metadata.num_row_groups == 1 for p in patched if p.exists())
    export_tables(Store(built), out / "full")
    _same_files(out / "incremental", out / "full")
    _same_as_the_views(built, out / "incremental")


def test_a_damaged_file_is_rewritten_whole_instead_of_patched(built: Engine, out: Path) -> None:
    export_tables(Store(built), out / "incremental", overlap=timedelta(0))
    for table in ("datasets", "table_lineage_edges"):
        (out / "incremental" / table / "part-0.parquet").write_bytes(b"not parquet")
    (out / "incremental" / "jobs" / "part-0.parquet").unlink()
    ingest(built, later_events())
    assert export_tables(Store(built), out / "incremental", overlap=timedelta(0)).incremental
    export_tables(Store(built), out / "full")
    _same_files(out / "incremental", out / "full")


def test_an_incremental_export_with_nothing_changed_rewrites_nothing(
    built: Engine, out: Path
) -> None:
    export_tables(Store(built), out, overlap=timedelta(0))
    before = _files(out)
    again = export_tables(Store(built), out, overlap=timedelta(0))
    assert again.incremental and again.files == 0 and sum(again.rows.values()) == 0
    assert _files(out) == before
    _same_as_the_views(built, out)
