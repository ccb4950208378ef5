"""`plumbline db renormalize` on a real store (SQLite and PostgreSQL): events the database
refused are kept, marked failed; once the cause is gone they are normalized again."""

from __future__ import annotations

import uuid
from typing import Any

import sqlalchemy as sa
from click.testing import CliRunner
from poisoned_jobs import cure_jobs, poison_job
from sqlalchemy.engine import Engine

from plumbline.cli import main
from plumbline.openlineage import parse_event
from plumbline.server.fresh_reads import wait_until_normalized
from plumbline.store import Store
from plumbline.store.write import writer_for

RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


def _run(job: str) -> list[dict[str, Any]]:
    run_id = str(uuid.uuid4())
    return [
        {
            "eventType": event_type,
            "eventTime": f"2024-01-01T00:00:0{second}Z",
            "producer": "https://example.com/producer",
            "schemaURL": RUN_EVENT,
            "run": {"runId": run_id},
            "job": {"namespace": "ns", "name": job},
            "inputs": [{"namespace": "ns", "name": f"{job}_in"}],
            "outputs": [{"namespace": "ns", "name": f"{job}_out"}],
        }
        for second, event_type in enumerate(("START", "COMPLETE"))
    ]


def _accept_with_one_job_refused(engine: Engine) -> None:
    """Two runs accepted; the database refuses one of their jobs: its two events fail."""
    poison_job(engine, "refused")
    writer = writer_for(engine)
    writer.accept([parse_event(e) for e in _run("fine") + _run("refused")])
    assert wait_until_normalized(Store(engine), writer, 30) == 0
    assert _failed(engine) == 2


def _failed(engine: Engine) -> int:
    with engine.connect() as connection:
        return connection.execute(
            sa.text("SELECT count(*) FROM pending_events WHERE failed_at IS NOT NULL")
        ).scalar_one()


def _jobs(engine: Engine) -> list[str]:
    with engine.connect() as connection:
        return sorted(connection.execute(sa.text("SELECT name FROM jobs")).scalars())


def _renormalize(db_url: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["db", "renormalize", "--db", db_url, *args], env={})
    return result.exit_code, result.output


def test_failed_events_are_normalized_once_the_cause_is_gone(db_url: str, engine: Engine) -> None:
    _accept_with_one_job_refused(engine)
    code, output = _renormalize(db_url, "--dry-run")
    assert code == 0, output
    assert "2 failed events, by error:" in output
    assert "poisoned job" in output
    assert _failed(engine) == 2 and _jobs(engine) == ["fine"]  # a dry run changes nothing

    cure_jobs(engine)
    code, output = _renormalize(db_url)
    assert code == 0, output
    assert "normalized again: 2 of 2" in output
    assert "2 normalized, 0 failed again" in output
    assert _failed(engine) == 0
    assert _jobs(engine) == ["fine", "refused"]
    with engine.connect() as connection:
        states = connection.execute(
            sa.text(
                "SELECT r.current_state FROM runs r JOIN jobs j ON j.id = r.job_id"
                " WHERE j.name = 'refused'"
            )
        ).scalars()
        assert list(states) == ["COMPLETE"]
        assert connection.execute(sa.text("SELECT count(*) FROM pending_events")).scalar() == 0

    code, output = _renormalize(db_url)  # nothing left to do
    assert (code, output.strip()) == (0, "no failed events")


def test_events_that_fail_again_stay_marked_and_the_command_fails(
    db_url: str, engine: Engine
) -> None:
    _accept_with_one_job_refused(engine)
    code, output = _renormalize(db_url)
    assert code == 1, output
    assert "0 normalized, 2 failed again" in output
    assert "still cannot be normalized" in output and "poisoned job" in output
    assert _failed(engine) == 2
    assert _jobs(engine) == ["fine"]
    with engine.connect() as connection:
        errors = connection.execute(sa.text("SELECT error FROM pending_events")).scalars()
        assert all("poisoned job" in error for error in errors)
