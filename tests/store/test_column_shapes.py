"""Column-lineage history per shape (migration 0018, issue 30): a store written by the code before
it (``recorded_store``: main at 7544ea2, one ``run_column_lineage`` row per run and column edge)
answers the same after the migration, after ``db prune`` and ``db renormalize``, and the write
path gives the same answers from the same events; on both backends."""

from __future__ import annotations

import json
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from recorded_store import (
    COLUMNS_ADDED_SINCE_RECORDING,
    PRUNE_BEFORE,
    RECORDED,
    STORE_MADE,
    answers,
    load,
    views,
    write,
)
from store_summary import column_lineage, dataset, ingest, run_event

from plumbline.cli import main
from plumbline.lineage_tables import TABLES
from plumbline.store.engine import create_store_engine
from plumbline.store.migrate import _alembic_config, current_revision, head_revision, upgrade
from plumbline.store.schema import column_lineage_shape_edges, column_lineage_shapes
from plumbline.store.schema import run_column_shapes as run_shapes
from plumbline.store.write.column_shapes import digest
from plumbline.store.write.prune import prune


@pytest.fixture(scope="module")
def recorded() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(RECORDED.read_text())
    return loaded


def _at_0017(db_url: str, recorded: dict[str, Any]) -> sa.Engine:
    """The recorded store, as the code before 0018 wrote it, in a store at revision 0017."""
    from alembic import command

    engine = create_store_engine(db_url)
    command.downgrade(_alembic_config(engine), "0017")
    assert current_revision(engine) == recorded["revision"] == "0017"
    load(engine, recorded["dump"])
    return engine


def _without_store_made(found: dict[str, Any]) -> dict[str, Any]:
    """``answers`` cut to what two stores written from the same events share."""
    views = {}
    for table, rows in found["views"].items():
        read = [n for n, _ in TABLES[table] if n not in COLUMNS_ADDED_SINCE_RECORDING]
        keep = [i for i, name in enumerate(read) if name not in STORE_MADE]
        cut = [[row[i] for i in keep] for row in rows]
        views[table] = sorted(cut, key=lambda r: [(v is not None, json.dumps(v)) for v in r])
    return {"views": views, "analyses": found["analyses"]}


def _recorded_shapes(recorded: dict[str, Any]) -> tuple[int, int, int]:
    """(runs with column lineage, distinct sets of edges, their edges) in the recorded history."""
    per_run: dict[int, list[tuple[Any, ...]]] = {}
    for run_id, *edge in recorded["dump"]["run_column_lineage"]["rows"]:
        per_run.setdefault(run_id, []).append(tuple(edge))
    shapes = {tuple(sorted(edges)) for edges in per_run.values()}
    return len(per_run), len(shapes), sum(len(shape) for shape in shapes)


def _count(engine: sa.Engine, table: sa.Table) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())


def test_a_store_written_before_0018_migrates_to_the_same_answers(
    db_url: str, recorded: dict[str, Any]
) -> None:
    engine = _at_0017(db_url, recorded)
    history = len(recorded["dump"]["run_column_lineage"]["rows"])
    assert history == len(recorded["answers"]["views"]["column_lineage"]) == 23
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    assert answers(engine) == recorded["answers"]
    # 8 runs carried column lineage, 6 distinct sets of edges among them (17 edges)
    stored = (
        _count(engine, run_shapes),
        _count(engine, column_lineage_shapes),
        _count(engine, column_lineage_shape_edges),
    )
    assert stored == _recorded_shapes(recorded) == (8, 6, 17)
    prune(engine, PRUNE_BEFORE)
    assert answers(engine) == recorded["pruned"]
    engine.dispose()


def test_the_write_path_gives_the_recorded_answers(db_url: str, recorded: dict[str, Any]) -> None:
    engine = create_store_engine(db_url)
    write(engine)
    assert _without_store_made(answers(engine)) == _without_store_made(recorded["answers"])
    assert (_count(engine, run_shapes), _count(engine, column_lineage_shapes)) == (8, 6)
    prune(engine, PRUNE_BEFORE)
    assert _without_store_made(answers(engine)) == _without_store_made(recorded["pruned"])
    engine.dispose()


def test_renormalize_rebuilds_the_same_history_from_raw_events(
    db_url: str, recorded: dict[str, Any]
) -> None:
    """``db renormalize`` on the migrated store: nothing to rebuild; with the runs' shapes gone
    (a store from before 0012), the raw events give each run its shape again, the same answers."""
    engine = _at_0017(db_url, recorded)
    upgrade(engine)
    runner = CliRunner()
    result = runner.invoke(main, ["db", "renormalize", "--db", db_url])
    assert result.exit_code == 0, result.output
    assert answers(engine) == recorded["answers"]
    with engine.begin() as conn:
        conn.execute(run_shapes.delete())
    assert answers(engine)["views"]["column_lineage"] == []
    result = runner.invoke(main, ["db", "renormalize", "--db", db_url])
    assert result.exit_code == 0, result.output
    assert "gave 8 run(s)" in result.output and "(23 rows" in result.output, result.output
    assert answers(engine) == recorded["answers"]
    engine.dispose()


