"""Rerun plans on crafted histories, both backends: a diamond with a run before the bad version, a
job that never read it, a cycle, parent grouping, and every way of naming the bad versions."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from builder import T0, StoreBuilder

from plumbline.analysis.csvout import rerun_csv
from plumbline.analysis.rerun import rerun_plan
from plumbline.analysis.rerun_model import RerunPlan
from plumbline.store import schema as s
from plumbline.store.read.errors import InvalidArgumentError, NotFoundError


@pytest.fixture
def history(engine: sa.Engine) -> dict[str, str]:
    """raw -> j1 -> a -> (j2 -> b, j3 -> c) -> j4 -> d; j5 reads raw only.

    Minute 0: j1 writes a (good); 10: j2 reads it (before the bad version); 20: j1 writes a again
    (bad); 30: j2, 40: j3, 50: j4 (reading b and c) run on it; 60: j5 runs. j2 and j3 run under
    one Airflow task's run, j4 under another's.
    """
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("ns", "j1", ("raw",), ("a",))
        b.job("ns", "j2", ("a",), ("b",))
        b.job("ns", "j3", ("a",), ("c",))
        b.job("ns", "j4", ("b", "c"), ("d",))
        b.job("ns", "j5", ("raw",), ("e",))
        b.job("airflow", "dag.task_1")
        b.job("airflow", "dag.task_2")
        runs = {
            "good": b.run("ns", "j1", reads=("raw",), writes=("a",), minutes=0),
            "early": b.run("ns", "j2", reads=("a",), writes=("b",), minutes=10),
            "bad": b.run("ns", "j1", reads=("raw",), writes=("a",), minutes=20),
            "j2": b.run("ns", "j2", reads=("a",), writes=("b",), minutes=30),
            "j3": b.run("ns", "j3", reads=("a",), writes=("c",), minutes=40, state="FAIL"),
            "j4": b.run("ns", "j4", reads=("b", "c"), writes=("d",), minutes=50),
            "j5": b.run("ns", "j5", reads=("raw",), writes=("e",), minutes=60),
            "task_1": b.run("airflow", "dag.task_1", minutes=25),
            "task_2": b.run("airflow", "dag.task_2", minutes=45),
        }
        for child, parent in (("j2", "task_1"), ("j3", "task_1"), ("j4", "task_2")):
            conn.execute(
                sa.update(s.runs)
                .where(s.runs.c.uuid == runs[child])
                .values(parent_run_uuid=runs[parent])
            )
    return runs


def plan(engine: sa.Engine, **kw: object) -> RerunPlan:
    with engine.connect() as conn:
        return rerun_plan(conn, **kw)  # type: ignore[arg-type]


def jobs(result: RerunPlan) -> list[str]:
    return [step.job.name for step in result.steps]


def test_the_plan_for_a_bad_version(engine: sa.Engine, history: dict[str, str]) -> None:
    result = plan(engine, node_id="dataset:ns:a", version=history["bad"])
    assert jobs(result) == ["j2", "j3", "j4"]  # j5 never read a; j1 wrote it
    j2, j3, j4 = result.steps
    assert [r.id for r in j2.runs] == [history["j2"]]  # not the run before the bad version
    assert j4.after == (1, 2) and j2.after == () and j3.after == ()
    assert j3.runs[0].state == "FAILED"
    reads = {(r.name, r.version, r.affected) for r in j4.runs[0].reads}
    assert reads == {("b", history["j2"], True), ("c", history["j3"], True)}
    assert [(w.name, w.affected) for w in j2.runs[0].writes] == [("b", True)]
    assert [v.version for v in result.bad_versions] == [history["bad"]]
    assert result.affected_versions == 4  # a, b, c, d
    doc = result.to_json()
    assert doc["source"] == {"nodeId": "dataset:ns:a", "version": history["bad"]}
    assert doc["steps"][0]["order"] == 1
    assert doc["steps"][0]["job"] == {"namespace": "ns", "name": "j2"}
    assert doc["hiddenSteps"] == 0
    redo = doc["steps"][-1]["runs"][0]
    assert set(redo) == {"id", "state", "startedAt", "endedAt", "parentRunId", "parentJob",
                         "reads", "writes"}  # fmt: skip
    assert {"name": "b", "affected": True}.items() <= next(
        r for r in redo["reads"] if r["name"] == "b"
    ).items()
    assert redo["startedAt"].endswith("Z") or "+00:00" in redo["startedAt"]


def test_steps_are_grouped_by_parent_job(engine: sa.Engine, history: dict[str, str]) -> None:
    result = plan(engine, node_id="dataset:ns:a", version=history["bad"])
    assert [s.parent_job.name if s.parent_job else None for s in result.steps] == [
        "dag.task_1",
        "dag.task_1",
        "dag.task_2",
    ]
    assert result.steps[0].runs[0].parent_run_id == history["task_1"]
    assert result.groups() == [
        {"parentJob": {"namespace": "airflow", "name": "dag.task_1"}, "steps": [1, 2]},
        {"parentJob": {"namespace": "airflow", "name": "dag.task_2"}, "steps": [3]},
    ]


def test_every_way_to_name_the_bad_versions_gives_the_same_plan(
    engine: sa.Engine, history: dict[str, str]
) -> None:
    expected = plan(engine, node_id="dataset:ns:a", version=history["bad"]).steps
    since = T0 + timedelta(minutes=15)
    assert plan(engine, node_id="dataset:ns:a", since=since).steps == expected
    assert plan(engine, run_id=history["bad"]).steps == expected
    assert plan(engine, node_id="job:ns:j1", since=since).steps == expected
    # since the start of time: the good version too, so the early run of j2 is in
    everything = plan(engine, node_id="dataset:ns:a", since=T0)
    assert [r.id for r in everything.steps[0].runs] == [history["early"], history["j2"]]
    # a version nobody read: an empty plan
    assert plan(engine, run_id=history["j4"]).steps == ()


def test_a_cycle_is_ordered_by_time(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("ns", "seed", (), ("x",))
        b.job("ns", "jx", ("x",), ("y",))
        b.job("ns", "jy", ("y",), ("x",))
        bad = b.run("ns", "seed", writes=("x",), minutes=0)
        b.run("ns", "jx", reads=("x",), writes=("y",), minutes=1)
        b.run("ns", "jy", reads=("y",), writes=("x",), minutes=2)
        b.run("ns", "jx", reads=("x",), writes=("y",), minutes=3)
    result = plan(engine, run_id=bad)
    assert jobs(result) == ["jx", "jy"]
    assert len(result.steps[0].runs) == 2
    assert result.steps[0].in_cycle is True
    assert result.steps[1].after == (1,)


def test_csv_has_one_row_per_step(engine: sa.Engine, history: dict[str, str]) -> None:
    lines = rerun_csv(plan(engine, run_id=history["bad"])).splitlines()
    assert (
        lines[0] == "order,namespace,job,parentNamespace,parentJob,after,runs,runIds,affectedReads"
    )
    assert lines[1] == f"1,ns,j2,airflow,dag.task_1,,1,{history['j2']},ns:a#{history['bad']}"
    assert lines[3].startswith("3,ns,j4,airflow,dag.task_2,1 2,1,")
    assert len(lines) == 4


def test_bad_input(engine: sa.Engine, history: dict[str, str]) -> None:
    with pytest.raises(NotFoundError, match="'nope'"):
        plan(engine, node_id="dataset:ns:a", version="nope")
    with pytest.raises(NotFoundError, match="'no-such-run'"):
        plan(engine, run_id="no-such-run")
    with pytest.raises(NotFoundError, match="'zz'"):
        plan(engine, node_id="dataset:ns:zz", since=T0)
    with pytest.raises(InvalidArgumentError):
        plan(engine, node_id="dataset:ns:a")
    with pytest.raises(InvalidArgumentError):
        plan(engine, node_id="dataset:ns:a", since=T0, version="v")
    with pytest.raises(InvalidArgumentError):
        plan(engine, node_id="job:ns:j1", version="v")
    with pytest.raises(InvalidArgumentError):
        plan(engine, node_id="oops", since=T0)
    with pytest.raises(InvalidArgumentError):
        plan(engine)


def test_runs_pruned_since_the_bad_data_are_named(
    engine: sa.Engine, history: dict[str, str]
) -> None:
    from plumbline.store.write.prune import prune

    # the first run of j2 (minute 10) and of j1 (minute 0) go; each job's latest stays
    prune(engine, T0 + timedelta(minutes=15))
    result = plan(engine, node_id="dataset:ns:a", since=T0)
    assert jobs(result) == ["j2", "j3", "j4"]
    assert [r.id for r in result.steps[0].runs] == [history["j2"]]
    # j2 reads a: its pruned run may have read affected data; j1's (reads raw) is not named
    assert [(p.id, p.job) for p in result.pruned] == [(history["early"], "j2")]
    doc = result.to_json()["prunedRuns"][0]
    assert doc["job"] == {"namespace": "ns", "name": "j2"} and doc["prunedAt"]
    # a plan starting after those runs ended names none
    later = plan(engine, node_id="dataset:ns:a", since=T0 + timedelta(minutes=15))
    assert later.pruned == ()
