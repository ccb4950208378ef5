"""What a namespace-limited caller may read, as SQL conditions.

``visible_to`` is the set of namespaces a caller is limited to (``None``: everything). Such a caller
sees the jobs of its namespaces, their runs and events, and the datasets those jobs read or write
(plus datasets registered in its own namespaces, e.g. by DatasetEvents it sent). Every helper returns
``sa.true()`` for ``None`` so unlimited callers keep the unfiltered queries.

Seeing a dataset is not reading it: a dataset its jobs only read (an input the caller may have named
itself) is a node, its name and its edges; its contents (fields, facets, description, source, tags,
versions' schemas) are read only when it is in the caller's namespaces or its jobs write it
(:func:`readable_dataset_ids`).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from plumbline.store import schema as s

VisibleTo = frozenset[str] | None
# The namespace list as a bound parameter, for statements built once and cached (the walks).
VISIBLE_NS: sa.BindParameter[Any] = sa.bindparam("visible_ns", expanding=True)
Names = frozenset[str] | sa.BindParameter[Any]


def _names(visible_to: Names) -> Any:
    return visible_to if isinstance(visible_to, sa.BindParameter) else sorted(visible_to)


def walk_params(visible_to: VisibleTo) -> dict[str, Any]:
    """Parameters a limited walk statement needs (none for an unlimited one)."""
    return {} if visible_to is None else {"visible_ns": sorted(visible_to)}


def visible_jobs(
    namespace_name: sa.ColumnElement[Any], visible_to: VisibleTo
) -> sa.ColumnElement[bool]:
    """Jobs the caller may see, given the job's namespace name column."""
    if visible_to is None:
        return sa.true()
    return namespace_name.in_(sorted(visible_to))


def visible_job_ids(visible_to: Names) -> sa.Select[Any]:
    """The ids of the jobs of ``visible_to``'s namespaces (a set, or :data:`VISIBLE_NS`)."""
    j, n = s.jobs.alias("vis_job"), s.namespaces.alias("vis_job_ns")
    return (
        sa.select(j.c.id)
        .join(n, n.c.id == j.c.namespace_id)
        .where(n.c.name.in_(_names(visible_to)))
    )


def visible_job_id(job_id: sa.ColumnElement[Any], visible_to: VisibleTo) -> sa.ColumnElement[bool]:
    """Jobs the caller may see, given a job id column (also what its runs are keyed by)."""
    if visible_to is None:
        return sa.true()
    return job_id.in_(visible_job_ids(visible_to))


def visible_dataset_ids(visible_to: Names) -> sa.Select[Any]:
    """The ids of the datasets the caller may see: touched by its jobs or in its namespaces."""
    e = s.job_dataset_edges.alias("vis_edge")
    d, n = s.datasets.alias("vis_dataset"), s.namespaces.alias("vis_ds_ns")
    touched = sa.select(e.c.dataset_id).where(e.c.job_id.in_(visible_job_ids(visible_to)))
    own = (
        sa.select(d.c.id)
        .join(n, n.c.id == d.c.namespace_id)
        .where(n.c.name.in_(_names(visible_to)))
    )
    return sa.union(touched, own)  # type: ignore[return-value]


def readable_dataset_ids(visible_to: Names) -> sa.Select[Any]:
    """The ids of the datasets whose contents the caller may read: written by its jobs or in its
    namespaces (a dataset its jobs only read shows as a node, without contents)."""
    e = s.job_dataset_edges.alias("read_edge")
    d, n = s.datasets.alias("read_dataset"), s.namespaces.alias("read_ds_ns")
    written = sa.select(e.c.dataset_id).where(
        e.c.direction == "output", e.c.job_id.in_(visible_job_ids(visible_to))
    )
    own = (
        sa.select(d.c.id)
        .join(n, n.c.id == d.c.namespace_id)
        .where(n.c.name.in_(_names(visible_to)))
    )
    return sa.union(written, own)  # type: ignore[return-value]


def visible_datasets(
    dataset_id: sa.ColumnElement[Any], visible_to: VisibleTo
) -> sa.ColumnElement[bool]:
    """Datasets the caller may see, given a dataset id column."""
    if visible_to is None:
        return sa.true()
    return dataset_id.in_(visible_dataset_ids(visible_to))


def visible_namespaces(
    namespace_id: sa.ColumnElement[Any],
    namespace_name: sa.ColumnElement[Any],
    visible_to: VisibleTo,
) -> sa.ColumnElement[bool]:
    """Namespaces the caller may see: its own, and those holding a dataset it may see."""
    if visible_to is None:
        return sa.true()
    d = s.datasets.alias("vis_ns_dataset")
    holding = sa.select(d.c.namespace_id).where(d.c.id.in_(visible_dataset_ids(visible_to)))
    return sa.or_(namespace_name.in_(sorted(visible_to)), namespace_id.in_(holding))
