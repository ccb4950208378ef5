"""`plumbline db prune` on a real store (SQLite and PostgreSQL): dry run, real run, bad input."""

from __future__ import annotations

import uuid
from typing import Any

import sqlalchemy as sa
from click.testing import CliRunner
from sqlalchemy.engine import Engine

from plumbline.cli import main
from plumbline.openlineage import parse_event
from plumbline.store.write import writer_for

_PRODUCER = "https://example.com/producer"


def _event(run_id: str, event_type: str, time: str) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "eventTime": time,
        "producer": _PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run_id},
        "job": {"namespace": "ns", "name": "daily"},
        "inputs": [{"namespace": "ns", "name": "raw"}],
        "outputs": [{"namespace": "ns", "name": "clean"}],
    }


def _three_days_of_runs(engine: Engine) -> None:
    for day in (1, 2, 3):
        run_id = str(uuid.UUID(int=day, version=4))
        events = [
            _event(run_id, "START", f"2024-01-0{day}T00:00:00Z"),
            _event(run_id, "COMPLETE", f"2024-01-0{day}T01:00:00Z"),
        ]
        writer_for(engine).write([parse_event(e) for e in events])


def _count(engine: Engine, table: str) -> int:
    with engine.connect() as connection:
        return connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()  # noqa: S608


def _prune(db_url: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["db", "prune", "--db", db_url, *args], env={})
    return result.exit_code, result.output


def test_dry_run_counts_and_changes_nothing_then_prune_deletes(db_url: str, engine: Engine) -> None:
    _three_days_of_runs(engine)
    code, output = _prune(db_url, "--before", "2024-01-03", "--dry-run")
    assert code == 0, output
    assert "cut-off 2024-01-03T00:00:00+00:00" in output
    assert "would delete 2 runs rows" in output
    assert "would delete 2 dataset_versions rows" in output
    assert _count(engine, "runs") == 3

    code, output = _prune(db_url, "--before", "2024-01-03")
    assert code == 0, output
    assert "deleted 2 runs rows" in output
    assert _count(engine, "runs") == 1
    assert _count(engine, "job_dataset_edges") == 2  # lineage stays
    # raw events were received just now, so a date in 2024 keeps them; an age of 1 minute too
    assert _count(engine, "lineage_events") == 6
    code, output = _prune(db_url, "--older-than", "1m")
    assert code == 0 and "deleted 0 lineage_events rows" in output, output


def test_bad_arguments_are_refused_with_a_clear_message(db_url: str, engine: Engine) -> None:
    _three_days_of_runs(engine)
    for args, message in (
        ((), "give exactly one of --older-than and --before"),
        (("--older-than", "30d", "--before", "2024-01-01"), "give exactly one"),
        (("--older-than", "thirty"), "expected a positive number and a unit"),
        (("--older-than", "0d"), "expected a positive number and a unit"),
        (("--before", "yesterday"), "expected an ISO 8601 date"),
    ):
        code, output = _prune(db_url, *args)
        assert code == 2, (args, output)
        assert message in output, (args, output)
    assert _count(engine, "runs") == 3


def test_refuses_a_database_that_is_not_migrated(tmp_path: Any) -> None:
    # issue 27: a mistyped path used to create (and then refuse) an empty file; nothing is made now
    code, output = _prune(f"sqlite:///{tmp_path / 'empty.db'}", "--older-than", "30d")
    assert code == 2
    assert "no plumbline store at" in output and "plumbline db upgrade" in output
    assert not (tmp_path / "empty.db").exists()
