"""Dataset, job and run facets are merged by event time, not by arrival: the same events in any
arrival order (and over any number of writes and writers) leave the same facets."""

from __future__ import annotations

import itertools
import json
import uuid
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from store_summary import counts, dataset, facet, ingest, run_event, summary

from plumbline.openlineage import parse_event
from plumbline.store.engine import create_store_engine
from plumbline.store.write.writer import StoreWriter

RUN = "0b7e7c8e-0000-4000-8000-00000000000{}"
CUSTOM = "plumbline_test"  # a custom facet: any content, no model


def _deleted() -> dict[str, Any]:
    return {**facet(), "_deleted": True}


def _event(
    time: str,
    *,
    name: str = "out",
    run: str = RUN.format(1),
    dataset_facets: dict[str, Any] | None = None,
    job_facets: dict[str, Any] | None = None,
    run_facets: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A RUNNING event of job ``name`` writing dataset ``name``, with the facets given."""
    output = dataset("ns", name, **(dataset_facets or {}))
    event = run_event(run, "RUNNING", time, job=name, outputs=[output], **(run_facets or {}))
    if job_facets:
        event["job"]["facets"] = job_facets
    return event


_JSON_COLUMNS = {"facets", "facet_times", "job_facets", "job_facet_times"}


def _value(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _row(engine: Engine, table: str, **where: Any) -> dict[str, Any]:
    condition = " AND ".join(f"{column} = :{column}" for column in where)
    with engine.connect() as connection:
        row = connection.execute(
            sa.text(f"SELECT * FROM {table} WHERE {condition}"),  # noqa: S608 (test's own names)
            where,
        ).one()
    return {
        key: _value(value) if key in _JSON_COLUMNS else value for key, value in row._mapping.items()
    }


def _dataset(engine: Engine, name: str = "out") -> dict[str, Any]:
    return _row(engine, "datasets", name=name)


def _job(engine: Engine, name: str = "out") -> dict[str, Any]:
    return _row(engine, "jobs", name=name)


def _run(engine: Engine, run: str = RUN.format(1)) -> dict[str, Any]:
    return _row(engine, "runs", uuid=run)


def _owner(engine: Engine, table: str = "datasets", column: str = "facets") -> str:
    row = {"datasets": _dataset, "jobs": _job, "runs": _run}[table](engine)
    return row[column][CUSTOM]["owner"]


NEWER, OLDER = "2024-01-01T00:00:02Z", "2024-01-01T00:00:01Z"


@pytest.mark.parametrize("order", [(NEWER, OLDER), (OLDER, NEWER)], ids=["late", "in-order"])
def test_dataset_facets_keep_the_newest_event(engine: Engine, order: tuple[str, str]) -> None:
    for time in order:
        doc = facet(description=f"at {time}")
        custom = facet(owner=time)
        ingest(engine, [_event(time, dataset_facets={CUSTOM: custom, "documentation": doc})])
    row = _dataset(engine)
    assert row["facets"][CUSTOM]["owner"] == NEWER
    assert row["facets"]["documentation"]["description"] == f"at {NEWER}"
    assert row["description"] == f"at {NEWER}"  # the column follows the facet kept
    assert row["facet_times"] == {
        CUSTOM: "2024-01-01T00:00:02.000000Z",
        "documentation": "2024-01-01T00:00:02.000000Z",
    }


@pytest.mark.parametrize("order", [(NEWER, OLDER), (OLDER, NEWER)], ids=["late", "in-order"])
def test_job_facets_and_a_runs_job_facets_keep_the_newest_event(
    engine: Engine, order: tuple[str, str]
) -> None:
    for time in order:
        facets = {
            CUSTOM: facet(owner=time),
            "sourceCodeLocation": facet(type="git", url=f"https://example.com/{time}"),
        }
        ingest(engine, [_event(time, job_facets=facets)])
    job = _job(engine)
    assert job["facets"][CUSTOM]["owner"] == NEWER
    assert job["location"] == f"https://example.com/{NEWER}"
    assert _owner(engine, "runs", "job_facets") == NEWER
    assert _run(engine)["job_facet_times"] == {
        CUSTOM: "2024-01-01T00:00:02.000000Z",
        "sourceCodeLocation": "2024-01-01T00:00:02.000000Z",
    }


@pytest.mark.parametrize("order", [(NEWER, OLDER), (OLDER, NEWER)], ids=["late", "in-order"])
def test_run_facets_keep_the_newest_event(engine: Engine, order: tuple[str, str]) -> None:
    for time in order:
        nominal = facet(nominalStartTime=time)
        ingest(
            engine, [_event(time, run_facets={CUSTOM: facet(owner=time), "nominalTime": nominal})]
        )
    run = _run(engine)
    assert run["facets"][CUSTOM]["owner"] == NEWER
    assert run["facets"]["nominalTime"]["nominalStartTime"] == NEWER
    assert run["nominal_start_time"] is not None
    assert _event_second(run["nominal_start_time"]) == 2  # the column follows the facet kept


def _event_second(value: Any) -> int:
    return int(str(value)[17:19])  # 'YYYY-MM-DD HH:MM:SS…' on both backends


@pytest.mark.parametrize("where", ["dataset_facets", "job_facets", "run_facets"])
def test_a_newer_deletion_is_not_undone_by_an_older_value(engine: Engine, where: str) -> None:
    ingest(engine, [_event(NEWER, **{where: {CUSTOM: _deleted()}})])
    ingest(engine, [_event(OLDER, **{where: {CUSTOM: facet(owner=OLDER)}})])
    assert _facets_of(engine, where) == {}
    times = _times_of(engine, where)
    assert times == {CUSTOM: "2024-01-01T00:00:02.000000Z"}  # the deletion's time, remembered


@pytest.mark.parametrize("where", ["dataset_facets", "job_facets", "run_facets"])
def test_an_older_deletion_does_not_remove_a_newer_value(engine: Engine, where: str) -> None:
    ingest(engine, [_event(NEWER, **{where: {CUSTOM: facet(owner=NEWER)}})])
    ingest(engine, [_event(OLDER, **{where: {CUSTOM: _deleted()}})])
    assert _facets_of(engine, where)[CUSTOM]["owner"] == NEWER
    # and in arrival order, the deletion then a newer value: the value
    ingest(
        engine, [_event(OLDER, name="other", run=RUN.format(2), **{where: {CUSTOM: _deleted()}})]
    )
    ingest(
        engine,
        [_event(NEWER, name="other", run=RUN.format(2), **{where: {CUSTOM: facet(owner=NEWER)}})],
    )
    assert _facets_of(engine, where, "other", RUN.format(2))[CUSTOM]["owner"] == NEWER


def _facets_of(
    engine: Engine, where: str, name: str = "out", run: str = RUN.format(1)
) -> dict[str, Any]:
    if where == "dataset_facets":
        return _dataset(engine, name)["facets"] or {}
    if where == "job_facets":
        return _job(engine, name)["facets"] or {}
    return _run(engine, run)["facets"] or {}


def _times_of(engine: Engine, where: str) -> dict[str, str]:
    if where == "dataset_facets":
        return _dataset(engine)["facet_times"]
    if where == "job_facets":
        return _job(engine)["facet_times"]
    return _run(engine)["facet_times"]


GONE = "plumbline_gone"  # a custom facet the second event deletes


def _three(name: str, run: str) -> list[dict[str, Any]]:
    """Three events on the same facets: the first value of a facet, another value, then the
    first value again (sent again, it must still count as newer than the other one); a
    documentation that changes, then is not sent; a facet that the second event deletes."""
    first, second = facet(owner="first"), facet(owner="second")
    times = ["2024-01-01T00:00:01Z", "2024-01-01T00:00:02Z", "2024-01-01T00:00:03Z"]
    sent: list[dict[str, Any]] = [
        {CUSTOM: first, "documentation": facet(description="one"), GONE: facet(n=1)},
        {CUSTOM: second, "documentation": facet(description="two"), GONE: _deleted()},
        {CUSTOM: first},
    ]
    return [
        _event(
            time, name=name, run=run, dataset_facets=facets, job_facets=facets, run_facets=facets
        )
        for time, facets in zip(times, sent, strict=True)
    ]


def _state(engine: Engine, name: str, run: str) -> dict[str, Any]:
    data, job, run_row = _dataset(engine, name), _job(engine, name), _run(engine, run)
    return {
        "dataset": [data["facets"], data["facet_times"], data["description"]],
        "job": [job["facets"], job["facet_times"], job["description"]],
        "run": [run_row[c] for c in ("facets", "facet_times", "job_facets", "job_facet_times")],
    }


def test_every_arrival_order_ends_in_the_same_state(engine: Engine) -> None:
    states = []
    for number, order in enumerate(itertools.permutations(range(3))):
        name, run = f"out{number}", RUN.format(number)
        events = _three(name, run)
        for index in order:  # one write per event
            ingest(engine, [events[index]])
        states.append(_state(engine, name, run))
    ingest(engine, _three("together", RUN.format(9)))  # all in one write
    states.append(_state(engine, "together", RUN.format(9)))
    for state in states[1:]:
        assert state == states[0]
    dataset_facets, dataset_times, description = states[0]["dataset"]
    expected = {CUSTOM: facet(owner="first"), "documentation": facet(description="two")}
    assert dataset_facets == expected
    assert dataset_times == {
        CUSTOM: "2024-01-01T00:00:03.000000Z",
        "documentation": "2024-01-01T00:00:02.000000Z",
        GONE: "2024-01-01T00:00:02.000000Z",
    }
    assert description == "two"
    assert states[0]["job"][0] == expected
    assert states[0]["run"][0] == states[0]["run"][2] == expected


def test_rows_stored_before_facet_times_take_any_value_sent(engine: Engine) -> None:
    facets = {CUSTOM: facet(owner=NEWER)}
    ingest(engine, [_event(NEWER, dataset_facets=facets, job_facets=facets, run_facets=facets)])
    with engine.begin() as connection:  # as migration 0004 leaves rows written before it
        for table, columns in (
            ("datasets", "facet_times"),
            ("jobs", "facet_times"),
            ("runs", "facet_times = NULL, job_facet_times"),
        ):
            connection.execute(sa.text(f"UPDATE {table} SET {columns} = NULL"))  # noqa: S608
    older = {CUSTOM: facet(owner=OLDER)}
    ingest(engine, [_event(OLDER, dataset_facets=older, job_facets=older, run_facets=older)])
    for table, column in (
        ("datasets", "facets"),
        ("jobs", "facets"),
        ("runs", "facets"),
        ("runs", "job_facets"),
    ):
        assert _owner(engine, table, column) == OLDER
    # from then on, the time of the value taken counts
    oldest = {CUSTOM: facet(owner="oldest")}
    ingest(
        engine,
        [
            _event(
                "2024-01-01T00:00:00Z", dataset_facets=oldest, job_facets=oldest, run_facets=oldest
            )
        ],
    )
    assert _owner(engine) == OLDER
    assert _owner(engine, "runs", "job_facets") == OLDER


def test_writers_with_their_own_caches_still_merge_by_event_time(db_url: str) -> None:
    one, other = create_store_engine(db_url), create_store_engine(db_url)
    try:
        first, second = StoreWriter(one), StoreWriter(other)

        def write(writer: StoreWriter, time: str, owner: str) -> None:
            facets = {CUSTOM: facet(owner=owner)}
            writer.write([parse_event(_event(time, dataset_facets=facets))])

        write(first, "2024-01-01T00:00:02Z", "a")  # `first` caches these facets by digest
        # the same facets, newer: the digest stays, the facets' time moves on
        write(second, "2024-01-01T00:00:05Z", "a")
        # `first`'s cached facets match the stored digest; their time must come from the row
        write(first, "2024-01-01T00:00:03Z", "b")
        assert _owner(one) == "a"
        write(second, "2024-01-01T00:00:06Z", "c")  # new facets: a new digest
        write(first, "2024-01-01T00:00:04Z", "d")
        assert _owner(one) == "c"
        write(first, "2024-01-01T00:00:07Z", "e")
        assert _owner(one) == "e"
        assert _dataset(one)["facet_times"] == {CUSTOM: "2024-01-01T00:00:07.000000Z"}
    finally:
        one.dispose()
        other.dispose()


def test_same_facets_again_with_an_older_event_write_nothing(engine: Engine) -> None:
    """An older event's facets change no dataset row (no update statement for them)."""
    facets = {CUSTOM: facet(owner="a")}
    ingest(
        engine, [run_event(RUN.format(1), "RUNNING", NEWER, inputs=[dataset("ns", "in", **facets)])]
    )
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        older = run_event(RUN.format(1), "RUNNING", OLDER, inputs=[dataset("ns", "in", **facets)])
        ingest(engine, [older])
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    assert not [s for s in statements if s.lstrip().upper().startswith("UPDATE DATASETS")]
    assert _dataset(engine, "in")["facet_times"] == {CUSTOM: "2024-01-01T00:00:02.000000Z"}


def test_an_older_schema_arriving_late_is_history_not_the_current_schema(engine: Engine) -> None:
    def schema(*names: str) -> dict[str, Any]:
        return {"schema": facet(fields=[{"name": n, "type": "int"} for n in names])}

    ingest(engine, [_event(NEWER, dataset_facets=schema("a", "b"))])
    ingest(engine, [_event(OLDER, run=RUN.format(2), dataset_facets=schema("a"))])
    [state] = summary(engine)["datasets"]
    assert state["current_schema_fields"] == 2
    assert [field[0] for field in state["fields"]] == ["a", "b"]
    assert len(_dataset(engine)["facets"]["schema"]["fields"]) == 2
    # the older run's version keeps the schema it wrote
    assert sorted(version[3] for version in state["versions"]) == [1, 2]


def test_migration_0004_leaves_existing_facets_with_unknown_times(engine: Engine) -> None:
    from alembic import command

    from plumbline.store.migrate import _alembic_config, upgrade

    newer = {CUSTOM: facet(owner=NEWER)}
    ingest(engine, [_event(NEWER, dataset_facets=newer, job_facets=newer, run_facets=newer)])
    before = counts(engine)
    command.downgrade(_alembic_config(engine), "0003")  # the store as it was before times
    assert "facet_times" not in {c["name"] for c in sa.inspect(engine).get_columns("datasets")}
    upgrade(engine)
    assert counts(engine) == before  # no table rebuilt: nothing cascaded away on SQLite
    assert _dataset(engine)["facets"] == newer  # kept through the migration, time unknown
    assert _dataset(engine)["facet_times"] is None
    assert _run(engine)["job_facet_times"] is None
    older = {CUSTOM: facet(owner=OLDER)}
    # a new writer: the one of ``ingest`` may hold the facets of before in its cache
    StoreWriter(engine).write(
        [parse_event(_event(OLDER, dataset_facets=older, job_facets=older, run_facets=older))]
    )
    assert _owner(engine) == _owner(engine, "jobs") == _owner(engine, "runs") == OLDER


@pytest.mark.parametrize("order", ["in order", "late older run"])
def test_a_jobs_latest_run_and_current_version_follow_event_time(
    engine: Engine, order: str
) -> None:
    older_run, newer_run = str(uuid.UUID(int=11, version=4)), str(uuid.UUID(int=12, version=4))
    older = run_event(
        older_run, "COMPLETE", "2024-01-01T01:00:00Z", outputs=[dataset("ns", "old_output")]
    )
    newer = run_event(
        newer_run, "COMPLETE", "2024-01-01T02:00:00Z", outputs=[dataset("ns", "new_output")]
    )
    for event in [older, newer] if order == "in order" else [newer, older]:
        ingest(engine, [event])  # one write each
    with engine.connect() as connection:
        latest_run, outputs = connection.execute(
            sa.text(
                "SELECT j.latest_run_uuid, v.outputs FROM jobs j"
                " JOIN job_versions v ON v.id = j.current_version_id WHERE j.name = 'job'"
            )
        ).one()
    outputs = json.loads(outputs) if isinstance(outputs, str) else outputs
    assert latest_run == newer_run
    assert outputs == [{"namespace": "ns", "name": "new_output"}]


def _ids(engine: Engine, sql: str) -> Any:
    with engine.connect() as connection:
        return connection.execute(sa.text(sql)).one()


@pytest.mark.parametrize("order", ["in order", "late older run"])
def test_a_job_versions_latest_run_follows_event_time(engine: Engine, order: str) -> None:
    """Two runs of one job version: the newer by event time is its latest run."""
    older_run, newer_run = str(uuid.UUID(int=21, version=4)), str(uuid.UUID(int=22, version=4))
    output = [dataset("ns", "out")]
    older = run_event(older_run, "COMPLETE", "2024-01-01T01:00:00Z", outputs=output)
    newer = run_event(newer_run, "COMPLETE", "2024-01-01T02:00:00Z", outputs=output)
    for event in [older, newer] if order == "in order" else [newer, older]:
        ingest(engine, [event])  # one write each
    versions, latest_run, latest_at = _ids(
        engine, "SELECT count(*), max(latest_run_uuid), max(latest_run_at) FROM job_versions"
    )
    assert versions == 1
    assert latest_run == newer_run
    assert _event_second(latest_at) == 0 and str(latest_at)[11:13] == "02"


def _parent(job: str) -> dict[str, Any]:
    return facet(
        run={"runId": str(uuid.UUID(int=len(job), version=4))},
        job={"namespace": "tests", "name": job},
    )


@pytest.mark.parametrize("order", ["in order", "late older run"])
def test_a_jobs_parent_follows_event_time(engine: Engine, order: str) -> None:
    """A job whose runs named another parent job over time: the newest run's parent is its."""
    older = run_event(RUN.format(1), "COMPLETE", OLDER, job="child", parent=_parent("old_parent"))
    newer = run_event(RUN.format(2), "COMPLETE", NEWER, job="child", parent=_parent("new_parent"))
    for event in [older, newer] if order == "in order" else [newer, older]:
        ingest(engine, [event])
    (parent,) = _ids(
        engine,
        "SELECT p.name FROM jobs c JOIN jobs p ON p.id = c.parent_job_id WHERE c.name = 'child'",
    )
    assert parent == "new_parent"


@pytest.mark.parametrize("order", ["in order", "late start"])
def test_run_io_facets_and_statistics_follow_event_time(engine: Engine, order: str) -> None:
    """A run's START (older) and COMPLETE (newer) both describe its output: the COMPLETE's
    output facets and statistics are kept whichever arrives last."""

    def output(time: str, rows: int) -> dict[str, Any]:
        statistics = facet(rowCount=rows, size=rows * 100)
        return {
            **dataset("ns", "out"),
            "outputFacets": {CUSTOM: facet(owner=time), "outputStatistics": statistics},
        }

    start = run_event(RUN.format(1), "START", OLDER, outputs=[output(OLDER, 10)])
    complete = run_event(RUN.format(1), "COMPLETE", NEWER, outputs=[output(NEWER, 20)])
    for event in [start, complete] if order == "in order" else [complete, start]:
        ingest(engine, [event])
    row = _row(engine, "run_io", direction="output")
    assert row["facets"][CUSTOM]["owner"] == NEWER
    assert row["facet_times"] == {
        CUSTOM: "2024-01-01T00:00:02.000000Z",
        "outputStatistics": "2024-01-01T00:00:02.000000Z",
    }
    assert (row["row_count"], row["byte_count"]) == (20, 2000)
    assert _event_second(row["statistics_at"]) == 2


@pytest.mark.parametrize("order", ["in order", "late start"])
def test_a_dataset_versions_facets_follow_event_time(engine: Engine, order: str) -> None:
    """The version a run writes is described by its START and its COMPLETE: the newer wins."""
    start = _event(OLDER, dataset_facets={CUSTOM: facet(owner=OLDER)})
    complete = _event(NEWER, dataset_facets={CUSTOM: facet(owner=NEWER)})
    for event in [start, complete] if order == "in order" else [complete, start]:
        ingest(engine, [event])
    row = _row(engine, "dataset_versions", version=RUN.format(1))
    assert row["facets"][CUSTOM]["owner"] == NEWER
    assert row["facet_times"] == {CUSTOM: "2024-01-01T00:00:02.000000Z"}
