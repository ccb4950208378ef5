"""Runs in Marquez's shape (``Run``), their facets, and the runs of a job."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import chunks, count, iso, json_obj, utc
from plumbline.store.read.errors import InvalidArgumentError, NotFoundError
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.records import IoDatasetVersion, Run, RunFacets, RunMatches, RunPage
from plumbline.store.read.visibility import VisibleTo, visible_job_id

# OpenLineage event types (and Marquez's own names) -> Marquez run states
_STATES = {
    "START": "RUNNING",
    "RUNNING": "RUNNING",
    "COMPLETE": "COMPLETED",
    "COMPLETED": "COMPLETED",
    "FAIL": "FAILED",
    "FAILED": "FAILED",
    "ABORT": "ABORTED",
    "ABORTED": "ABORTED",
    "NEW": "NEW",
}
STORED_STATES = tuple(_STATES)


def marquez_state(state: str | None) -> str:
    """The Marquez run state for a stored state (``COMPLETE`` -> ``COMPLETED``; unknown -> ``NEW``)."""
    return _STATES.get((state or "").upper(), "NEW")


def _duration_ms(started_at: datetime | None, ended_at: datetime | None) -> int | None:
    started, ended = utc(started_at), utc(ended_at)
    if started is None or ended is None:
        return None
    return int((ended - started).total_seconds() * 1000)


def runs_by_ids(*columns: sa.ColumnElement[Any]) -> sa.Select[Any]:
    """``columns`` of the runs bound as ``ids``, with their job, its namespace and the runs' job
    version joined in."""
    return (
        sa.select(*columns)
        .select_from(s.runs)
        .join(s.jobs, s.jobs.c.id == s.runs.c.job_id)
        .join(s.namespaces, s.namespaces.c.id == s.jobs.c.namespace_id)
        .outerjoin(s.job_versions, s.job_versions.c.id == s.runs.c.job_version_id)
        .where(in_ids(s.runs.c.id))
    )


# unpacked by position: a Row's attribute access costs ~1 µs, and graphs hold hundreds of runs
_RUNS = runs_by_ids(
    s.runs.c.id,
    s.runs.c.uuid,
    s.runs.c.created_at,
    s.runs.c.updated_at,
    s.runs.c.nominal_start_time,
    s.runs.c.nominal_end_time,
    s.runs.c.current_state,
    s.runs.c.started_at,
    s.runs.c.ended_at,
    s.runs.c.facets,
    s.runs.c.parent_run_uuid,
    s.runs.c.error_message,
    s.namespaces.c.name,
    s.jobs.c.name,
    s.job_versions.c.uuid,
)


def runs_by_pk(conn: Connection, run_pks: Sequence[int]) -> dict[int, Run]:
    """Marquez ``Run`` documents of the given run ids (batched queries, no per-run round trip)."""
    out: dict[int, Run] = {}
    if not run_pks:
        return out
    for (
        pk,
        run_uuid,
        created_at,
        updated_at,
        nominal_start,
        nominal_end,
        state,
        started_at,
        ended_at,
        facets,
        parent_run_uuid,
        error_message,
        namespace,
        job,
        job_version,
    ) in conn.execute(_RUNS, {"ids": sorted(set(run_pks))}).all():
        out[pk] = {
            "id": run_uuid,
            "createdAt": iso(created_at),
            "updatedAt": iso(updated_at),
            "nominalStartTime": iso(nominal_start),
            "nominalEndTime": iso(nominal_end),
            "state": marquez_state(state),
            "startedAt": iso(started_at),
            "endedAt": iso(ended_at),
            "durationMs": _duration_ms(started_at, ended_at),
            "args": {},
            "jobVersion": (
                {"namespace": namespace, "name": job, "version": job_version}
                if job_version
                else None
            ),
            "inputDatasetVersions": [],
            "outputDatasetVersions": [],
            "facets": json_obj(facets),
            # plumbline additions
            "parentRunId": parent_run_uuid,
            "errorMessage": error_message,
        }
    _attach_io(conn, out)
    return out


# each input's version is the one the run read (run_io's exact link, see its version_source), never
# the dataset's current version: an input read before any version was known lists version null
_RUN_IO = (
    sa.select(
        s.run_io.c.run_id,
        s.run_io.c.direction,
        s.run_io.c.facets,
        s.namespaces.c.name.label("namespace_name"),
        s.datasets.c.name.label("dataset_name"),
        s.dataset_versions.c.uuid.label("version_uuid"),
        s.dataset_versions.c.version.label("dataset_version"),
    )
    .join(s.datasets, s.datasets.c.id == s.run_io.c.dataset_id)
    .join(s.namespaces, s.namespaces.c.id == s.datasets.c.namespace_id)
    .outerjoin(s.dataset_versions, s.dataset_versions.c.id == s.run_io.c.dataset_version_id)
    .where(in_ids(s.run_io.c.run_id))
    .order_by(s.run_io.c.run_id, s.namespaces.c.name, s.datasets.c.name)
)


def _attach_io(conn: Connection, runs: dict[int, Run]) -> None:
    if not runs:
        return
    for run_pk, direction, facets, namespace, dataset, version, shown in conn.execute(
        _RUN_IO, {"ids": sorted(runs)}
    ).all():
        # a dataset read before any run wrote it has no version yet: still listed, version null
        entry: IoDatasetVersion = {
            "datasetVersionId": {"namespace": namespace, "name": dataset, "version": version},
            "facets": json_obj(facets),
            "datasetVersion": shown,
        }
        run = runs[run_pk]
        listed = run["inputDatasetVersions" if direction == "input" else "outputDatasetVersions"]
        listed.append(entry)


def find_run_pk(conn: Connection, run_uuid: str, visible_to: VisibleTo = None) -> int | None:
    """The id of the run ``run_uuid`` (any case); None when unknown or of a job ``visible_to``
    may not see."""
    r = s.runs
    pk = conn.execute(
        sa.select(r.c.id).where(
            r.c.uuid == run_uuid.lower(), visible_job_id(r.c.job_id, visible_to)
        )
    ).scalar()
    return None if pk is None else int(pk)


def run_pk_by_uuid(conn: Connection, run_uuid: str, visible_to: VisibleTo = None) -> int:
    """The id of the run ``run_uuid``; :class:`NotFoundError` when unknown or of a job
    ``visible_to`` may not see."""
    pk = find_run_pk(conn, run_uuid, visible_to)
    if pk is None:
        raise NotFoundError(f"run {run_uuid!r} not found")
    return pk


def runs_by_uuid(
    conn: Connection, run_uuids: Sequence[str], visible_to: VisibleTo = None
) -> dict[str, Run]:
    """Marquez ``Run`` documents keyed by run uuid (only runs of jobs ``visible_to`` may see)."""
    r = s.runs
    pks: list[int] = []
    for part in chunks(sorted(set(run_uuids))):
        query = sa.select(r.c.id).where(r.c.uuid.in_(part), visible_job_id(r.c.job_id, visible_to))
        pks.extend(conn.execute(query).scalars())
    return {run["id"]: run for run in runs_by_pk(conn, pks).values()}


def get_run(conn: Connection, run_uuid: str, visible_to: VisibleTo = None) -> Run:
    """``GET /jobs/runs/{id}``."""
    pk = run_pk_by_uuid(conn, run_uuid, visible_to)
    return runs_by_pk(conn, [pk])[pk]


def get_run_facets(
    conn: Connection, run_uuid: str, facet_type: str = "run", visible_to: VisibleTo = None
) -> RunFacets:
    """``GET /jobs/runs/{id}/facets?type=run|job``: ``{"runId", "facets"}``."""
    kind = facet_type.lower()
    if kind not in ("run", "job"):
        raise InvalidArgumentError(f"type must be 'run' or 'job', not {facet_type!r}")
    r = s.runs
    column = r.c.facets if kind == "run" else r.c.job_facets
    row = conn.execute(
        sa.select(column.label("facets")).where(
            r.c.uuid == run_uuid, visible_job_id(r.c.job_id, visible_to)
        )
    ).first()
    if row is None:
        raise NotFoundError(f"run {run_uuid!r} not found")
    return {"runId": run_uuid, "facets": json_obj(row.facets)}


def newest_first(r: sa.FromClause = s.runs) -> tuple[sa.ColumnElement[Any], ...]:
    """A job's runs newest first, by event time (``runs.last_event_at``, the time of the run's
    newest event; runs known only from a child's ``parent`` facet last), as ``latestRun``."""
    return (r.c.last_event_at.desc().nulls_last(), r.c.id.desc())


