"""What one run was: its state, times, error, facets, and each input and output with the version,
its schema and the statistics it touched; the runs to compare it with; its raw events.

The facts a run diff and a root cause compare (``plumbline.analysis``), read in a few statements
per run whatever the number of its inputs and outputs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import chunks, json_obj, utc
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.runs import find_run_pk, runs_by_ids
from plumbline.store.read.visibility import VisibleTo, visible_job_id
from plumbline.store.read.work_budget import read_rows


@dataclass(frozen=True)
class IoFacts:
    """A run's input or output: the version it touched, that version's schema, the statistics."""

    direction: str  # 'input' | 'output'
    dataset_id: int
    namespace: str
    name: str
    version_id: int | None
    version: str | None
    version_source: str | None
    # the version's schema: [{"name", "type", "fields"?…}] as sent; None: no schema known
    schema: list[dict[str, Any]] | None
    row_count: int | None
    byte_count: int | None
    file_count: int | None
    facets: dict[str, Any]  # inputFacets / outputFacets


@dataclass(frozen=True)
class RunFacts:
    """One run of a job, as the store keeps it."""

    id: int
    uuid: str
    job_id: int
    namespace: str
    job: str
    state: str | None  # the OpenLineage event type of its state: START … COMPLETE, FAIL, ABORT
    started_at: datetime | None
    ended_at: datetime | None
    last_event_at: datetime | None
    error_message: str | None
    error_language: str | None
    facets: dict[str, Any]  # run facets
    job_facets: dict[str, Any]  # job facets as this run saw them
    job_version: str | None
    parent_run_uuid: str | None
    io: tuple[IoFacts, ...] = field(default=())

    @property
    def time(self) -> datetime | None:
        """When the run happened: its start, else its newest event."""
        return self.started_at or self.last_event_at


_WHEN = sa.func.coalesce(s.runs.c.started_at, s.runs.c.last_event_at)
_RUNS = runs_by_ids(
    s.runs.c.id,
    s.runs.c.uuid,
    s.runs.c.job_id,
    s.namespaces.c.name.label("namespace"),
    s.jobs.c.name.label("job"),
    s.runs.c.current_state,
    s.runs.c.started_at,
    s.runs.c.ended_at,
    s.runs.c.last_event_at,
    s.runs.c.error_message,
    s.runs.c.error_language,
    s.runs.c.facets,
    s.runs.c.job_facets,
    s.job_versions.c.version.label("job_version"),
    s.runs.c.parent_run_uuid,
)
_IO = (
    sa.select(
        s.run_io.c.run_id,
        s.run_io.c.direction,
        s.run_io.c.dataset_id,
        s.namespaces.c.name.label("namespace"),
        s.datasets.c.name,
        s.run_io.c.dataset_version_id,
        s.dataset_versions.c.version,
        s.run_io.c.version_source,
        s.schema_versions.c.fields,
        s.run_io.c.row_count,
        s.run_io.c.byte_count,
        s.run_io.c.file_count,
        s.run_io.c.facets,
    )
    .join(s.datasets, s.datasets.c.id == s.run_io.c.dataset_id)
    .join(s.namespaces, s.namespaces.c.id == s.datasets.c.namespace_id)
    .outerjoin(s.dataset_versions, s.dataset_versions.c.id == s.run_io.c.dataset_version_id)
    .outerjoin(s.schema_versions, s.schema_versions.c.id == s.dataset_versions.c.schema_version_id)
    .where(in_ids(s.run_io.c.run_id))
    .order_by(s.run_io.c.run_id, s.run_io.c.direction, s.namespaces.c.name, s.datasets.c.name)
)


def runs_facts(conn: Connection, run_pks: Sequence[int]) -> dict[int, RunFacts]:
    """The facts of these runs (with their inputs and outputs), by run id."""
    if not run_pks:
        return {}
    ids = sorted(set(run_pks))
    io: dict[int, list[IoFacts]] = {}
    for row in read_rows(conn, _IO, {"ids": ids}):
        io.setdefault(row.run_id, []).append(
            IoFacts(
                direction=row.direction,
                dataset_id=row.dataset_id,
                namespace=row.namespace,
                name=row.name,
                version_id=row.dataset_version_id,
                version=row.version,
                version_source=row.version_source,
                schema=row.fields if isinstance(row.fields, list) else None,
                row_count=row.row_count,
                byte_count=row.byte_count,
                file_count=row.file_count,
                facets=json_obj(row.facets),
            )
        )
    return {
        row.id: RunFacts(
            id=row.id,
            uuid=row.uuid,
            job_id=row.job_id,
            namespace=row.namespace,
            job=row.job,
            state=row.current_state,
            started_at=utc(row.started_at),
            ended_at=utc(row.ended_at),
            last_event_at=utc(row.last_event_at),
            error_message=row.error_message,
            error_language=row.error_language,
            facets=json_obj(row.facets),
            job_facets=json_obj(row.job_facets),
            job_version=row.job_version,
            parent_run_uuid=row.parent_run_uuid,
            io=tuple(io.get(row.id, [])),
        )
        for row in conn.execute(_RUNS, {"ids": ids})
    }


def run_pk(conn: Connection, run_uuid: str, visible_to: VisibleTo = None) -> int | None:
    """The id of run ``run_uuid`` (None: unknown, or of a job ``visible_to`` may not see)."""
    return find_run_pk(conn, run_uuid, visible_to)


def _previous(run: sa.FromClause, state: str) -> sa.ScalarSelect[Any]:
    """The id of the last run in ``state`` of ``run``'s job that happened before it (its start,
    else its newest event): a correlated subquery, one index range of the job's runs."""
    p = s.runs.alias("previous")
    when = sa.func.coalesce(p.c.started_at, p.c.last_event_at)
    mine = sa.func.coalesce(run.c.started_at, run.c.last_event_at)
    return (
        sa.select(p.c.id)
        .where(
            p.c.job_id == run.c.job_id,
            p.c.current_state == state,
            p.c.id != run.c.id,
            sa.or_(mine.is_(None), when < mine),
        )
        .order_by(when.desc(), p.c.id.desc())
        .limit(1)
        .scalar_subquery()
    )


