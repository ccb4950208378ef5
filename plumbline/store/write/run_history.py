"""Each job's recent ended runs, what change alerts compare the runs a write ended with (issue 19).

A job's history comes from the writer's cache when it can (:class:`JobHistory`): then the write
reads only its own runs of the job (one statement for all jobs, by run id) and merges them in.
Otherwise, and every ``HISTORY_REFRESH`` uses, one statement reads the last runs of all the jobs
that need it. The cache's entry is used only when the job's latest run, as this write loaded it
under the job's lock, is the one the entry's write left (another writer that started a newer run
of the job since makes it stale); a write that touches a run the entry holds drops the entry.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema
from plumbline.store.write.cache import EndedRun, JobHistory
from plumbline.store.write.context import Batch, as_utc
from plumbline.store.write.upsert import select_in

ENDED = frozenset(("COMPLETE", "FAIL", "ABORT"))
HISTORY_REFRESH = 32  # writes that use a cached history before it is read from the store again

# Each job's ended runs from its ``:skip``-th newest on (the newest ``:skip + 1``, more on a tie),
# with what they read and wrote: one statement for all the write's jobs. The cutoff per job is a
# subquery per job (not per run), and the runs are then a range of the (job_id, last_event_at)
# index. A job with fewer ended runs gets them all (the cutoff is the oldest time there is).
_SQL = """
    SELECT r.id, r.uuid, r.job_id, r.current_state, r.started_at, r.ended_at, r.last_event_at,
           r.error_message, io.dataset_id, io.direction, io.row_count
    FROM (
        SELECT j.id AS job_id,
               COALESCE((SELECT r2.last_event_at FROM runs r2
                         WHERE r2.job_id = j.id
                           AND r2.current_state IN ('COMPLETE', 'FAIL', 'ABORT')
                           AND r2.last_event_at IS NOT NULL
                         ORDER BY r2.last_event_at DESC
                         LIMIT 1 OFFSET :skip), :oldest) AS cutoff
        FROM jobs j
        WHERE j.id IN :jobs
    ) c
    JOIN runs r ON r.job_id = c.job_id AND r.last_event_at >= c.cutoff
    LEFT JOIN run_io io ON io.run_id = r.id
    WHERE r.current_state IN ('COMPLETE', 'FAIL', 'ABORT')
    """
# PostgreSQL: the same rows, with each job's cutoff and runs as LATERAL subqueries. The plain join
# let the planner read the whole runs table (a hash join) and evaluate the cutoff once per run
# instead of once per job: a cost per write that grew with the store (issue 30). LATERAL makes
# the runs of a job an index range of (job_id, last_event_at) after its one cutoff; OFFSET 0
# keeps the planner from flattening the subqueries back into the plain join.
_PG_SQL = """
    SELECT r.id, r.uuid, r.job_id, r.current_state, r.started_at, r.ended_at, r.last_event_at,
           r.error_message, io.dataset_id, io.direction, io.row_count
    FROM jobs j
    CROSS JOIN LATERAL (
        SELECT COALESCE((SELECT r2.last_event_at FROM runs r2
                         WHERE r2.job_id = j.id
                           AND r2.current_state IN ('COMPLETE', 'FAIL', 'ABORT')
                           AND r2.last_event_at IS NOT NULL
                         ORDER BY r2.last_event_at DESC
                         LIMIT 1 OFFSET :skip), :oldest) AS cutoff
        OFFSET 0
    ) c
    CROSS JOIN LATERAL (
        SELECT * FROM runs r0
        WHERE r0.job_id = j.id AND r0.last_event_at >= c.cutoff
          AND r0.current_state IN ('COMPLETE', 'FAIL', 'ABORT')
        OFFSET 0
    ) r
    LEFT JOIN run_io io ON io.run_id = r.id
    WHERE j.id IN :jobs
    """


def _history(sql: str) -> Any:
    return (
        sa.text(sql)
        .bindparams(
            sa.bindparam("jobs", expanding=True),
            sa.bindparam("skip", type_=sa.Integer()),
            sa.bindparam("oldest", type_=sa.DateTime(timezone=True)),
        )
        .columns(
            started_at=sa.DateTime(timezone=True),
            ended_at=sa.DateTime(timezone=True),
            last_event_at=sa.DateTime(timezone=True),
        )
    )


_HISTORY, _PG_HISTORY = _history(_SQL), _history(_PG_SQL)
# This write's runs (ended or not) with what they read and wrote (filtered by run id).
_RUNS = sa.select(
    schema.runs.c.id,
    schema.runs.c.uuid,
    schema.runs.c.job_id,
    schema.runs.c.current_state,
    schema.runs.c.started_at,
    schema.runs.c.ended_at,
    schema.runs.c.last_event_at,
    schema.runs.c.error_message,
    schema.run_io.c.dataset_id,
    schema.run_io.c.direction,
    schema.run_io.c.row_count,
).select_from(schema.runs.outerjoin(schema.run_io, schema.run_io.c.run_id == schema.runs.c.id))
_OLDEST = as_utc(datetime(1, 1, 2))


def _runs_of(rows: Any) -> dict[int, EndedRun]:
    """Rows of run and run_io (one per input/output, or one with no io) as runs by id."""
    found: dict[int, EndedRun] = {}
    for run_id, uuid, job, state, started, ended, at, error, dataset, direction, count in rows:
        run = found.get(run_id)
        if run is None:
            run = found[run_id] = EndedRun(
                run_id, uuid, job, state, as_utc(started), as_utc(ended), as_utc(at), error
            )
        if dataset is not None:
            run.io.add((dataset, direction))
            if direction == "output" and count is not None:
                run.rows[dataset] = count
    return found


def _in_memory(batch: Batch, run_id: int) -> EndedRun:
    """A run as this write leaves it, from its state and ``batch.run_io`` (all its io rows)."""
    state, io = batch.run_state[run_id], batch.run_io[run_id]
    return EndedRun(
        run_id,
        state.uuid,
        state.job_id,
        state.current_state or "",
        as_utc(state.started_at),
        as_utc(state.ended_at),
        as_utc(state.last_event_at),
        state.error_message,
        set(io),
        {d: n for (d, direction), n in io.items() if direction == "output" and n is not None},
    )


def _newest(runs: Any) -> list[EndedRun]:
    return sorted(runs, key=lambda r: r.order, reverse=True)


def _read(connection: Connection, depth: dict[int, int]) -> dict[int, list[EndedRun]]:
    """Each job's last ``depth[job]`` ended runs, newest first."""
    statement = _PG_HISTORY if connection.dialect.name == "postgresql" else _HISTORY
    rows = connection.execute(
        statement, {"jobs": sorted(depth), "skip": max(depth.values()) - 1, "oldest": _OLDEST}
    )
    per_job: dict[int, list[EndedRun]] = {}
    for run in _runs_of(rows).values():
        per_job.setdefault(run.job_id, []).append(run)
    return {job: _newest(runs)[: depth[job]] for job, runs in per_job.items()}


