"""A namespace's lineage as it stands, for baselines and starter expectations (issue 31 §1): each
(visible) job of the namespace with the datasets it reads and writes, and the column edges into
the datasets it writes (``fields`` edges, and whole-dataset dependencies with no output field)."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.visibility import VisibleTo, readable_dataset_ids
from plumbline.store.read.work_budget import read_rows


class JobDatasetEdge(NamedTuple):
    job: str
    direction: str  # input | output
    namespace: str
    dataset: str


class JobColumnEdge(NamedTuple):
    """A column edge into a dataset ``job`` writes; ``output_field`` None: the whole dataset."""

    job: str
    input_namespace: str
    input_dataset: str
    input_field: str
    output_namespace: str
    output_dataset: str
    output_field: str | None
    type: str
    subtype: str


def _jobs() -> sa.Select[Any]:
    j, n = s.jobs, s.namespaces
    return (
        sa.select(j.c.id, j.c.name)
        .join(n, n.c.id == j.c.namespace_id)
        .where(n.c.name == sa.bindparam("namespace"), j.c.is_hidden == sa.false())
    )


def _seen_since(edges: sa.Table, since: bool) -> sa.ColumnElement[bool]:
    return edges.c.last_seen >= sa.bindparam("since", type_=s.Timestamp) if since else sa.true()


def _params(namespace: str, since: datetime | None) -> dict[str, Any]:
    return {"namespace": namespace} if since is None else {"namespace": namespace, "since": since}


@cache
def _edges_query(since: bool) -> sa.Select[Any]:
    jobs = _jobs().subquery("ns_job")
    e, d, n = s.job_dataset_edges, s.datasets, s.namespaces
    return (
        sa.select(jobs.c.name, e.c.direction, n.c.name, d.c.name)
        .join(e, e.c.job_id == jobs.c.id)
        .join(d, sa.and_(d.c.id == e.c.dataset_id, d.c.is_hidden == sa.false()))
        .join(n, n.c.id == d.c.namespace_id)
        .where(_seen_since(e, since))
        .order_by(jobs.c.name, e.c.direction, n.c.name, d.c.name)
    )


def job_dataset_edges(
    conn: Connection, namespace: str, since: datetime | None = None
) -> list[JobDatasetEdge]:
    """Every edge between a job of ``namespace`` and a dataset that is not hidden (last seen
    at or after ``since`` when given)."""
    rows = read_rows(conn, _edges_query(since is not None), _params(namespace, since))
    return [JobDatasetEdge._make(row) for row in rows]


@cache
def _column_edges_query(since: bool) -> sa.CompoundSelect[Any]:
    jobs = _jobs().subquery("ns_job")
    e = s.job_dataset_edges
    writes = (
        sa.select(jobs.c.name.label("job"), e.c.dataset_id)
        .join(e, e.c.job_id == jobs.c.id)
        .where(e.c.direction == "output", _seen_since(e, since))
        .subquery("writes")
    )
    f_in, d_in, n_in = (
        s.dataset_fields.alias("f_in"),
        s.datasets.alias("d_in"),
        s.namespaces.alias("n_in"),
    )
    f_out, d_out, n_out = (
        s.dataset_fields.alias("f_out"),
        s.datasets.alias("d_out"),
        s.namespaces.alias("n_out"),
    )
    cl, cd = s.column_lineage_edges, s.column_dataset_edges

    def edge_rows(edges: sa.Table, output_field: Any, joined: sa.Select[Any]) -> sa.Select[Any]:
        """One row per edge of ``edges`` into a dataset a job writes, both ends named."""
        return (
            joined.join(f_in, f_in.c.id == edges.c.input_field_id)
            .join(d_in, sa.and_(d_in.c.id == f_in.c.dataset_id, d_in.c.is_hidden == sa.false()))
            .join(n_in, n_in.c.id == d_in.c.namespace_id)
            .with_only_columns(
                writes.c.job,
                n_in.c.name,
                d_in.c.name,
                f_in.c.name,
                n_out.c.name,
                d_out.c.name,
                output_field,
                edges.c.transformation_type,
                edges.c.transformation_subtype,
            )  # fmt: skip
        )

    written = (
        sa.select(writes.c.job)
        .select_from(writes)
        .join(d_out, sa.and_(d_out.c.id == writes.c.dataset_id, d_out.c.is_hidden == sa.false()))
        .join(n_out, n_out.c.id == d_out.c.namespace_id)
    )
    fields = edge_rows(
        cl,
        f_out.c.name,
        written.join(f_out, f_out.c.dataset_id == d_out.c.id).join(
            cl, sa.and_(cl.c.output_field_id == f_out.c.id, _seen_since(cl, since))
        ),
    )
    whole = edge_rows(
        cd,
        sa.null(),
        written.join(cd, sa.and_(cd.c.output_dataset_id == d_out.c.id, _seen_since(cd, since))),
    )
    return sa.union_all(fields, whole)


def job_column_edges(
    conn: Connection,
    namespace: str,
    since: datetime | None = None,
    visible_to: VisibleTo = None,
) -> list[JobColumnEdge]:
    """Every column edge into a dataset a job of ``namespace`` writes, once per such job (edges
    last seen at or after ``since`` when given). A limited caller sees only edges from columns
    of datasets it may read (:func:`readable_dataset_ids`), as in the column-lineage answers."""
    rows = read_rows(conn, _column_edges_query(since is not None), _params(namespace, since))
    if visible_to is not None:
        readable = _readable_names(conn, {(row[1], row[2]) for row in rows}, visible_to)
        rows = [row for row in rows if (row[1], row[2]) in readable]
    return sorted(
        (JobColumnEdge._make(row) for row in rows),
        key=lambda e: (
            e.job,
            e.output_namespace,
            e.output_dataset,
            e.output_field or "",
            e.input_namespace,
            e.input_dataset,
            e.input_field,
            e.type,
            e.subtype,
        ),
    )


def _readable_names(
    conn: Connection, names: set[tuple[str, str]], visible_to: frozenset[str]
) -> set[tuple[str, str]]:
    """Which of the (namespace, dataset) ``names`` the caller may read."""
    d, n = s.datasets, s.namespaces
    found: set[tuple[str, str]] = set()
    ordered = sorted({name for _, name in names})
    for start in range(0, len(ordered), 500):  # bounded IN lists
        rows = conn.execute(
            sa.select(n.c.name, d.c.name)
            .join(n, n.c.id == d.c.namespace_id)
            .where(
                d.c.name.in_(ordered[start : start + 500]),
                d.c.id.in_(readable_dataset_ids(visible_to)),
            )
        )
        found.update((str(ns), str(name)) for ns, name in rows)
    return found & names
