"""What the impact and root-cause walks read besides the walk itself: the edges among the nodes a
walk reached, what a person needs to act on each node (a job's last run, a dataset's current
version), and which of them a namespace-limited caller may read.

Every query takes its ids as one bound list (:func:`in_ids`), so its text is fixed and compiled once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import utc
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.runs import marquez_state
from plumbline.store.read.visibility import VisibleTo, visible_dataset_ids, visible_job_ids
from plumbline.store.read.walks import direct_field_edges, whole_dataset_field_edges
from plumbline.store.read.work_budget import read_rows


class JobEdge(NamedTuple):
    """A job's edge to a dataset: ``input`` (dataset -> job) or ``output`` (job -> dataset)."""

    job_id: int
    dataset_id: int
    direction: str
    completeness: str | None  # as stored (None: not stated, i.e. inferred)


class FieldEdge(NamedTuple):
    """One field -> field edge of column lineage with its transformation."""

    input_field_id: int
    output_field_id: int
    type: str
    subtype: str
    completeness: str | None  # as stored (None: not stated, i.e. inferred)


class JobSummary(NamedTuple):
    namespace: str
    name: str
    last_run_id: str | None
    last_run_state: str | None  # Marquez's names (COMPLETED, FAILED, …)
    last_run_started_at: datetime | None
    last_run_ended_at: datetime | None


class DatasetSummary(NamedTuple):
    namespace: str
    name: str
    version: str | None
    version_created_at: datetime | None
    version_run_id: str | None
    last_modified_at: datetime | None


class FieldSummary(NamedTuple):
    dataset_id: int
    namespace: str
    dataset: str
    field: str
    type: str | None


@cache
def _job_edges_query(since: bool) -> sa.Select[Any]:
    e, d = s.job_dataset_edges, s.datasets
    query = (
        sa.select(e.c.job_id, e.c.dataset_id, e.c.direction, e.c.completeness)
        .join(d, d.c.id == e.c.dataset_id)
        .where(in_ids(e.c.job_id), d.c.is_hidden == sa.false())
    )
    if since:
        query = query.where(e.c.last_seen >= sa.bindparam("since", type_=s.Timestamp))
    return query


def job_edges(
    conn: Connection, jobs: Sequence[int], since: datetime | None = None
) -> list[JobEdge]:
    """Every edge of ``jobs`` to a dataset that is not hidden (seen since ``since`` if given)."""
    params: dict[str, Any] = {"ids": list(jobs)}
    if since is not None:
        params["since"] = since
    rows = read_rows(conn, _job_edges_query(since is not None), params)
    return [JobEdge._make(row) for row in rows]


@cache
def _field_edges_query(since: bool) -> sa.CompoundSelect[Any]:
    cl, cd, f = s.column_lineage_edges, s.column_dataset_edges, s.dataset_fields
    direct = direct_field_edges().where(in_ids(cl.c.output_field_id))
    whole = whole_dataset_field_edges().where(in_ids(f.c.id))
    if since:
        at = sa.bindparam("since", type_=s.Timestamp)
        direct, whole = direct.where(cl.c.last_seen >= at), whole.where(cd.c.last_seen >= at)
    return sa.union_all(direct, whole)


def field_edges_among(
    conn: Connection, fields: Sequence[int], since: datetime | None = None
) -> list[FieldEdge]:
    """The column-lineage edges (``fields`` and whole-dataset dependencies) whose both ends are
    among ``fields``."""
    ids = set(fields)
    params: dict[str, Any] = {"ids": sorted(ids)}
    if since is not None:
        params["since"] = since
    out = []
    for output, source, type_, subtype, *rest in read_rows(
        conn, _field_edges_query(since is not None), params
    ):
        if source in ids:
            out.append(FieldEdge(source, output, type_ or "", subtype or "", rest[4]))
    return out


_LAST_RUN = s.runs.alias("last_run")
_JOBS = (
    sa.select(
        s.jobs.c.id,
        s.namespaces.c.name,
        s.jobs.c.name,
        s.jobs.c.latest_run_uuid,
        _LAST_RUN.c.current_state,
        _LAST_RUN.c.started_at,
        _LAST_RUN.c.ended_at,
    )
    .join(s.namespaces, s.namespaces.c.id == s.jobs.c.namespace_id)
    .outerjoin(_LAST_RUN, _LAST_RUN.c.uuid == s.jobs.c.latest_run_uuid)
    .where(in_ids(s.jobs.c.id))
)


