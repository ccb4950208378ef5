"""What a rerun plan reads: the runs downstream of bad versions with what each read and wrote (one
statement: the versions walk of :mod:`plumbline.store.read.versions` joined to what it reached),
their parents' jobs (the orchestrator task or Spark application that ran them), and the versions a
job wrote since a time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import chunks, utc
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.runs import marquez_state
from plumbline.store.read.versions import RunVersion, downstream_reads_cte


@dataclass(frozen=True)
class RunSummary:
    id: int
    uuid: str
    job_id: int
    namespace: str
    job: str
    state: str  # Marquez's names (COMPLETED, FAILED, …)
    started_at: datetime | None
    ended_at: datetime | None
    parent_run_uuid: str | None
    parent_namespace: str | None  # the parent run's job
    parent_job: str | None


@dataclass
class AffectedRuns:
    """The runs that read a bad version or, transitively, a version made from one: each run, the
    versions it read and wrote, and which of its reads are affected."""

    runs: dict[int, RunSummary] = field(default_factory=dict)
    io: dict[int, list[RunVersion]] = field(default_factory=dict)  # by run, inputs first
    read: dict[int, set[int]] = field(default_factory=dict)  # run -> affected versions it read


def _affected_statement() -> sa.Select[Any]:
    """Every input and output of every run the walk reached, with the run, its job, the version
    and its writer, and whether the input is one the walk went through: one statement, so the
    ids of the runs never travel to the client and back (each row an index lookup of ``run_io``
    by run)."""
    walk = downstream_reads_cte()
    reached = sa.select(walk.c.run_id).distinct().subquery("reached")
    io, r, d, n, dv = s.run_io, s.runs, s.datasets, s.namespaces, s.dataset_versions
    job, job_ns = s.jobs.alias("job"), s.namespaces.alias("job_ns")
    through = walk.alias("through")
    return (
        sa.select(
            io.c.run_id,
            r.c.uuid,
            r.c.job_id,
            job_ns.c.name,
            job.c.name,
            r.c.current_state,
            r.c.started_at,
            r.c.ended_at,
            r.c.parent_run_uuid,
            io.c.direction,
            io.c.dataset_id,
            n.c.name,
            d.c.name,
            io.c.dataset_version_id,
            dv.c.uuid,
            dv.c.version,
            io.c.version_source,
            dv.c.run_uuid,
            through.c.run_id.is_not(None),
        )  # fmt: skip
        .select_from(reached)
        .join(io, io.c.run_id == reached.c.run_id)
        .join(r, r.c.id == io.c.run_id)
        .join(job, job.c.id == r.c.job_id)
        .join(job_ns, job_ns.c.id == job.c.namespace_id)
        .join(d, d.c.id == io.c.dataset_id)
        .join(n, n.c.id == d.c.namespace_id)
        .outerjoin(dv, dv.c.id == io.c.dataset_version_id)
        .outerjoin(
            through,
            sa.and_(
                through.c.run_id == io.c.run_id,
                through.c.version_id == io.c.dataset_version_id,
                io.c.direction == "input",
            ),
        )
    )  # unordered: a sort of the whole answer spills to disk on PostgreSQL; each run's few
    # inputs and outputs are ordered here


_AFFECTED = _affected_statement()


def affected_runs(conn: Connection, version_ids: Sequence[int]) -> AffectedRuns:
    """The runs downstream of these versions (see :class:`AffectedRuns`), in one statement, with
    their parents' jobs in one more."""
    out = AffectedRuns()
    if not version_ids:
        return out
    for row in conn.execute(_AFFECTED, {"ids": sorted(set(version_ids))}).all():
        (pk, run_uuid, job_id, job_ns, job_name, state, started, ended, parent, direction,
         dataset_id, namespace, name, version_id, version_uuid, version, source, produced_by,
         through) = row  # fmt: skip
        if pk not in out.runs:
            out.runs[pk] = RunSummary(
                pk, run_uuid, job_id, job_ns, job_name, marquez_state(state), utc(started),
                utc(ended), parent, None, None,
            )  # fmt: skip
            out.io[pk] = []
            out.read[pk] = set()
        out.io[pk].append(
            RunVersion(
                pk,
                run_uuid,
                direction,
                dataset_id,
                namespace,
                name,
                version_id,
                version_uuid,
                version,
                source,
                None,
                produced_by,
            )  # fmt: skip
        )
        if through:
            out.read[pk].add(version_id)
    for rvs in out.io.values():
        rvs.sort(key=_io_order)
    parents = _parent_jobs(
        conn, {r.parent_run_uuid for r in out.runs.values() if r.parent_run_uuid}
    )
    for pk, run in out.runs.items():
        if run.parent_run_uuid in parents:
            parent_ns, parent_job = parents[run.parent_run_uuid]
            out.runs[pk] = RunSummary(**{**run.__dict__, "parent_namespace": parent_ns,
                                         "parent_job": parent_job})  # fmt: skip
    return out


