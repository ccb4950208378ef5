"""A dataset's current version moves on successful runs only (as in Marquez), on both backends.

The output of a run that failed, was aborted or has not finished is a version in the history, never
the current one; a COMPLETE that names no outputs makes current what the run wrote before.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from store_summary import dataset, facet, ingest, run_event

GOOD = "5a1e0000-0000-4000-8000-0000000000c1"
BAD = "5a1e0000-0000-4000-8000-0000000000c2"
LATER = "5a1e0000-0000-4000-8000-0000000000c3"


def _t(minute: int) -> str:
    return f"2024-01-01T00:{minute:02d}:00Z"


def _table(**facets: Any) -> dict[str, Any]:
    return dataset("ns", "t", **facets)


def _current(engine: Engine) -> tuple[str | None, list[str]]:
    """The current version of ns:t, and all its versions."""
    with engine.connect() as connection:
        current = connection.execute(
            sa.text(
                "SELECT v.version FROM datasets d"
                " LEFT JOIN dataset_versions v ON v.id = d.current_version_id WHERE d.name = 't'"
            )
        ).scalar()
        versions = connection.execute(
            sa.text("SELECT version FROM dataset_versions ORDER BY version")
        ).scalars()
        return current, list(versions)


def test_a_failed_run_does_not_replace_the_current_version(engine: Engine) -> None:
    ingest(engine, [run_event(GOOD, "START", _t(1), outputs=[_table()])])
    ingest(engine, [run_event(GOOD, "COMPLETE", _t(2), outputs=[_table()])])
    assert _current(engine) == (GOOD, [GOOD])
    create = facet(lifecycleStateChange="CREATE")
    ingest(engine, [run_event(BAD, "START", _t(3), outputs=[_table(lifecycleStateChange=create)])])
    assert _current(engine) == (GOOD, [GOOD, BAD])  # running: not current yet
    ingest(engine, [run_event(BAD, "FAIL", _t(4), outputs=[_table()])])
    assert _current(engine) == (GOOD, [GOOD, BAD])  # failed: history only


def test_a_run_that_only_failed_leaves_no_current_version(engine: Engine) -> None:
    ingest(engine, [run_event(BAD, "START", _t(1), outputs=[_table()])])
    ingest(engine, [run_event(BAD, "FAIL", _t(2))])
    assert _current(engine) == (None, [BAD])


def test_a_complete_without_outputs_makes_the_earlier_output_current(engine: Engine) -> None:
    ingest(engine, [run_event(GOOD, "START", _t(1), outputs=[_table()])])
    assert _current(engine) == (None, [GOOD])
    ingest(engine, [run_event(GOOD, "COMPLETE", _t(2))])
    assert _current(engine) == (GOOD, [GOOD])


def test_the_run_that_completed_last_is_current_whatever_the_arrival_order(
    engine: Engine,
) -> None:
    ingest(engine, [run_event(LATER, "COMPLETE", _t(9), outputs=[_table()])])
    ingest(engine, [run_event(GOOD, "COMPLETE", _t(2), outputs=[_table()])])  # back-filled
    assert _current(engine)[0] == LATER


def test_complete_and_fail_at_one_instant_is_a_failure(engine: Engine) -> None:
    ingest(engine, [run_event(GOOD, "COMPLETE", _t(1), outputs=[_table()])])
    ingest(
        engine,
        [
            run_event(BAD, "COMPLETE", _t(5), outputs=[_table()]),
            run_event(BAD, "FAIL", _t(5)),
        ],
    )
    assert _current(engine)[0] == GOOD


def test_a_streaming_jobs_output_is_current_as_soon_as_seen(engine: Engine) -> None:
    event = run_event(GOOD, "RUNNING", _t(1), outputs=[_table()])
    event["job"]["facets"] = {"jobType": facet(processingType="STREAMING", integration="FLINK")}
    ingest(engine, [event])
    assert _current(engine)[0] == GOOD