def _by_id(conn: Connection, query: sa.Select[Any], ids: Sequence[int]) -> dict[int, Any]:
    """The rows of ``query`` for ``ids`` (bound as ``ids``), by their first column, without it."""
    return {row[0]: row[1:] for row in conn.execute(query, {"ids": list(ids)}).all()}


def job_summaries(conn: Connection, ids: Sequence[int]) -> dict[int, JobSummary]:
    """Namespace, name and last run (by event time) of each job."""
    return {
        pk: JobSummary(
            namespace,
            name,
            run,
            marquez_state(state) if run is not None else None,
            utc(started),
            utc(ended),
        )  # fmt: skip
        for pk, (namespace, name, run, state, started, ended) in _by_id(conn, _JOBS, ids).items()
    }


_CURRENT = s.dataset_versions.alias("current_version")
_DATASETS = (
    sa.select(
        s.datasets.c.id,
        s.namespaces.c.name,
        s.datasets.c.name,
        _CURRENT.c.version,
        _CURRENT.c.created_at,
        _CURRENT.c.run_uuid,
        s.datasets.c.last_modified_at,
    )
    .join(s.namespaces, s.namespaces.c.id == s.datasets.c.namespace_id)
    .outerjoin(_CURRENT, _CURRENT.c.id == s.datasets.c.current_version_id)
    .where(in_ids(s.datasets.c.id))
)


def dataset_summaries(conn: Connection, ids: Sequence[int]) -> dict[int, DatasetSummary]:
    """Namespace, name and current version (what it is, when and by which run it was written)."""
    return {
        pk: DatasetSummary(namespace, name, version, utc(created), run, utc(modified))
        for pk, (namespace, name, version, created, run, modified) in _by_id(
            conn, _DATASETS, ids
        ).items()
    }


_FIELDS = (
    sa.select(
        s.dataset_fields.c.id,
        s.dataset_fields.c.dataset_id,
        s.namespaces.c.name,
        s.datasets.c.name,
        s.dataset_fields.c.name,
        s.dataset_fields.c.type,
    )
    .join(s.datasets, s.datasets.c.id == s.dataset_fields.c.dataset_id)
    .join(s.namespaces, s.namespaces.c.id == s.datasets.c.namespace_id)
    .where(in_ids(s.dataset_fields.c.id), s.datasets.c.is_hidden == sa.false())
)


def field_summaries(conn: Connection, ids: Sequence[int]) -> dict[int, FieldSummary]:
    """Dataset, namespace, name and type of each field (fields of hidden datasets left out)."""
    return {pk: FieldSummary(*row) for pk, row in _by_id(conn, _FIELDS, ids).items()}


def field_pk(conn: Connection, dataset: int, name: str) -> int | None:
    """The id of field ``name`` of ``dataset`` (None: no such field)."""
    f = s.dataset_fields
    pk = conn.execute(sa.select(f.c.id).where(f.c.dataset_id == dataset, f.c.name == name)).scalar()
    return None if pk is None else int(pk)


def _readable(
    conn: Connection, table: sa.Table, visible: sa.Select[Any], ids: Sequence[int]
) -> set[int]:
    query = sa.select(table.c.id).where(in_ids(table.c.id), table.c.id.in_(visible))
    return set(conn.execute(query, {"ids": list(ids)}).scalars())


def readable_jobs(conn: Connection, ids: Sequence[int], visible_to: VisibleTo) -> set[int]:
    """Those of ``ids`` a caller limited to ``visible_to`` may read (all of them when None)."""
    if visible_to is None:
        return set(ids)
    return _readable(conn, s.jobs, visible_job_ids(visible_to), ids)


def readable_datasets(conn: Connection, ids: Sequence[int], visible_to: VisibleTo) -> set[int]:
    """Those of the dataset ``ids`` a caller limited to ``visible_to`` may read."""
    if visible_to is None:
        return set(ids)
    return _readable(conn, s.datasets, visible_dataset_ids(visible_to), ids)