def list_job_runs(conn: Connection, job_pk: int, limit: int, offset: int) -> RunPage:
    """The runs of one job, newest first by event time: ``{"runs", "totalCount"}``."""
    r = s.runs
    base = sa.select(r.c.id).where(r.c.job_id == job_pk)
    total = count(conn, base)
    pks = list(conn.execute(base.order_by(*newest_first(r)).limit(limit).offset(offset)).scalars())
    runs = runs_by_pk(conn, pks)
    return {"runs": [runs[pk] for pk in pks], "totalCount": total}


RUN_ID_PART = r"^[0-9a-fA-F-]{4,36}$"  # 4 to 36 characters of a run id, from its start or end


def runs_with_part(
    conn: Connection, part: str, limit: int, *, at_end: bool, visible_to: VisibleTo = None
) -> RunMatches:
    """The runs whose id starts (``at_end``: ends) with ``part`` (any case), by id, at most
    ``limit``, and how many there are: ``{"runs": [{"id", "state", "job", "startedAt",
    "endedAt"}], "totalCount"}``. A start is a range on the id's unique index (ids are lower-case
    hex and ``-``, all below ``g``); an end is read through the ids (a scan). Runs of jobs
    ``visible_to`` may not see are not counted."""
    r, j, n = s.runs, s.jobs, s.namespaces
    low = part.lower()
    match: tuple[sa.ColumnElement[bool], ...] = (
        (r.c.uuid.endswith(low, autoescape=True),)
        if at_end
        else (r.c.uuid >= low, r.c.uuid < low + "g", r.c.uuid.startswith(low, autoescape=True))
    )
    where = (*match, visible_job_id(r.c.job_id, visible_to))
    total = count(conn, sa.select(r.c.id).where(*where))
    rows = conn.execute(
        sa.select(r.c.uuid, r.c.current_state, n.c.name, j.c.name, r.c.started_at, r.c.ended_at)
        .join(j, j.c.id == r.c.job_id)
        .join(n, n.c.id == j.c.namespace_id)
        .where(*where)
        .order_by(r.c.uuid)
        .limit(limit)
    )
    return {
        "runs": [
            {
                "id": uuid,
                "state": marquez_state(state),
                "job": {"namespace": namespace, "name": name},
                "startedAt": iso(started_at),
                "endedAt": iso(ended_at),
            }
            for uuid, state, namespace, name, started_at, ended_at in rows
        ],
        "totalCount": total,
    }
