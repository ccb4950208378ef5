"""Runs: order-tolerant states and times, parents, errors, nominal times, on both backends."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.engine import Engine
from store_summary import dataset, facet, ingest, run_event, summary

from plumbline.store.write.runs import summarize

RUN = "5a1e0000-0000-4000-8000-000000000001"


def _t(second: int) -> str:
    return f"2024-01-01T00:00:{second:02d}Z"


def _run(engine: Engine, run_id: str = RUN) -> dict:
    return next(r for r in summary(engine)["runs"] if r["run"] == run_id)


def test_complete_before_start(engine: Engine) -> None:
    ingest(engine, [run_event(RUN, "COMPLETE", _t(9))])
    assert _run(engine)["state"] == "COMPLETE"
    ingest(engine, [run_event(RUN, "START", _t(1))])
    run = _run(engine)
    assert (run["state"], run["started_at"], run["ended_at"]) == ("COMPLETE", _t(1), _t(9))


def test_late_running_does_not_reopen_a_finished_run(engine: Engine) -> None:
    ingest(engine, [run_event(RUN, "START", _t(1)), run_event(RUN, "COMPLETE", _t(9))])
    ingest(engine, [run_event(RUN, "RUNNING", _t(5))])
    assert _run(engine)["state"] == "COMPLETE"
    # even a START stamped after the end (clock skew) never reopens it
    ingest(engine, [run_event(RUN, "START", _t(30))])
    run = _run(engine)
    assert (run["state"], run["started_at"], run["ended_at"]) == ("COMPLETE", _t(1), _t(9))
    assert run["states"] == [
        ["COMPLETE", _t(9)],
        ["RUNNING", _t(5)],
        ["START", _t(1)],
        ["START", _t(30)],
    ]


def test_running_then_fail_with_error(engine: Engine) -> None:
    ingest(engine, [run_event(RUN, "START", _t(1)), run_event(RUN, "RUNNING", _t(2))])
    assert _run(engine)["state"] == "RUNNING"
    error = facet(message="boom", programmingLanguage="python", stackTrace="Traceback…")
    ingest(engine, [run_event(RUN, "FAIL", _t(3), errorMessage=error)])
    run = _run(engine)
    assert (run["state"], run["ended_at"], run["error"]) == ("FAIL", _t(3), ["boom", "python"])


def test_other_and_missing_event_type_change_no_state(engine: Engine) -> None:
    ingest(
        engine,
        [
            run_event(RUN, "START", _t(1)),
            run_event(RUN, "OTHER", _t(2)),
            run_event(RUN, None, _t(3)),
        ],
    )
    run = _run(engine)
    assert (run["state"], run["states"]) == ("START", [["START", _t(1)]])


def test_parent_run_and_job_are_created_when_missing(engine: Engine) -> None:
    parent_run = "5a1e0000-0000-4000-8000-0000000000aa"
    parent = facet(run={"runId": parent_run.upper()}, job={"namespace": "apps", "name": "my_app"})
    ingest(engine, [run_event(RUN, "START", _t(1), job="my_app.action", parent=parent)])
    state = summary(engine)
    assert [r["run"] for r in state["runs"]] == [RUN, parent_run]
    child, placeholder = state["runs"]
    assert (child["parent"], placeholder["job"], placeholder["state"]) == (
        parent_run,
        "apps:my_app",
        None,
    )
    jobs = {j["job"]: j["parent"] for j in state["jobs"]}
    assert jobs == {"apps:my_app": None, "tests:my_app.action": "apps:my_app"}


def test_nominal_time_and_merged_facets(engine: Engine) -> None:
    nominal = facet(nominalStartTime="2024-01-01T00:00:00+02:00")
    ingest(engine, [run_event(RUN, "START", _t(1), nominalTime=nominal, custom_a=facet(a=1))])
    ingest(engine, [run_event(RUN, "COMPLETE", _t(2), custom_b=facet(b=2))])
    run = _run(engine)
    assert run["nominal"] == ["2023-12-31T22:00:00Z", None]
    assert run["facets"] == ["custom_a", "custom_b", "nominalTime"]


def test_summarize_rules() -> None:
    t = [datetime(2024, 1, 1, 0, 0, s, tzinfo=UTC) for s in range(10)]
    assert summarize([]) == {"current_state": None, "started_at": None, "ended_at": None}
    assert summarize([("RUNNING", t[2]), ("START", t[1])])["current_state"] == "RUNNING"
    # same instant: the terminal state wins, and FAIL wins over COMPLETE
    assert summarize([("START", t[3]), ("COMPLETE", t[3])])["current_state"] == "COMPLETE"
    assert summarize([("COMPLETE", t[3]), ("FAIL", t[3])])["current_state"] == "FAIL"
    # the latest terminal state, started at the first START
    assert summarize([("FAIL", t[4]), ("COMPLETE", t[6]), ("START", t[2]), ("START", t[1])]) == {
        "current_state": "COMPLETE",
        "started_at": t[1],
        "ended_at": t[6],
    }
    # without a START, the first RUNNING is the start
    assert summarize([("RUNNING", t[5]), ("RUNNING", t[4])])["started_at"] == t[4]


def test_inputs_read_the_current_version_of_a_dataset(engine: Engine) -> None:
    writer_run = "5a1e0000-0000-4000-8000-0000000000b1"
    reader_run = "5a1e0000-0000-4000-8000-0000000000b2"
    ingest(
        engine, [run_event(writer_run, "COMPLETE", _t(1), job="w", outputs=[dataset("ns", "t")])]
    )
    ingest(engine, [run_event(reader_run, "COMPLETE", _t(2), job="r", inputs=[dataset("ns", "t")])])
    io = summary(engine)["run_io"]
    assert [row[:4] for row in io] == [
        [writer_run, ["ns", "t"], "output", writer_run],
        [reader_run, ["ns", "t"], "input", writer_run],
    ]
