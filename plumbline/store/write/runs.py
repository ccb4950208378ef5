"""Runs: rows (parents included), state transitions, facets, errors, and what each run read and wrote."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.openlineage import TERMINAL_STATES, ParsedEvent, RunEvent
from plumbline.openlineage.types import parse_datetime
from plumbline.store.schema import jobs, namespaces, run_io, run_states, runs
from plumbline.store.write.conflicts import Conflict, RunConflictError
from plumbline.store.write.context import Appearance, Batch, Key, RunState, as_utc
from plumbline.store.write.facets import merge_facets_at, time_key
from plumbline.store.write.jobs import parent_job_key
from plumbline.store.write.upsert import (
    execute_many,
    insert_ignore,
    insert_returning,
    select_in,
    update_many,
)
from plumbline.store.write.version_as_of import versions_as_of

STATES = ("START", "RUNNING", "COMPLETE", "ABORT", "FAIL")
# ties at the same instant: a terminal state beats a running one, a failure beats a success
_RANK = {"START": 0, "RUNNING": 1, "COMPLETE": 2, "ABORT": 3, "FAIL": 4}


# a run's state as the write path keeps it (with its id and uuid): plain columns, then facets
# (each with its facets' event times, see plumbline.store.write.facets)
_PLAIN = (
    "job_id",
    "job_version_id",
    "parent_run_uuid",
    "current_state",
    "nominal_start_time",
    "nominal_end_time",
    "started_at",
    "ended_at",
    "error_message",
    "error_stack",
    "error_language",
    "last_event_at",
)
_FACETS = ("facets", "facet_times", "job_facets", "job_facet_times")
_STATE = (*_PLAIN, *_FACETS)


# statements built once: the write path compiles each statement object once (select_in)
_LOCK_RUNS = (
    sa.select(runs.c.id, runs.c.uuid, *(runs.c[column] for column in _STATE))
    .order_by(runs.c.uuid)
    .with_for_update(key_share=True)
)
_RUN_IO = sa.select(
    run_io.c.run_id,
    run_io.c.dataset_id,
    run_io.c.direction,
    run_io.c.facets,
    run_io.c.facet_times,
    run_io.c.row_count,
    run_io.c.byte_count,
    run_io.c.file_count,
    run_io.c.statistics_at,
    run_io.c.dataset_version_id,
    run_io.c.version_source,
    run_io.c.read_at,
)
_RUN_STATES = sa.select(
    run_states.c.run_id, run_states.c.state, run_states.c.transitioned_at, run_states.c.weaker
)
WEAKER_FACET = "plumbline_extraction"  # a weaker source: event-log extraction


def _loaded(row: sa.Row[Any]) -> RunState:
    """A stored run's state, from its row (``_LOCK_RUNS``)."""
    return RunState(
        id=row.id,
        uuid=row.uuid,
        job_id=row.job_id,
        job_version_id=row.job_version_id,
        parent_run_uuid=row.parent_run_uuid,
        current_state=row.current_state,
        nominal_start_time=as_utc(row.nominal_start_time),
        nominal_end_time=as_utc(row.nominal_end_time),
        started_at=as_utc(row.started_at),
        ended_at=as_utc(row.ended_at),
        error_message=row.error_message,
        error_stack=row.error_stack,
        error_language=row.error_language,
        last_event_at=as_utc(row.last_event_at),
        facets=dict(row.facets or {}),
        facet_times=dict(row.facet_times or {}),
        job_facets=dict(row.job_facets or {}),
        job_facet_times=dict(row.job_facet_times or {}),
    )


def _insert_runs(statement: Any) -> Any:
    return statement.on_conflict_do_nothing(index_elements=["uuid"]).returning(
        runs.c.id, runs.c.uuid
    )