_R = s.runs.alias("run")
_PREVIOUS_BY_ID = sa.select(_R.c.id, _previous(_R, "COMPLETE")).where(in_ids(_R.c.id))


def previous_runs(conn: Connection, run_pks: Sequence[int]) -> dict[int, int]:
    """For each of these runs that has one, the id of its job's last COMPLETE run before it (one
    statement for all of them)."""
    if not run_pks:
        return {}
    rows = conn.execute(_PREVIOUS_BY_ID, {"ids": sorted(set(run_pks))}).all()
    return {int(pk): int(previous) for pk, previous in rows if previous is not None}


class RunAndPrevious(NamedTuple):
    """A run's id, its job's last COMPLETE run before it, and whether ``db prune`` removed any
    COMPLETE run of that job (only then is it worth asking which, see :mod:`.pruned`)."""

    id: int
    previous: int | None
    job_has_pruned_runs: bool


def run_and_previous(
    conn: Connection, run_uuid: str, visible_to: VisibleTo = None
) -> RunAndPrevious | None:
    """The run ``run_uuid`` and its job's last COMPLETE run before it, in one statement (None:
    the run is unknown, or of a job ``visible_to`` may not see)."""
    pruned = sa.exists().where(
        s.pruned_runs.c.job_id == _R.c.job_id, s.pruned_runs.c.state == "COMPLETE"
    )
    query = sa.select(_R.c.id, _previous(_R, "COMPLETE"), pruned).where(
        _R.c.uuid == run_uuid.lower(), visible_job_id(_R.c.job_id, visible_to)
    )
    row = conn.execute(query).first()
    if row is None:
        return None
    return RunAndPrevious(int(row[0]), None if row[1] is None else int(row[1]), bool(row[2]))


def last_run_in_state(conn: Connection, job_id: int, states: Sequence[str]) -> str | None:
    """The uuid of the job's newest run (by event time) in one of ``states``."""
    r = s.runs
    query = (
        sa.select(r.c.uuid)
        .where(r.c.job_id == job_id, r.c.current_state.in_(list(states)))
        .order_by(_WHEN.desc().nulls_last(), r.c.id.desc())
        .limit(1)
    )
    return conn.execute(query).scalar()


def runs_events(conn: Connection, run_uuids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """The raw RunEvents still stored for these runs, oldest first, by run uuid (a run whose
    events were pruned has none); one statement per 500 runs."""
    out: dict[str, list[dict[str, Any]]] = {u: [] for u in run_uuids}
    for part in chunks(sorted(set(run_uuids))):
        for run_uuid, payload in conn.execute(_EVENTS, {"uuids": list(part)}):
            event = json.loads(payload) if isinstance(payload, str | bytes) else payload
            if isinstance(event, dict):
                out.setdefault(run_uuid, []).append(event)
    return out


_EVENTS = (
    sa.select(s.lineage_events.c.run_uuid, s.lineage_events.c.payload)
    .where(
        s.lineage_events.c.run_uuid.in_(sa.bindparam("uuids", expanding=True)),
        s.lineage_events.c.kind == "RunEvent",
    )
    .order_by(s.lineage_events.c.event_time, s.lineage_events.c.id)
)
