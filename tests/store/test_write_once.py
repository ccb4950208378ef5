"""Each row written once per change, not once per event (issue 30 step 2): a run's inputs get the
version they read in the row inserted (not an update right after), and an event that changes
nothing of a run's inputs and outputs rewrites none of them; a new run's row is inserted with the
state its events give it (not inserted bare and updated in the same write). Counted as the rows
the database says each statement on ``run_io`` and ``runs`` wrote, on both backends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa

# ruff: noqa: S608 (trigger text from this module's constants only)
from store_summary import dataset, facet, ingest, run_event

from plumbline.store.schema import dataset_versions, run_io, runs

WRITER = "00000000-0000-4000-8000-000000000e01"
READER = "00000000-0000-4000-8000-000000000e02"


@contextmanager
def rows_written(engine: sa.Engine, table: str) -> Iterator[list[str]]:
    """The row versions written into ``table`` while the block ran (``insert`` / ``update``,
    one per row), as triggers on the table see them (the write path's PostgreSQL statements go
    straight to the driver)."""
    log = f"{table}_writes"
    with engine.begin() as conn:
        conn.execute(sa.text(f"CREATE TABLE {log} (op VARCHAR(6))"))
        for op in ("insert", "update"):
            if engine.dialect.name == "sqlite":
                conn.execute(
                    sa.text(
                        f"CREATE TRIGGER {log}_{op} AFTER {op.upper()} ON {table}"
                        f" BEGIN INSERT INTO {log} VALUES ('{op}'); END"
                    )
                )
            else:
                conn.execute(
                    sa.text(
                        f"CREATE FUNCTION {log}_{op}() RETURNS trigger LANGUAGE plpgsql AS"
                        f" $$ BEGIN INSERT INTO {log} VALUES ('{op}'); RETURN NULL; END $$"
                    )
                )
                conn.execute(
                    sa.text(
                        f"CREATE TRIGGER {log}_{op} AFTER {op.upper()} ON {table}"
                        f" FOR EACH ROW EXECUTE FUNCTION {log}_{op}()"
                    )
                )
    written: list[str] = []
    try:
        yield written
    finally:
        with engine.begin() as conn:
            written.extend(conn.execute(sa.text(f"SELECT op FROM {log}")).scalars())
            for op in ("insert", "update"):
                conn.execute(
                    sa.text(
                        f"DROP TRIGGER {log}_{op}"
                        + ("" if engine.dialect.name == "sqlite" else f" ON {table}")
                    )
                )
                if engine.dialect.name != "sqlite":
                    conn.execute(sa.text(f"DROP FUNCTION {log}_{op}()"))
            conn.execute(sa.text(f"DROP TABLE {log}"))


def _reader(kind: str, second: int) -> dict[str, Any]:
    return run_event(READER, kind, f"2024-01-01T01:00:{second:02d}Z", job="reader",
                     inputs=[dataset("file", "/a")], outputs=[dataset("file", "/b")])  # fmt: skip


def test_inputs_are_linked_as_inserted_and_not_rewritten_when_nothing_changes(
    engine: sa.Engine,
) -> None:
    ingest(
        engine,
        [
            run_event(WRITER, kind, f"2024-01-01T00:00:0{n}Z", job="writer",
                      outputs=[dataset("file", "/a")])
            for n, kind in enumerate(("START", "COMPLETE"))
        ],
    )  # fmt: skip
    with rows_written(engine, "run_io") as started:
        ingest(engine, [_reader("START", 0)])
    assert sorted(started) == ["insert", "insert"]  # the input and the output; no update after
    with rows_written(engine, "run_io") as running:
        ingest(engine, [_reader("RUNNING", 5)])
    assert running == []  # the same input and output: nothing written
    with engine.connect() as conn:
        linked = conn.execute(
            sa.select(run_io.c.dataset_version_id, run_io.c.version_source).where(
                run_io.c.direction == "input"
            )
        ).one()
        made = conn.execute(
            sa.select(dataset_versions.c.id).where(dataset_versions.c.run_uuid == WRITER)
        ).scalar_one()
    assert tuple(linked) == (made, "eventTime")


ONCE = "00000000-0000-4000-8000-000000000e03"
TWICE = "00000000-0000-4000-8000-000000000e04"
PARENT = "00000000-0000-4000-8000-000000000e05"


def _run_events(run_id: str) -> list[dict[str, Any]]:
    """START, RUNNING (a late error facet) and COMPLETE of a run with a parent and nominal time."""
    facets = {
        "parent": facet(run={"runId": PARENT}, job={"namespace": "tests", "name": "dag"}),
        "nominalTime": facet(nominalStartTime="2024-01-01T00:00:00Z"),
    }
    error = {"errorMessage": facet(message="retried", programmingLanguage="python")}
    return [
        run_event(run_id, "START", "2024-01-02T00:00:01Z", job="once",
                  inputs=[dataset("file", "/in")], **facets),
        run_event(run_id, "RUNNING", "2024-01-02T00:00:02Z", job="once", **error),
        run_event(run_id, "COMPLETE", "2024-01-02T00:00:03Z", job="once",
                  inputs=[dataset("file", "/in")], outputs=[dataset("file", "/out")]),
    ]  # fmt: skip


_STATE = ("job_id", "job_version_id", "parent_run_uuid", "current_state", "nominal_start_time",
          "started_at", "ended_at", "error_message", "error_language", "last_event_at",
          "facets", "facet_times", "job_facets", "job_facet_times")  # fmt: skip


def test_a_new_run_is_inserted_with_its_state_and_not_written_again(engine: sa.Engine) -> None:
    with rows_written(engine, "runs") as together:
        ingest(engine, _run_events(ONCE))
    # the run (with its state, job version included) and its parent run known from the facet
    assert sorted(together) == ["insert", "insert"]
    for event in _run_events(TWICE):  # the same events one write each: the same row
        ingest(engine, [event])
    with engine.connect() as conn:
        found = {
            row.uuid: tuple(getattr(row, c) for c in _STATE)
            for row in conn.execute(sa.select(runs).where(runs.c.uuid.in_([ONCE, TWICE])))
        }
    assert found[ONCE] == found[TWICE]
    assert found[ONCE][_STATE.index("current_state")] == "COMPLETE"
    assert found[ONCE][_STATE.index("job_version_id")] is not None
    assert found[ONCE][_STATE.index("error_message")] == "retried"
