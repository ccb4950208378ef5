"""What a rerun plan reads besides the versions walk (:mod:`plumbline.store.read.versions`): each
affected run's job, state, times and parent (the orchestrator task or Spark application that ran
it), what each read and wrote, and the versions a job wrote since a time.

A plan over ten thousand jobs reads ~10,000 runs and ~40,000 inputs and outputs: four statements,
each over a whole id list (:class:`ByIds`: an index lookup per id on both databases), answered as
plain tuples.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import utc
from plumbline.store.read.idlist import ByIds, in_ids
from plumbline.store.read.runs import marquez_state
from plumbline.store.read.work_budget import read_rows


class RunRow(NamedTuple):
    """A run the rerun planner weighs: its job, state, times and parent run."""

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


class RunIo(NamedTuple):
    """An affected run's input or output and the version it read or wrote."""

    run_id: int
    direction: str  # 'input' | 'output'
    namespace: str
    name: str
    dataset_id: int
    version_id: int | None  # None: no version known (read before any was made)
    version: str | None
    version_source: str | None  # inputs: where the link came from (datasetVersion, catalog, …)
    produced_by: str | None  # the uuid of the run that wrote the version


_PARENT_RUN, _PARENT_JOB, _PARENT_NS = (
    s.runs.alias("parent_run"),
    s.jobs.alias("parent_job"),
    s.namespaces.alias("parent_ns"),
)
_RUNS = ByIds(
    sa.select(
        s.runs.c.id,
        s.runs.c.uuid,
        s.runs.c.job_id,
        s.namespaces.c.name.label("namespace"),
        s.jobs.c.name.label("job"),
        s.runs.c.current_state,
        s.runs.c.started_at,
        s.runs.c.ended_at,
        s.runs.c.parent_run_uuid,
        _PARENT_NS.c.name.label("parent_namespace"),
        _PARENT_JOB.c.name.label("parent_job"),
    )
    .join(s.jobs, s.jobs.c.id == s.runs.c.job_id)
    .join(s.namespaces, s.namespaces.c.id == s.jobs.c.namespace_id)
    .outerjoin(_PARENT_RUN, _PARENT_RUN.c.uuid == s.runs.c.parent_run_uuid)
    .outerjoin(_PARENT_JOB, _PARENT_JOB.c.id == _PARENT_RUN.c.job_id)
    .outerjoin(_PARENT_NS, _PARENT_NS.c.id == _PARENT_JOB.c.namespace_id),
    s.runs.c.id,
)


def run_summaries(conn: Connection, run_ids: Sequence[int]) -> dict[int, RunRow]:
    """Job, state, times and parent of each run (one statement)."""
    if not run_ids:
        return {}
    out = {}
    for row in read_rows(conn, _RUNS(conn), {"ids": sorted(set(run_ids))}):
        pk, uuid, job, ns, name, state, started, ended, parent, parent_ns, parent_job = row
        out[pk] = RunRow(
            pk, uuid, job, ns, name, marquez_state(state), utc(started), utc(ended), parent,
            parent_ns, parent_job,
        )  # fmt: skip
    return out


_IO = ByIds(
    sa.select(
        s.run_io.c.run_id,
        s.run_io.c.direction,
        s.run_io.c.dataset_id,
        s.run_io.c.dataset_version_id,
        s.run_io.c.version_source,
    ),
    s.run_io.c.run_id,
)
_DATASET_NAMES = ByIds(
    sa.select(s.datasets.c.id, s.namespaces.c.name.label("namespace"), s.datasets.c.name).join(
        s.namespaces, s.namespaces.c.id == s.datasets.c.namespace_id
    ),
    s.datasets.c.id,
)
_VERSIONS = ByIds(
    sa.select(s.dataset_versions.c.id, s.dataset_versions.c.version, s.dataset_versions.c.run_uuid),
    s.dataset_versions.c.id,
)


def runs_io(conn: Connection, run_ids: Sequence[int]) -> dict[int, list[RunIo]]:
    """What each of these runs read and wrote, with the versions: by run, inputs first, each
    direction by namespace and name. Three statements: the inputs and outputs, then the names of
    their datasets and their versions, each looked up once (runs share them: ~40,000 inputs and
    outputs of 10,000 runs touch ~5,000 datasets and ~14,000 versions, a quarter of the lookups
    of joining both to every row)."""
    if not run_ids:
        return {}
    rows = read_rows(conn, _IO(conn), {"ids": sorted(set(run_ids))})
    datasets = {row[2] for row in rows}
    versions = {row[3] for row in rows if row[3] is not None}
    names = {
        pk: (ns, name)
        for pk, ns, name in conn.execute(_DATASET_NAMES(conn), {"ids": datasets}).all()
    }
    made = {
        pk: (version, run)
        for pk, version, run in conn.execute(_VERSIONS(conn), {"ids": versions}).all()
    }
    out: dict[int, list[RunIo]] = {}
    unknown = (None, None)
    for run_id, direction, dataset_id, version_id, source in rows:
        namespace, name = names[dataset_id]
        version, produced_by = made.get(version_id, unknown)
        io = RunIo(
            run_id, direction, namespace, name, dataset_id, version_id, version, source,
            produced_by,
        )  # fmt: skip
        listed = out.get(run_id)
        if listed is None:
            out[run_id] = [io]
        else:
            listed.append(io)
    for listed in out.values():
        listed.sort(key=_io_order)
    return out


def _io_order(io: RunIo) -> tuple[str, str, str]:
    return io.direction, io.namespace, io.name


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