def resolve_runs(connection: Connection, batch: Batch, job_versions: dict[str, int]) -> None:
    """Create missing runs (the events' runs and their parent runs); lock and load their state.

    A new run's row is inserted with the state this write's events give it (``job_versions``:
    run uuid -> job version, from :func:`plumbline.store.write.jobs.write_job_versions`), so
    that :func:`update_runs` need not write it again. A run id is one job's: an event whose
    run id is another job's run raises
    :class:`RunConflictError` (the normalizer keeps that event, marked failed); a ``parent``
    facet that disagrees is reported (see :mod:`.conflicts`), the run's own events win.
    """
    own: dict[str, int] = {}  # run -> its job, from the runs' own events
    for parsed in batch.run_events():
        key = batch.job_key(parsed)
        assert key is not None and parsed.run_id is not None
        job = batch.job_ids[key]
        if own.setdefault(parsed.run_id, job) != job:
            raise RunConflictError(_reused(parsed.run_id, key, "another job in the same write"))
    wanted = dict(own)
    parents: dict[str, tuple[int, Key]] = {}  # parent run -> (its job, the facet's job name)
    for parsed in batch.run_events():
        event = parsed.event
        assert isinstance(event, RunEvent)
        parent = event.run.facets.parent if event.run.facets is not None else None
        parent_key = parent_job_key(parsed)
        if parent is not None and parent_key is not None:
            parent_run = parent.run.run_id.lower()
            parents.setdefault(parent_run, (batch.job_ids[parent_key], parent_key))
            wanted.setdefault(parent_run, batch.job_ids[parent_key])
    if not wanted:
        return
    # new runs come back from the insert (and are ours, locked); only the others are read
    initial = {
        run_uuid: _initial_state(batch, run_uuid, wanted[run_uuid], job_versions)
        for run_uuid in sorted(wanted)
    }
    created = insert_returning(
        connection,
        runs,
        [
            {
                "uuid": run_uuid,
                "job_id": wanted[run_uuid],
                **_columns(initial[run_uuid]),
                "created_at": batch.now,
                "updated_at": batch.now,
            }
            for run_uuid in sorted(wanted)
        ],
        _insert_runs,
    )
    for row in created:
        batch.run_ids[row.uuid] = row.id
        batch.created_runs.add(row.id)
        # the later steps fold the events into the new run as into any other (write_run_states)
        batch.run_state[row.id] = RunState(id=row.id, uuid=row.uuid, job_id=wanted[row.uuid])
        batch.inserted_runs[row.id] = initial[row.uuid]
    existing = wanted.keys() - {row.uuid for row in created}
    rows = select_in(connection, _LOCK_RUNS, [runs.c.uuid], existing) if existing else []
    for row in rows:
        state = _loaded(row)
        owner = own.get(row.uuid)
        if owner is not None and owner != row.job_id:
            key = next(k for k, v in batch.job_ids.items() if v == owner)
            other = _job_name(connection, row.job_id)
            if state.last_event_at is not None:  # the run has events of its own
                raise RunConflictError(_reused(row.uuid, key, f"job {other}"))
            # known only from a child's parent facet: the run's own events say whose it is
            batch.conflicts.append(
                Conflict(
                    "parent_job_mismatch",
                    row.uuid,
                    f"run {row.uuid} was known from a parent facet as a run of job {other}; "
                    f"its own events are job {key[0]}:{key[1]}'s, so it moves there",
                )
            )
            state.job_id = owner
        batch.run_ids[row.uuid] = row.id
        batch.run_state[row.id] = state
    for run_uuid, (job, key) in sorted(parents.items()):
        if batch.run_state[batch.run_ids[run_uuid]].job_id != job:
            batch.conflicts.append(
                Conflict(
                    "parent_job_mismatch",
                    run_uuid,
                    f"a parent facet names run {run_uuid} as a run of job {key[0]}:{key[1]}, "
                    "but it is another job's run (kept there)",
                )
            )


def _job_name(connection: Connection, job_id: int) -> str:
    """``namespace:name`` of a job (to name it in a conflict)."""
    row = connection.execute(
        sa.select(namespaces.c.name, jobs.c.name)
        .join(namespaces, namespaces.c.id == jobs.c.namespace_id)
        .where(jobs.c.id == job_id)
    ).one()
    return f"{row[0]}:{row[1]}"


def _reused(run_uuid: str, key: Key, owner: str) -> Conflict:
    return Conflict(
        "run_id_reused",
        run_uuid,
        f"run id {run_uuid} of an event of job {key[0]}:{key[1]} is already the run of "
        f"{owner}: the event is not folded into that run",
    )


IoKey = tuple[int, int, str]  # (run id, dataset id, direction)
_STATISTICS = ("row_count", "byte_count", "file_count")
# an input's version: the one its `version` facet names beats catalog enrichment's snapshot id,
# which beats what the read observed of a dataset no run writes, which beats the version as of
# its event time
_SOURCE_RANK = {"datasetVersion": 3, "catalog": 2, "observed": 1, "eventTime": 0, None: -1}
Linked = tuple[int | None, str | None]  # (dataset_versions.id, version_source)