def _io_order(rv: RunVersion) -> tuple[str, str, str]:
    """Inputs first, then by namespace and name (as :func:`versions.run_versions`)."""
    return (rv.direction, rv.namespace, rv.name)


_PARENT_JOBS = (
    sa.select(s.runs.c.uuid, s.namespaces.c.name, s.jobs.c.name)
    .join(s.jobs, s.jobs.c.id == s.runs.c.job_id)
    .join(s.namespaces, s.namespaces.c.id == s.jobs.c.namespace_id)
    .where(s.runs.c.uuid.in_(sa.bindparam("uuids", expanding=True)))
)


def _parent_jobs(conn: Connection, run_uuids: set[str]) -> dict[str, tuple[str, str]]:
    """The job (namespace, name) of each of these parent runs that is stored."""
    out: dict[str, tuple[str, str]] = {}
    for part in chunks(sorted(run_uuids)):
        for run_uuid, namespace, job in conn.execute(_PARENT_JOBS, {"uuids": list(part)}):
            out[run_uuid] = (namespace, job)
    return out


_WRITTEN_SINCE = (
    sa.select(s.run_io.c.dataset_version_id)
    .distinct()
    .join(s.runs, s.runs.c.id == s.run_io.c.run_id)
    .join(s.dataset_versions, s.dataset_versions.c.id == s.run_io.c.dataset_version_id)
    .where(
        s.runs.c.job_id == sa.bindparam("job_id"),
        s.run_io.c.direction == "output",
        s.dataset_versions.c.created_at >= sa.bindparam("since", type_=s.Timestamp),
    )
)


def versions_written_since(conn: Connection, job_id: int, since: datetime) -> list[int]:
    """The ids of the versions runs of a job wrote at or after ``since``."""
    rows = conn.execute(_WRITTEN_SINCE, {"job_id": job_id, "since": since}).scalars()
    return sorted(int(v) for v in rows)


_PRUNED_READERS = (
    sa.select(s.pruned_runs.c.run_uuid)
    .where(
        s.pruned_runs.c.job_id.in_(
            sa.select(s.job_dataset_edges.c.job_id).where(
                in_ids(s.job_dataset_edges.c.dataset_id),
                s.job_dataset_edges.c.direction == "input",
            )
        ),
        s.pruned_runs.c.ended_at >= sa.bindparam("since", type_=s.Timestamp),
    )
    .order_by(s.pruned_runs.c.run_uuid)
)


def pruned_readers_since(
    conn: Connection, dataset_ids: Sequence[int], since: datetime
) -> list[str]:
    """The uuids of runs ``db prune`` removed that ended at or after ``since``, of jobs that read
    one of these datasets (what each of them read is no longer stored)."""
    if not dataset_ids:
        return []
    params = {"ids": sorted(set(dataset_ids)), "since": since}
    return [str(u) for u in conn.execute(_PRUNED_READERS, params).scalars()]