def test_downgrade_writes_the_per_run_history_back(db_url: str, recorded: dict[str, Any]) -> None:
    from alembic import command

    engine = _at_0017(db_url, recorded)
    upgrade(engine)
    command.downgrade(_alembic_config(engine), "0017")
    key = "run_id, output_dataset_id, output_field_id, input_field_id, transformation_type"
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text(f"SELECT {key}, transformation_subtype FROM run_column_lineage ORDER BY {key}")  # noqa: S608
        ).all()
    assert [list(row) for row in rows] == recorded["dump"]["run_column_lineage"]["rows"]
    # 0012's views again (the analyses are today's code, which reads today's schema: at head only)
    assert views(engine) == recorded["answers"]["views"]
    upgrade(engine)
    assert answers(engine) == recorded["answers"]
    engine.dispose()


def test_runs_with_the_same_edges_share_one_shape_the_migration_named(
    db_url: str, recorded: dict[str, Any]
) -> None:
    """A run written after the migration that carries the edges of a converted run references
    that run's shape: the migration and the write path name a shape alike."""
    engine = _at_0017(db_url, recorded)
    upgrade(engine)
    shapes = _count(engine, column_lineage_shapes)
    src, out = ("file", "/drift/src"), ("file", "/drift/out")
    one = column_lineage({"a": [(*src, "x", "DIRECT", "IDENTITY")]})
    run = "00000000-0000-4000-8000-0000000000a3"
    ingest(
        engine,
        [
            run_event(run, "COMPLETE", "2024-01-03T13:00:00Z", job="drift",
                      inputs=[dataset(*src)], outputs=[dataset(*out, columnLineage=one)]),
        ],
    )  # fmt: skip
    assert _count(engine, column_lineage_shapes) == shapes
    with engine.connect() as conn:
        stored = conn.execute(
            sa.select(column_lineage_shapes.c.digest)
            .join(run_shapes, run_shapes.c.shape_id == column_lineage_shapes.c.id)
            .join(
                sa.table("runs", sa.column("id"), sa.column("uuid")),
                sa.text("runs.id = run_column_shapes.run_id"),
            )
            .where(sa.text("runs.uuid = :run")),
            {"run": run},
        ).scalar_one()
        edges = conn.execute(
            sa.select(*(column_lineage_shape_edges.c[c] for c in (
                "output_dataset_id", "output_field_id", "input_field_id",
                "transformation_type", "transformation_subtype")))
            .join(column_lineage_shapes, column_lineage_shapes.c.id == column_lineage_shape_edges.c.shape_id)
            .where(column_lineage_shapes.c.digest == stored)
        ).all()  # fmt: skip
    assert len(edges) == 1
    assert digest([tuple(e) for e in edges]) == stored  # type: ignore[misc]
    engine.dispose()


def test_a_run_whose_later_events_name_more_edges_keeps_them_all(db_url: str) -> None:
    """START names one edge, COMPLETE (another request) another: the run's history holds both,
    as one shape, and a third request naming only the first changes nothing."""
    engine = create_store_engine(db_url)
    src, out = ("file", "/s"), ("file", "/o")
    run = "00000000-0000-4000-8000-0000000000c1"

    def event(kind: str, second: int, fields: dict[str, Any]) -> dict[str, Any]:
        lineage = column_lineage(fields)
        return run_event(run, kind, f"2024-01-01T00:00:{second:02d}Z", job="j",
                         inputs=[dataset(*src)], outputs=[dataset(*out, columnLineage=lineage)])  # fmt: skip

    a = {"a": [(*src, "x", "DIRECT", "IDENTITY")]}
    b = {"b": [(*src, "y", "DIRECT", "IDENTITY")]}
    ingest(engine, [event("START", 0, a)])
    ingest(engine, [event("RUNNING", 1, b)])
    ingest(engine, [event("COMPLETE", 2, a)])
    with engine.connect() as conn:
        names = sorted(
            conn.execute(
                sa.text("SELECT target_column_name FROM plumbline_column_lineage")
            ).scalars()
        )
    assert names == ["a", "b"]
    assert _count(engine, run_shapes) == 1
    assert _count(engine, column_lineage_shapes) == 2  # {a}, then {a, b}
    engine.dispose()