def write_run_io(connection: Connection, batch: Batch) -> None:
    """One row per (run, dataset, direction) with the version touched and the statistics.

    Facets and statistics follow event time, as a dataset's facets do: a late, older event
    (a START after its COMPLETE) changes neither. An input's version is the one its ``version``
    facet names (catalog enrichment's, ranked below the producer's own), else ``eventTime``:
    found once the write is done (:mod:`plumbline.store.write.input_versions`).
    """
    seen: dict[IoKey, list[Appearance]] = {}
    linked: dict[IoKey, Linked] = {}
    for index, appearance in enumerate(batch.appearances):  # in event-time order
        if appearance.role == "static" or not isinstance(appearance.event.event, RunEvent):
            continue
        run_id = batch.run_ids[appearance.event.run_id or ""]
        key = (run_id, batch.dataset_ids[appearance.key], appearance.role)
        seen.setdefault(key, []).append(appearance)
        found = batch.version_ids.get(index)
        if appearance.role == "output":
            linked[key] = (found, None) if found is not None else linked.get(key, (None, None))
            continue
        offered: Linked = (found, batch.version_sources[index]) if found else (None, "eventTime")
        linked[key] = _better(linked.get(key, (None, None)), offered)
    if not seen:
        return
    existing = {
        (row.run_id, row.dataset_id, row.direction): row
        for row in select_in(connection, _RUN_IO, [run_io.c.run_id], {key[0] for key in seen})
    }
    batch.new_io.update(key for key in seen if key not in existing)
    rows = [
        _run_io_row(key, seen[key], _merged(linked[key], existing.get(key)), existing.get(key))
        for key in sorted(seen)
    ]
    _link_new_inputs(connection, [row for row in rows if _key(row) not in existing])
    # a row this write leaves as it is stored is not written again (no new row version)
    changed = [row for row in rows if not _unchanged(row, existing.get(_key(row)))]
    if changed:
        execute_many(connection, run_io, changed, _run_io_conflict)
    for row in [*existing.values(), *rows]:  # the rows written last
        io = batch.run_io.setdefault(_get(row, "run_id"), {})
        io[(_get(row, "dataset_id"), _get(row, "direction"))] = _get(row, "row_count")


def _key(row: dict[str, Any]) -> IoKey:
    return (row["run_id"], row["dataset_id"], row["direction"])


_WRITTEN = ("dataset_version_id", "version_source", "facets", "facet_times", *_STATISTICS)
_WRITTEN_TIMES = ("read_at", "statistics_at")


def _unchanged(row: dict[str, Any], old: Any) -> bool:
    """Whether writing ``row`` over the stored ``old`` (None: none) would change nothing."""
    if old is None:
        return False
    return all(row[c] == getattr(old, c) for c in _WRITTEN) and all(
        as_utc(row[c]) == as_utc(getattr(old, c)) for c in _WRITTEN_TIMES
    )


def _link_new_inputs(connection: Connection, rows: list[dict[str, Any]]) -> None:
    """New inputs read by event time get their version as of their read time now, in the row
    inserted, instead of an update once the write is done (which, when nothing this write
    changes moves it, finds the same version and writes nothing)."""
    wanted = [
        row
        for row in rows
        if row["direction"] == "input"
        and row["version_source"] == "eventTime"
        and row["dataset_version_id"] is None
        and row["read_at"] is not None
    ]
    if not wanted:
        return
    found = versions_as_of(
        connection, [(row["dataset_id"], row["read_at"], row["run_id"]) for row in wanted]
    )
    for row, version_id in zip(wanted, found, strict=True):
        row["dataset_version_id"] = version_id


def _get(row: Any, name: str) -> Any:
    """A column of a row read (attribute) or about to be written (key)."""
    return row[name] if isinstance(row, dict) else getattr(row, name)


def _better(kept: Linked, offered: Linked) -> Linked:
    """The version link of higher rank (the later one among equals)."""
    return offered if _SOURCE_RANK[offered[1]] >= _SOURCE_RANK[kept[1]] else kept


