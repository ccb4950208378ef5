"""One meaning of "latest run" (event time) and conflicting run events reported, on both backends.

A back-filled older run arriving last is not the job's latest run anywhere (``latestRun``,
``latestRuns``, the job's runs, ``?lastRunStates``); a run id reused by another job is not folded
into that job's run; COMPLETE and FAIL at the same instant end FAILED and are reported.
"""

from __future__ import annotations

import logging

import pytest
from sqlalchemy.engine import Engine
from store_summary import facet, ingest, run_event, summary

from plumbline.store.read.common import job_pk
from plumbline.store.read.datasets import get_dataset
from plumbline.store.read.jobs import get_job, list_jobs
from plumbline.store.read.runs import list_job_runs
from plumbline.store.write import conflicts
from plumbline.store.write.normalizer import NormalizeError, failed_events

OLD = "5a1e0000-0000-4000-8000-00000000000a"
NEW = "5a1e0000-0000-4000-8000-00000000000b"


def _t(day: int, second: int = 0) -> str:
    return f"2024-01-{day:02d}T00:00:{second:02d}Z"


def test_a_backfilled_older_run_is_not_the_latest_run(engine: Engine) -> None:
    # the newer run (it failed) arrives first; the older run (it completed) is back-filled after
    ingest(engine, [run_event(NEW, "START", _t(5)), run_event(NEW, "FAIL", _t(5, 9))])
    ingest(engine, [run_event(OLD, "START", _t(1)), run_event(OLD, "COMPLETE", _t(1, 9))])
    with engine.connect() as conn:
        job = get_job(conn, "tests", "job")
        assert job["latestRun"]["id"] == NEW
        assert job["latestRun"]["state"] == "FAILED"
        assert [run["id"] for run in job["latestRuns"]] == [NEW, OLD]
        runs = list_job_runs(conn, job_pk(conn, "tests", "job"), 10, 0)["runs"]
        assert [run["id"] for run in runs] == [NEW, OLD]
        # ?lastRunStates agrees with latestRun: the job's latest run failed
        assert list_jobs(conn, "tests", 10, 0, ["COMPLETED"])["jobs"] == []
        failed = list_jobs(conn, "tests", 10, 0, ["FAILED"])["jobs"]
        assert [(j["name"], j["latestRun"]["state"]) for j in failed] == [("job", "FAILED")]


def test_a_late_event_of_an_older_run_does_not_make_it_the_latest(engine: Engine) -> None:
    ingest(engine, [run_event(OLD, "START", _t(1))])
    ingest(engine, [run_event(NEW, "START", _t(2)), run_event(NEW, "COMPLETE", _t(2, 5))])
    ingest(engine, [run_event(OLD, "COMPLETE", _t(1, 30))])  # arrives last, older than NEW's
    with engine.connect() as conn:
        job = get_job(conn, "tests", "job")
        assert [run["id"] for run in job["latestRuns"]] == [NEW, OLD]
        assert job["latestRun"]["id"] == NEW


def test_a_run_id_reused_by_another_job_is_not_folded_in(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    ingest(engine, [run_event(OLD, "START", _t(1), job="first")])
    before = conflicts.counts()["run_id_reused"]
    with caplog.at_level(logging.WARNING), pytest.raises(NormalizeError):
        ingest(engine, [run_event(OLD, "COMPLETE", _t(1, 5), job="second")])
    runs = {r["run"]: r for r in summary(engine)["runs"]}
    assert (runs[OLD]["job"], runs[OLD]["state"]) == ("tests:first", "START")
    with engine.connect() as conn:
        (message,) = failed_events(conn)
    assert f"run id {OLD} of an event of job tests:second is already the run of" in message
    assert conflicts.counts()["run_id_reused"] == before + 1
    assert any("lineage conflict (run_id_reused)" in r.getMessage() for r in caplog.records)


def test_complete_and_fail_at_the_same_time_end_failed_and_are_reported(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    before = conflicts.counts()["complete_and_fail_same_time"]
    with caplog.at_level(logging.WARNING):
        ingest(engine, [run_event(OLD, "START", _t(1)), run_event(OLD, "COMPLETE", _t(1, 9))])
        ingest(engine, [run_event(OLD, "FAIL", _t(1, 9))])
    runs = {r["run"]: r for r in summary(engine)["runs"]}
    assert runs[OLD]["state"] == "FAIL"
    assert conflicts.counts()["complete_and_fail_same_time"] == before + 1
    assert any(f"run {OLD} has both COMPLETE and FAIL at" in r.getMessage() for r in caplog.records)
    ingest(engine, [run_event(OLD, "RUNNING", _t(1, 5))])  # nothing new about the tie
    assert conflicts.counts()["complete_and_fail_same_time"] == before + 1


def test_a_placeholder_parent_run_moves_to_the_job_of_its_own_events(engine: Engine) -> None:
    parent = facet(run={"runId": NEW}, job={"namespace": "tests", "name": "app_as_child_says"})
    before = conflicts.counts()["parent_job_mismatch"]
    ingest(engine, [run_event(OLD, "START", _t(1), job="app.action", parent=parent)])
    ingest(engine, [run_event(NEW, "START", _t(1), job="app")])
    runs = {r["run"]: r for r in summary(engine)["runs"]}
    assert runs[NEW]["job"] == "tests:app"
    assert conflicts.counts()["parent_job_mismatch"] == before + 1


EXTRACTION = {"plumbline_extraction": facet(source="eventLog")}  # a weaker source's mark


@pytest.mark.parametrize("extraction_first", [False, True])
def test_an_extraction_never_overrides_what_live_capture_recorded(
    engine: Engine, extraction_first: bool
) -> None:
    """Live capture says FAILED; an event-log extraction says COMPLETE, later by event time,
    arriving after or before the live events: the run stays FAILED and the conflict is counted
    once per write that meets it; arriving after, its output does not become current."""
    before = conflicts.counts()["weaker_source_overruled"]
    out = [{"namespace": "file", "name": "/out"}]
    live = [
        run_event(OLD, "START", _t(1), outputs=out),
        run_event(OLD, "FAIL", _t(1, 9), outputs=out),
    ]
    extracted = [
        run_event(OLD, "START", _t(1), outputs=out, **EXTRACTION),
        run_event(OLD, "COMPLETE", _t(1, 30), outputs=out, **EXTRACTION),
    ]
    for events in [extracted, live] if extraction_first else [live, extracted]:
        ingest(engine, events)
    runs = {r["run"]: r for r in summary(engine)["runs"]}
    assert runs[OLD]["state"] == "FAIL"
    assert conflicts.counts()["weaker_source_overruled"] == before + 1
    if not extraction_first:
        with engine.connect() as conn:
            assert get_dataset(conn, "file", "/out")["currentVersion"] is None


def test_an_extraction_alone_still_ends_a_run(engine: Engine) -> None:
    """A run only an extraction knows of ends as the extraction says (no conflict)."""
    before = conflicts.counts()["weaker_source_overruled"]
    ingest(engine, [run_event(NEW, "START", _t(2), **EXTRACTION),
                    run_event(NEW, "COMPLETE", _t(2, 9), **EXTRACTION)])  # fmt: skip
    assert {r["run"]: r for r in summary(engine)["runs"]}[NEW]["state"] == "COMPLETE"
    ingest(engine, [run_event(NEW, "FAIL", _t(2, 5))])  # live capture, later, says FAIL
    assert {r["run"]: r for r in summary(engine)["runs"]}[NEW]["state"] == "FAIL"
    assert conflicts.counts()["weaker_source_overruled"] == before + 1
