"""Which version each run input read, and where that came from: a ``version`` facet (Iceberg
snapshot ids, Delta versions), catalog enrichment's snapshot id, else the dataset's version as of
the run's event time, whatever order the events arrive in. Both backends."""

from __future__ import annotations

import itertools

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from store_summary import dataset, facet, ingest, run_event

from plumbline.store.read.errors import NotFoundError
from plumbline.store.read.runs import get_run
from plumbline.store.read.versions import (
    find_version,
    readers_of,
    run_versions,
    versions_by_id,
    writers_of,
)
from plumbline.store.schema import run_io, runs
from plumbline.store.write.version_as_of import version_as_of

NS = "warehouse"


def _run_id(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def _t(second: int) -> str:
    return f"2024-01-01T00:{second // 60:02d}:{second % 60:02d}Z"


def _write(run: int, start: int, end: int, state: str = "COMPLETE", name: str = "d") -> list:
    """A writer of ``name``: START and a terminal event."""
    out = [dataset(NS, name)]
    return [
        run_event(_run_id(run), "START", _t(start), job=f"writer{run}", outputs=out),
        run_event(_run_id(run), state, _t(end), job=f"writer{run}", outputs=out),
    ]


def _read(run: int, at: int, *inputs: dict) -> list:
    ins = list(inputs) or [dataset(NS, "d")]
    return [
        run_event(_run_id(run), "START", _t(at), job="reader", inputs=ins),
        run_event(_run_id(run), "COMPLETE", _t(at + 1), job="reader", inputs=ins),
    ]


def _input_of(engine: Engine, run: int, name: str = "d") -> tuple[str | None, str | None]:
    """(version, source) of the run's input ``name``."""
    with engine.connect() as conn:
        pk = conn.execute(sa.select(runs.c.id).where(runs.c.uuid == _run_id(run))).scalar_one()
        found = [v for v in run_versions(conn, [pk]) if v.direction == "input" and v.name == name]
    assert len(found) == 1
    return found[0].version, found[0].version_source


def test_a_version_facet_names_the_version_read(engine: Engine) -> None:
    snapshot = dataset(NS, "d", version=facet(datasetVersion="4711"))
    ingest(engine, _write(1, 1, 2) + _read(9, 5, snapshot))
    assert _input_of(engine, 9) == ("4711", "datasetVersion")


def test_catalog_enrichment_snapshot_is_ranked_below_the_producers_own(engine: Engine) -> None:
    by_catalog = {
        "_producer": "https://github.com/plumbline/plumbline/tree/1.0/plumbline/server/catalog",
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/DatasetVersionDatasetFacet.json",
        "datasetVersion": "900",
    }
    ingest(engine, _read(9, 5, dataset(NS, "d", version=by_catalog)))
    assert _input_of(engine, 9) == ("900", "catalog")
    # the COMPLETE names the producer's own snapshot: it wins, in either arrival order
    own = dataset(NS, "d", version=facet(datasetVersion="901"))
    ingest(engine, [run_event(_run_id(9), "RUNNING", _t(5), job="reader", inputs=[own])])
    assert _input_of(engine, 9) == ("901", "datasetVersion")
    ingest(
        engine,
        [
            run_event(
                _run_id(9),
                "RUNNING",
                _t(7),
                job="reader",
                inputs=[dataset(NS, "d", version=by_catalog)],
            )
        ],
    )
    assert _input_of(engine, 9) == ("901", "datasetVersion")


# writer 1 makes the version at 00:10, writer 2 at 01:40 (seconds 10 and 100); readers at 50 and 200
EVENTS = {
    "w1": _write(1, 10, 20),
    "w2": _write(2, 100, 110),
    "r_early": _read(8, 50),
    "r_late": _read(9, 200),
}


# six of the 24 orders: readers before, between and after the writers
@pytest.mark.parametrize("order", list(itertools.permutations(EVENTS))[::4])
def test_an_input_reads_the_version_as_of_its_event_time_whatever_the_arrival_order(
    engine: Engine, order: tuple[str, ...]
) -> None:
    for name in order:
        ingest(engine, EVENTS[name])
    assert _input_of(engine, 8) == (_run_id(1), "eventTime")
    assert _input_of(engine, 9) == (_run_id(2), "eventTime")


def test_a_failed_or_unfinished_writer_makes_no_version_readers_see(engine: Engine) -> None:
    ingest(engine, _write(1, 10, 20) + _write(2, 100, 110, state="FAIL"))
    ingest(
        engine, [run_event(_run_id(3), "START", _t(120), job="writer3", outputs=[dataset(NS, "d")])]
    )
    ingest(engine, _read(9, 200))
    assert _input_of(engine, 9) == (_run_id(1), "eventTime")
    # writer 3 completes later: a reader after its start now reads its version
    ingest(
        engine,
        [run_event(_run_id(3), "COMPLETE", _t(130), job="writer3", outputs=[dataset(NS, "d")])],
    )
    assert _input_of(engine, 9) == (_run_id(3), "eventTime")


def test_read_before_any_version_has_none_and_a_run_never_reads_its_own_output(
    engine: Engine,
) -> None:
    ingest(engine, _read(8, 5))
    assert _input_of(engine, 8) == (None, "eventTime")
    # an incremental job: reads d and writes d; it read the version before its own
    ingest(engine, _write(1, 10, 20))
    both = [dataset(NS, "d")]
    ingest(
        engine,
        [
            run_event(_run_id(5), "START", _t(30), job="merge", inputs=both, outputs=both),
            run_event(_run_id(5), "COMPLETE", _t(40), job="merge", inputs=both, outputs=both),
        ],
    )
    assert _input_of(engine, 5) == (_run_id(1), "eventTime")
    # the run document (Marquez's inputDatasetVersions) says so too: not the current version
    with engine.connect() as conn:
        early = get_run(conn, _run_id(8))["inputDatasetVersions"]
    assert [i["datasetVersionId"]["version"] for i in early] == [None]


def _rows_read(plan: dict, relation: str) -> int:
    """Rows a PostgreSQL plan (``EXPLAIN (ANALYZE, FORMAT JSON)``) read from ``relation``."""
    own = plan.get("Relation Name") == relation
    found = plan["Actual Rows"] * plan["Actual Loops"] if own else 0
    return found + sum(_rows_read(child, relation) for child in plan.get("Plans", []))


def test_the_version_as_of_a_time_is_found_without_reading_the_history(engine: Engine) -> None:
    """Linking an input reads one version of the dataset, not every version made before it: a
    cost per run that would grow with the store (issue 30; migration 0017's index). Before it,
    PostgreSQL read and sorted all 60 versions here (2 once analyzed: an incremental sort)."""
    events = [e for run in range(1, 61) for e in _write(run, 2 * run, 2 * run + 1)]
    ingest(engine, events + _read(99, 500))
    assert _input_of(engine, 99) == (_run_id(60), "eventTime")
    with engine.connect() as conn:
        reader = conn.execute(sa.select(runs.c.id).where(runs.c.uuid == _run_id(99))).scalar_one()
        lookup = sa.select(
            version_as_of(run_io.c.dataset_id, run_io.c.read_at, run_io.c.run_id)
        ).where(run_io.c.run_id == reader, run_io.c.direction == "input")
        sql = str(lookup.compile(conn, compile_kwargs={"literal_binds": True}))
        if conn.dialect.name == "postgresql":
            plan = conn.exec_driver_sql(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}").scalar_one()
            assert _rows_read(plan[0]["Plan"], "dataset_versions") == 1
        else:  # SQLite: the index gives the order (no sort of the dataset's versions)
            steps = [row[-1] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}")]
            assert any("dataset_versions USING INDEX" in step for step in steps), steps
            assert not any("TEMP B-TREE" in step for step in steps), steps


def test_readers_writers_and_versions_by_name(engine: Engine) -> None:
    ingest(engine, _write(1, 10, 20) + _read(8, 50) + _read(9, 60))
    with engine.connect() as conn:
        version = find_version(conn, NS, "d", _run_id(1))
        assert version.run_uuid == _run_id(1) and version.name == "d"
        assert versions_by_id(conn, [version.id]) == {version.id: version}
        assert sorted(r.run_uuid for r in readers_of(conn, [version.id])) == [
            _run_id(8),
            _run_id(9),
        ]
        assert [w.run_uuid for w in writers_of(conn, [version.id])] == [_run_id(1)]
        with pytest.raises(NotFoundError, match="version 'nope' of dataset 'd'"):
            find_version(conn, NS, "d", "nope")
        with pytest.raises(NotFoundError, match="dataset 'x'"):
            find_version(conn, NS, "x", "nope")


def test_a_store_from_before_0010_is_relinked_from_its_raw_events(
    engine: Engine, db_url: str
) -> None:
    """Rows as the old rule left them (the dataset's current version when normalized, no
    source): `plumbline db renormalize` links them again from the raw events; a run whose raw
    events are gone keeps its link and no source."""
    from click.testing import CliRunner

    from plumbline.cli import main
    from plumbline.store.schema import lineage_events, run_io

    snapshot = dataset(NS, "d", version=facet(datasetVersion="4711"))
    ingest(engine, _write(1, 10, 20) + _write(2, 100, 110) + _read(8, 50) + _read(7, 60, snapshot))
    ingest(engine, _read(6, 70))
    with engine.begin() as conn:
        current = conn.execute(
            sa.select(run_io.c.dataset_version_id).join(runs, runs.c.id == run_io.c.run_id)
            .where(runs.c.uuid == _run_id(2), run_io.c.direction == "output")
        ).scalar_one()  # fmt: skip
        conn.execute(
            sa.update(run_io)
            .where(run_io.c.direction == "input")
            .values(version_source=None, dataset_version_id=current)
        )
        conn.execute(sa.delete(lineage_events).where(lineage_events.c.run_uuid == _run_id(6)))
    assert _input_of(engine, 8) == (_run_id(2), None)
    dry = CliRunner().invoke(main, ["db", "renormalize", "--db", db_url, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "would link 2 run input(s)" in dry.output and "1 have no raw events left" in dry.output
    assert _input_of(engine, 8) == (_run_id(2), None)
    done = CliRunner().invoke(main, ["db", "renormalize", "--db", db_url])
    assert done.exit_code == 0, done.output
    assert "linked 2 run input(s)" in done.output
    assert _input_of(engine, 8) == (_run_id(1), "eventTime")
    assert _input_of(engine, 7) == ("4711", "datasetVersion")
    assert _input_of(engine, 6) == (_run_id(2), None)
    again = CliRunner().invoke(main, ["db", "renormalize", "--db", db_url])
    assert "linked 0" in again.output and "1 have no raw events left" in again.output