def _merged(new: Linked, old: Any) -> Linked:
    """The link of a run IO row once this write's is merged into the stored one (``old``)."""
    if old is None:
        return new
    stored: Linked = (old.dataset_version_id, old.version_source)
    if old.direction == "output":
        return new if new[0] is not None else stored
    if new[1] == "eventTime" and stored[1] in (None, "eventTime"):
        return (stored[0], "eventTime")  # found again once the write is done
    return _better(stored, new)


def _run_io_row(
    key: IoKey, appearances: list[Appearance], link: Linked, old: Any
) -> dict[str, Any]:
    """The row of ``key`` once the appearances (event-time order) are merged into ``old``."""
    run_id, dataset_id, direction = key
    facets: dict[str, Any] = dict(old.facets or {}) if old is not None else {}
    times: dict[str, str] = dict(old.facet_times or {}) if old is not None else {}
    counts = {name: getattr(old, name, None) for name in _STATISTICS}
    counts_at = as_utc(old.statistics_at) if old is not None else None
    facet_key = "inputFacets" if direction == "input" else "outputFacets"
    for appearance in appearances:
        sent = appearance.raw.get(facet_key)
        if sent:
            facets, times, _taken = merge_facets_at(facets, times, sent, time_key(appearance.time))
        statistics = _statistics(appearance)
        if statistics is not None and (counts_at is None or appearance.time >= counts_at):
            sent_counts = (statistics.row_count, statistics.size, statistics.file_count)
            for name, value in zip(_STATISTICS, sent_counts, strict=True):
                if value is not None:
                    counts[name] = value
            counts_at = as_utc(appearance.time)
    read_at = None
    if direction == "input":
        read_times = [as_utc(a.time) for a in appearances]
        if old is not None and old.read_at is not None:
            read_times.append(as_utc(old.read_at))
        read_at = min(when for when in read_times if when is not None)
    return {
        "run_id": run_id,
        "dataset_id": dataset_id,
        "direction": direction,
        "dataset_version_id": link[0],
        "version_source": link[1],
        "read_at": read_at,
        "facets": facets or None,
        "facet_times": times or None,
        **counts,
        "statistics_at": counts_at,
        "created_at": as_utc(appearances[0].time),
    }


def _run_io_conflict(statement: Any) -> Any:
    excluded = statement.excluded
    # facets and statistics were merged with the stored row, read under its run's lock
    return statement.on_conflict_do_update(
        index_elements=["run_id", "dataset_id", "direction"],
        set_={
            "dataset_version_id": excluded.dataset_version_id,
            "version_source": excluded.version_source,
            "read_at": excluded.read_at,
            "facets": excluded.facets,
            "facet_times": excluded.facet_times,
            "row_count": excluded.row_count,
            "byte_count": excluded.byte_count,
            "file_count": excluded.file_count,
            "statistics_at": excluded.statistics_at,
        },
    )


def _statistics(appearance: Any) -> Any:
    dataset = appearance.dataset
    if appearance.role == "input":
        facets = dataset.input_facets
        return facets.input_statistics if facets is not None else None
    facets = dataset.output_facets
    if facets is not None and facets.output_statistics is not None:
        return facets.output_statistics
    # older producers put outputStatistics among the dataset facets
    return dataset.facets.output_statistics if dataset.facets is not None else None


def _transitions(batch: Batch) -> list[tuple[str, dict[str, Any]]]:
    """(run uuid, run_states row without its run id) of every state transition the events say."""
    found = []
    for parsed in batch.run_events():
        event = parsed.event
        assert isinstance(event, RunEvent)
        if event.event_type in STATES:
            row = {
                "state": event.event_type,
                "transitioned_at": as_utc(parsed.event_time),
                "weaker": is_weaker(parsed.raw),
            }
            found.append((parsed.run_id or "", row))
    return found