def _merged(
    entry: JobHistory, fresh: list[EndedRun], ended: set[int], history_runs: int, keep: int
) -> tuple[list[EndedRun], JobHistory] | None:
    """The entry with this write's runs of the job (``fresh``, as stored now) in place: the
    history and the entry to learn, or None when the entry cannot tell an ended run's
    ``history_runs`` predecessors (one ordered too low) or holds a run that is no longer ended."""
    runs = {run.id: run for run in entry.runs}
    for run in fresh:
        if run.state in ENDED:
            runs[run.id] = run
        elif run.id in runs:
            return None
    merged = _newest(runs.values())
    if not entry.complete:
        if not entry.runs:
            return None
        bottom = entry.runs[-1].order  # every stored ended run ordered at or after it is here
        for run in merged:
            if run.id in ended:
                older = [r for r in merged if r.order < run.order and r.order >= bottom]
                if len(older) < history_runs:
                    return None
        merged = [run for run in merged if run.order >= bottom]
    learned = JobHistory(
        tuple(merged[:keep]), entry.complete and len(merged) <= keep, None, entry.uses + 1
    )
    return merged, learned


def histories(
    connection: Connection, batch: Batch, depth: dict[int, int], history_runs: int
) -> dict[int, list[EndedRun]]:
    """Each job's last ``depth[job]`` ended runs at least (newest first), its ended runs of this
    write among them; teaches the cache what it read (``batch.learned``)."""
    keep = 2 * history_runs
    cached: dict[int, JobHistory] = {}
    for job in depth:
        entry = batch.cache.histories.get(job)
        state = batch.job_state.get(job)
        if (
            entry is not None
            and state is not None
            and entry.latest_run == state.stored_latest_run
            and entry.uses < HISTORY_REFRESH
        ):
            cached[job] = entry
    found: dict[int, list[EndedRun]] = {}
    learned: dict[int, JobHistory] = {}
    if cached:
        # the runs it touched that are ended now, and those the entries hold (they may have
        # changed); its other runs are not ended and were not: nothing to merge
        held = {run.id for entry in cached.values() for run in entry.runs}
        ours = [
            run_id
            for run_id, s in batch.run_state.items()
            if s.job_id in cached
            and (run_id in held or (run_id in batch.touched_runs and s.current_state in ENDED))
        ]
        fresh: dict[int, list[EndedRun]] = {}
        known = [_in_memory(batch, run_id) for run_id in ours if run_id in batch.run_io]
        unknown = sorted(run_id for run_id in ours if run_id not in batch.run_io)
        if unknown:  # runs whose datasets this write does not name: their io is read
            known += _runs_of(select_in(connection, _RUNS, [schema.runs.c.id], unknown)).values()
        for run in known:
            fresh.setdefault(run.job_id, []).append(run)
        for job, entry in cached.items():
            merged = _merged(entry, fresh.get(job, []), batch.ended_runs, history_runs, keep)
            if merged is not None:
                found[job], learned[job] = merged
    missing = {job: n for job, n in depth.items() if job not in found}
    if missing:
        for job, runs in _read(connection, missing).items():
            found[job] = runs
            learned[job] = JobHistory(tuple(runs[:keep]), len(runs) < missing[job], None)
    for job in depth:
        state, entry = batch.job_state.get(job), learned.get(job)
        batch.learned.histories[job] = (
            None
            if state is None or entry is None
            else replace(entry, latest_run=state.latest_run_uuid)
        )
    return found


def carry(batch: Batch, detected: set[int]) -> None:
    """For the jobs whose runs this write touched without ending one (``detected``: the jobs
    it read histories for): keep their cached entry with the job's latest run as this write
    leaves it, or drop it when the write touched a run it holds or an ended run (its place in
    the order may have changed), or another writer wrote the job."""
    touched: dict[int, set[int]] = {}
    for run_id in batch.touched_runs:
        state = batch.run_state.get(run_id)
        if state is not None:
            touched.setdefault(state.job_id, set()).add(run_id)
    for job, job_state in batch.job_state.items():
        if job in detected:
            continue
        entry = batch.cache.histories.get(job)
        if entry is None:
            continue
        held = {run.id for run in entry.runs}
        changed = touched.get(job, set())
        ended = {r for r in changed if batch.run_state[r].current_state in ENDED}
        if entry.latest_run != job_state.stored_latest_run or (held | ended) & changed:
            batch.learned.histories[job] = None
        elif job_state.latest_run_uuid != entry.latest_run:
            batch.learned.histories[job] = replace(entry, latest_run=job_state.latest_run_uuid)
