"""Runs in Marquez's shape (``Run``), their facets, and the runs of a job."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import chunks, count, iso, json_obj, utc
from plumbline.store.read.errors import InvalidArgumentError, NotFoundError
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


def _duration_ms(row: sa.Row[Any]) -> int | None:
    started, ended = utc(row.started_at), utc(row.ended_at)
    if started is None or ended is None:
        return None
    return int((ended - started).total_seconds() * 1000)


def runs_by_pk(conn: Connection, run_pks: Sequence[int]) -> dict[int, dict[str, Any]]:
    """Marquez ``Run`` documents of the given run ids (batched queries, no per-run round trip)."""
    r, j, n, jv = s.runs, s.jobs, s.namespaces, s.job_versions
    out: dict[int, dict[str, Any]] = {}
    ids = sorted(set(run_pks))
    for part in chunks(ids):
        query = (
            sa.select(
                r,
                n.c.name.label("namespace_name"),
                j.c.name.label("job_name"),
                jv.c.uuid.label("job_version_uuid"),
            )
            .join(j, j.c.id == r.c.job_id)
            .join(n, n.c.id == j.c.namespace_id)
            .outerjoin(jv, jv.c.id == r.c.job_version_id)
            .where(r.c.id.in_(part))
        )
        for row in conn.execute(query).all():
            out[row.id] = {
                "id": row.uuid,
                "createdAt": iso(row.created_at),
                "updatedAt": iso(row.updated_at),
                "nominalStartTime": iso(row.nominal_start_time),
                "nominalEndTime": iso(row.nominal_end_time),
                "state": marquez_state(row.current_state),
                "startedAt": iso(row.started_at),
                "endedAt": iso(row.ended_at),
                "durationMs": _duration_ms(row),
                "args": {},
                "jobVersion": (
                    {
                        "namespace": row.namespace_name,
                        "name": row.job_name,
                        "version": row.job_version_uuid,
                    }
                    if row.job_version_uuid
                    else None
                ),
                "inputDatasetVersions": [],
                "outputDatasetVersions": [],
                "facets": json_obj(row.facets),
                # plumbline additions
                "parentRunId": row.parent_run_uuid,
                "errorMessage": row.error_message,
            }
    _attach_io(conn, out)
    return out


_CURRENT = s.dataset_versions.alias("current_version")


def _attach_io(conn: Connection, runs: dict[int, dict[str, Any]]) -> None:
    io, d, n, dv, current = s.run_io, s.datasets, s.namespaces, s.dataset_versions, _CURRENT
    ios: dict[int, list[Any]] = defaultdict(list)
    for part in chunks(sorted(runs)):
        query = (
            sa.select(
                io.c.run_id,
                io.c.direction,
                io.c.facets,
                n.c.name.label("namespace_name"),
                d.c.name.label("dataset_name"),
                sa.func.coalesce(dv.c.uuid, current.c.uuid).label("version_uuid"),
            )
            .join(d, d.c.id == io.c.dataset_id)
            .join(n, n.c.id == d.c.namespace_id)
            .outerjoin(dv, dv.c.id == io.c.dataset_version_id)
            .outerjoin(current, current.c.id == d.c.current_version_id)
            .where(io.c.run_id.in_(part))
            .order_by(io.c.run_id, n.c.name, d.c.name)
        )
        for row in conn.execute(query).all():
            ios[row.run_id].append(row)
    for run_pk, rows in ios.items():
        for row in rows:
            # a dataset read before any run wrote it has no version yet: still listed, version null
            entry = {
                "datasetVersionId": {
                    "namespace": row.namespace_name,
                    "name": row.dataset_name,
                    "version": row.version_uuid,
                },
                "facets": json_obj(row.facets),
            }
            key = "inputDatasetVersions" if row.direction == "input" else "outputDatasetVersions"
            runs[run_pk][key].append(entry)


def run_pk_by_uuid(conn: Connection, run_uuid: str, visible_to: VisibleTo = None) -> int:
    """The id of the run ``run_uuid``; :class:`NotFoundError` when unknown or of a job
    ``visible_to`` may not see."""
    r = s.runs
    pk = conn.execute(
        sa.select(r.c.id).where(r.c.uuid == run_uuid, visible_job_id(r.c.job_id, visible_to))
    ).scalar()
    if pk is None:
        raise NotFoundError(f"run {run_uuid!r} not found")
    return int(pk)


def runs_by_uuid(
    conn: Connection, run_uuids: Sequence[str], visible_to: VisibleTo = None
) -> dict[str, dict[str, Any]]:
    """Marquez ``Run`` documents keyed by run uuid (only runs of jobs ``visible_to`` may see)."""
    r = s.runs
    pks: list[int] = []
    for part in chunks(sorted(set(run_uuids))):
        query = sa.select(r.c.id).where(r.c.uuid.in_(part), visible_job_id(r.c.job_id, visible_to))
        pks.extend(conn.execute(query).scalars())
    return {run["id"]: run for run in runs_by_pk(conn, pks).values()}


def get_run(conn: Connection, run_uuid: str, visible_to: VisibleTo = None) -> dict[str, Any]:
    """``GET /jobs/runs/{id}``."""
    pk = run_pk_by_uuid(conn, run_uuid, visible_to)
    return runs_by_pk(conn, [pk])[pk]


def get_run_facets(
    conn: Connection, run_uuid: str, facet_type: str = "run", visible_to: VisibleTo = None
) -> dict[str, Any]:
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


def list_job_runs(conn: Connection, job_pk: int, limit: int, offset: int) -> dict[str, Any]:
    """The runs of one job, newest first: ``{"runs", "totalCount"}``."""
    r = s.runs
    base = sa.select(r.c.id).where(r.c.job_id == job_pk)
    total = count(conn, base)
    pks = list(
        conn.execute(
            base.order_by(r.c.created_at.desc(), r.c.id.desc()).limit(limit).offset(offset)
        ).scalars()
    )
    runs = runs_by_pk(conn, pks)
    return {"runs": [runs[pk] for pk in pks], "totalCount": total}