def _fold_event(state: RunState, parsed: ParsedEvent) -> None:
    """An event's time, run and job facets, parent, nominal time and error folded into a run."""
    event = parsed.event
    assert isinstance(event, RunEvent)
    time_of = as_utc(parsed.event_time)
    if state.last_event_at is None or time_of > state.last_event_at:
        state.last_event_at = time_of
    # facets from an event older than those kept change nothing, nor do the columns they give
    time = time_key(parsed.event_time)
    state.job_facets, state.job_facet_times, _ = merge_facets_at(
        state.job_facets, state.job_facet_times, parsed.raw["job"].get("facets"), time
    )
    state.facets, state.facet_times, taken = merge_facets_at(
        state.facets, state.facet_times, parsed.raw["run"].get("facets"), time
    )
    facets = event.run.facets
    if facets is None:
        return
    if facets.parent is not None and "parent" in taken:
        state.parent_run_uuid = facets.parent.run.run_id.lower()
    if facets.nominal_time is not None and "nominalTime" in taken:
        nominal = facets.nominal_time
        state.nominal_start_time = as_utc(parse_datetime(nominal.nominal_start_time))
        if nominal.nominal_end_time is not None:
            state.nominal_end_time = as_utc(parse_datetime(nominal.nominal_end_time))
    if facets.error_message is not None and "errorMessage" in taken:
        state.error_message = facets.error_message.message
        state.error_stack = facets.error_message.stack_trace
        state.error_language = facets.error_message.programming_language


def _summarized(
    state: RunState, stronger: list[tuple[str, datetime]], weaker: list[tuple[str, datetime]]
) -> None:
    summary = summarize(_with_weaker(stronger, weaker))
    state.current_state = summary["current_state"]
    state.started_at, state.ended_at = summary["started_at"], summary["ended_at"]


def _initial_state(
    batch: Batch, run_uuid: str, job_id: int, job_versions: dict[str, int]
) -> RunState:
    """A new run's state from this write's events alone: what :func:`write_run_states` will
    find for it (its stored transitions are this write's, the first of equal ones kept)."""
    state = RunState(id=0, uuid=run_uuid, job_id=job_id)
    for parsed in batch.run_events():
        if parsed.run_id == run_uuid:
            _fold_event(state, parsed)
    kept: dict[tuple[str, datetime], bool] = {}
    for uuid_of, row in sorted(
        _transitions(batch), key=lambda t: (t[1]["state"], t[1]["transitioned_at"])
    ):
        if uuid_of == run_uuid:
            kept.setdefault((row["state"], row["transitioned_at"]), row["weaker"])
    if kept:
        stronger = [key for key, weak in kept.items() if not weak]
        _summarized(state, stronger, [key for key, weak in kept.items() if weak])
    if run_uuid in job_versions:
        state.job_version_id = job_versions[run_uuid]
    return state


def _columns(state: RunState) -> dict[str, Any]:
    """A run's columns as written (empty facets as NULL)."""
    return {
        **{column: getattr(state, column) for column in _PLAIN},
        **{column: getattr(state, column) or None for column in _FACETS},
    }


def write_run_states(connection: Connection, batch: Batch, job_versions: dict[str, int]) -> None:
    """Record transitions, then derive each run's state and times from all its transitions
    (written back by :func:`update_runs`).

    Order-tolerant: the current state is the latest transition by event time, a terminal state
    wins (a START or RUNNING that arrives after COMPLETE never reopens the run), and a weaker
    source's terminal state (an event with the ``plumbline_extraction`` run facet) never
    overrides one another source recorded (``weaker_source_overruled``).
    """
    transitions = [
        {"run_id": batch.run_ids[run_uuid], **row} for run_uuid, row in _transitions(batch)
    ]
    transitions.sort(key=lambda t: (t["run_id"], t["state"], t["transitioned_at"]))
    new_transitions: dict[int, set[datetime]] = {}
    for t in transitions:
        if t["state"] in ("COMPLETE", "FAIL"):
            new_transitions.setdefault(t["run_id"], set()).add(t["transitioned_at"])
    batch.ended_runs.update(t["run_id"] for t in transitions if t["state"] in TERMINAL_STATES)
    insert_ignore(connection, run_states, transitions)
    touched = {t["run_id"] for t in transitions}
    history: dict[int, list[tuple[str, datetime]]] = {}
    weaker: dict[int, list[tuple[str, datetime]]] = {}  # a weaker source's transitions
    for row in select_in(
        connection,
        _RUN_STATES,
        [run_states.c.run_id],
        touched,
    ):
        kept = weaker if row.weaker else history
        kept.setdefault(row.run_id, []).append((row.state, as_utc(row.transitioned_at)))

    for parsed in batch.run_events():
        _fold_event(batch.run_state[batch.run_ids[parsed.run_id or ""]], parsed)

    for run_uuid, version_id in job_versions.items():
        batch.run_state[batch.run_ids[run_uuid]].job_version_id = version_id
    for run_id in sorted(history.keys() | weaker.keys()):
        state = batch.run_state[run_id]
        states = _with_weaker(history.get(run_id, []), weaker.get(run_id, []))
        overruled = _overruled(history.get(run_id, []), weaker.get(run_id, []))
        if overruled is not None and run_id in new_transitions:
            batch.conflicts.append(Conflict("weaker_source_overruled", state.uuid, overruled))
        _summarized(state, history.get(run_id, []), weaker.get(run_id, []))
        tied = _complete_and_fail_tied(states, new_transitions.get(run_id, set()))
        if tied is not None:
            batch.conflicts.append(
                Conflict(
                    "complete_and_fail_same_time",
                    state.uuid,
                    f"run {state.uuid} has both COMPLETE and FAIL at {tied.isoformat()}: "
                    "it ends FAILED",
                )
            )

    batch.touched_runs = touched | {batch.run_ids[p.run_id or ""] for p in batch.run_events()}
    batch.touched_runs |= {batch.run_ids[run_uuid] for run_uuid in job_versions}


