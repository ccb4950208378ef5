"""What a rerun plan reads besides the versions walk (:mod:`plumbline.store.read.versions`): each
affected run's job, state, times and parent (the orchestrator task or Spark application that ran
it), and the versions a job wrote since a time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import utc
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.runs import marquez_state


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


_PARENT_RUN, _PARENT_JOB, _PARENT_NS = (
    s.runs.alias("parent_run"),
    s.jobs.alias("parent_job"),
    s.namespaces.alias("parent_ns"),
)
_RUNS = (
    sa.select(
        s.runs.c.id,
        s.runs.c.uuid,
        s.runs.c.job_id,
        s.namespaces.c.name,
        s.jobs.c.name,
        s.runs.c.current_state,
        s.runs.c.started_at,
        s.runs.c.ended_at,
        s.runs.c.parent_run_uuid,
        _PARENT_NS.c.name,
        _PARENT_JOB.c.name,
    )
    .join(s.jobs, s.jobs.c.id == s.runs.c.job_id)
    .join(s.namespaces, s.namespaces.c.id == s.jobs.c.namespace_id)
    .outerjoin(_PARENT_RUN, _PARENT_RUN.c.uuid == s.runs.c.parent_run_uuid)
    .outerjoin(_PARENT_JOB, _PARENT_JOB.c.id == _PARENT_RUN.c.job_id)
    .outerjoin(_PARENT_NS, _PARENT_NS.c.id == _PARENT_JOB.c.namespace_id)
    .where(in_ids(s.runs.c.id))
)


def run_summaries(conn: Connection, run_ids: Sequence[int]) -> dict[int, RunSummary]:
    """Job, state, times and parent of each run."""
    if not run_ids:
        return {}
    out = {}
    for row in conn.execute(_RUNS, {"ids": sorted(set(run_ids))}).all():
        pk, uuid, job, ns, name, state, started, ended, parent, parent_ns, parent_job = row
        out[pk] = RunSummary(
            pk,
            uuid,
            job,
            ns,
            name,
            marquez_state(state),
            utc(started),
            utc(ended),
            parent,
            parent_ns,
            parent_job,
        )
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