def update_runs(connection: Connection, batch: Batch) -> None:
    """Write back the state of the runs the events touched (see :func:`write_run_states`)."""
    updates = []
    for run_id in sorted(batch.touched_runs):
        columns = _columns(batch.run_state[run_id])
        inserted = batch.inserted_runs.get(run_id)
        if inserted is not None and _columns(inserted) == columns:
            continue  # inserted as it is now (resolve_runs): no second row version
        updates.append({"b_id": run_id, **columns, "updated_at": batch.now})
    if updates:
        update_many(connection, runs, updates)


def is_weaker(raw: dict[str, Any]) -> bool:
    """Whether an event comes from a weaker source (it carries ``plumbline_extraction``)."""
    facets = (raw.get("run") or {}).get("facets")
    return isinstance(facets, dict) and WEAKER_FACET in facets


def _with_weaker(
    stronger: list[tuple[str, datetime]], weaker: list[tuple[str, datetime]]
) -> list[tuple[str, datetime]]:
    """A run's transitions as they count: a weaker source's terminal ones only while no other
    source has ended the run (its START and RUNNING always count)."""
    if any(s in TERMINAL_STATES for s, _ in stronger):
        return stronger + [(s, t) for s, t in weaker if s not in TERMINAL_STATES]
    return stronger + weaker


def _overruled(
    stronger: list[tuple[str, datetime]],
    weaker: list[tuple[str, datetime]],
) -> str | None:
    """In words, a weaker source's terminal state that another source's overrules, if any."""
    ends = [(t, s) for s, t in stronger if s in TERMINAL_STATES]
    claimed = [(t, s) for s, t in weaker if s in TERMINAL_STATES]
    if not ends or not claimed:
        return None
    kept = summarize(stronger)["current_state"]
    differing = sorted({s for _, s in claimed if s != kept})
    if not differing:
        return None
    return (
        f"an event-log extraction says {'/'.join(differing)} where live capture recorded "
        f"{kept}: the run stays {kept}"
    )


def _complete_and_fail_tied(
    states: list[tuple[str, datetime]], new_times: set[datetime]
) -> datetime | None:
    """The time at which a run has both COMPLETE and FAIL, when one of them is new here."""
    completes = {t for s, t in states if s == "COMPLETE"}
    fails = {t for s, t in states if s == "FAIL"}
    tied = sorted(completes & fails & new_times)
    return tied[0] if tied else None


class RunStatus(TypedDict):
    """What a run's transitions say about it."""

    current_state: str | None
    started_at: datetime | None
    ended_at: datetime | None


def summarize(states: list[tuple[str, datetime]]) -> RunStatus:
    """current_state, started_at and ended_at from a run's transitions, whatever their order."""
    terminal = [(t, _RANK[s], s) for s, t in states if s in TERMINAL_STATES]
    running = [(t, _RANK[s], s) for s, t in states if s not in TERMINAL_STATES]
    current = max(terminal)[2] if terminal else (max(running)[2] if running else None)
    starts = [t for s, t in states if s == "START"] or [t for s, t in states if s == "RUNNING"]
    return {
        "current_state": current,
        "started_at": min(starts) if starts else None,
        "ended_at": max(t for t, _, _ in terminal) if terminal else None,
    }
