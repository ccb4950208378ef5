"""The graph walks, as recursive SQL (one statement per walk, the same text on SQLite and PostgreSQL).

Every walk:
- carries a ``depth`` column and stops at ``:max_depth`` (the depth limit);
- is built with ``UNION`` (not ``UNION ALL``): a row ``(node, depth)`` already produced is never
  produced again, so a cycle can only revisit a node at a greater depth and dies at the depth limit
  (the cycle guard);
- is read through ``LIMIT :cap + 1`` on the outer query. Both backends evaluate a recursive CTE lazily,
  breadth first, so the walk stops as soon as enough rows were produced (nearest rows first) and the
  ``+ 1`` tells whether it was cut.

The statements are built once (bound parameters only), so SQLAlchemy's compiled-statement cache
serves every request.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

from plumbline.store import schema as s
from plumbline.store.read.visibility import (
    VISIBLE_NS,
    VisibleTo,
    visible_dataset_ids,
    visible_job_ids,
    walk_params,
)
from plumbline.store.read.work_budget import read_rows


class rarely(FunctionElement[bool]):  # noqa: N801 - reads as SQL
    """A condition the planner should expect to be almost always false.

    SQLite plans the recursive step as if the walk table were huge: with statistics it then builds
    Bloom filters over the edge tables on every step (~100 ms per walk on a million edges), without
    them it builds automatic indexes. ``likelihood(cond, 1e-6)`` on the depth limit tells it the walk
    is small, and index lookups win (~1-2 ms). Other backends get the bare condition.
    """

    # not Boolean: SQLite would compare a Boolean function to 1, hiding the hint from the planner
    type = sa.types.NullType()  # type: ignore[assignment]
    name = "rarely"
    inherit_cache = True


@compiles(rarely)
def _rarely_default(element: rarely, compiler: Any, **kw: Any) -> str:
    return str(compiler.process(element.clauses, **kw))


@compiles(rarely, "sqlite")
def _rarely_sqlite(element: rarely, compiler: Any, **kw: Any) -> str:
    return f"likelihood({compiler.process(element.clauses, **kw)}, 0.000001)"


def _within_depth(walk: sa.CTE) -> sa.ColumnElement[bool]:
    return rarely(walk.c.depth < sa.bindparam("max_depth", type_=sa.Integer))


ONE: sa.ColumnElement[int] = sa.literal_column("1", sa.Integer)
ZERO: sa.ColumnElement[int] = sa.literal_column("0", sa.Integer)


@dataclass(frozen=True)
class WalkResult:
    """Nodes reached with their smallest depth, and whether the walk hit the cap."""

    depths: dict[int, int]
    truncated: bool


def _limited(walk: sa.CTE) -> sa.Select[Any]:
    limited = (
        sa.select(walk.c.node_id, walk.c.depth)
        .limit(sa.bindparam("cap_plus_one", type_=sa.Integer))
        .subquery("limited")
    )
    return sa.select(limited.c.node_id, limited.c.depth)


def _run(
    conn: Connection, statement: sa.Select[Any], params: dict[str, Any], cap: int
) -> WalkResult:
    rows = read_rows(conn, statement, {**params, "cap_plus_one": cap + 1})
    depths: dict[int, int] = {}
    for node_id, depth in rows:
        if node_id not in depths or depth < depths[node_id]:
            depths[node_id] = depth
    return WalkResult(depths=depths, truncated=len(rows) > cap)


def _seen_since(edge: sa.FromClause, since: bool) -> sa.ColumnElement[bool]:
    """``edge.last_seen >= :since`` when the walk takes only edges seen since a time."""
    if not since:
        return sa.true()
    return edge.c.last_seen >= sa.bindparam("since", type_=s.Timestamp)


def _job_seed(start_kind: str, downstream: bool, limited: bool, since: bool) -> sa.Select[Any]:
    """Start jobs: the job itself, or the dataset's readers (downstream) / writers (upstream)."""
    start = sa.bindparam("start", type_=s.BigId)
    if start_kind == "JOB":
        return sa.select(s.jobs.c.id.label("node_id")).where(s.jobs.c.id == start)
    e, j = s.job_dataset_edges.alias("seed_edge"), s.jobs.alias("seed_job")
    return (
        sa.select(e.c.job_id.label("node_id"))
        .join(j, j.c.id == e.c.job_id)
        .where(
            e.c.dataset_id == start,
            e.c.direction == ("input" if downstream else "output"),
            j.c.is_hidden == sa.false(),
            j.c.id.in_(visible_job_ids(VISIBLE_NS)) if limited else sa.true(),
            _seen_since(e, since),
        )
    )


@cache
def _job_walk_statement(
    start_kind: str, downstream: bool, limited: bool, since: bool = False
) -> sa.Select[Any]:
    via, to = s.job_dataset_edges.alias("via"), s.job_dataset_edges.alias("hop")
    d, j = s.datasets.alias("via_dataset"), s.jobs.alias("hop_job")
    from_dir, to_dir = ("output", "input") if downstream else ("input", "output")
    seed = _job_seed(start_kind, downstream, limited, since).subquery("seed")
    walk = sa.select(seed.c.node_id.label("node_id"), ZERO.label("depth")).cte(
        "downstream_jobs" if downstream else "upstream_jobs", recursive=True
    )
    step = (
        sa.select(to.c.job_id, (walk.c.depth + ONE).label("depth"))
        .select_from(walk)
        .join(via, sa.and_(via.c.job_id == walk.c.node_id, via.c.direction == from_dir))
        .join(d, sa.and_(d.c.id == via.c.dataset_id, d.c.is_hidden == sa.false()))
        .join(to, sa.and_(to.c.dataset_id == via.c.dataset_id, to.c.direction == to_dir))
        .join(j, sa.and_(j.c.id == to.c.job_id, j.c.is_hidden == sa.false()))
        .where(_within_depth(walk), _seen_since(via, since), _seen_since(to, since))
    )
    if limited:  # a namespace-limited caller walks only through the jobs it may see
        step = step.where(j.c.id.in_(visible_job_ids(VISIBLE_NS)))
    return _limited(walk.union(step))


def job_walk(
    conn: Connection,
    start_kind: str,
    start: int,
    *,
    downstream: bool,
    max_depth: int,
    cap: int,
    visible_to: VisibleTo = None,
    since: datetime | None = None,
) -> WalkResult:
    """Jobs reachable from a job or a dataset (``start_kind`` ``JOB``/``DATASET``) through datasets.

    Downstream: job -> dataset it writes -> job reading it. Upstream: job -> dataset it reads -> job
    writing it. Around a dataset the walk starts at its readers (downstream) or writers (upstream).
    One hop from job to job is one level of depth; hidden jobs and datasets are not crossed, nor
    jobs ``visible_to`` may not see. ``since``: only edges last seen at or after that time.
    """
    statement = _job_walk_statement(
        start_kind, downstream, visible_to is not None, since is not None
    )
    params = {"start": start, "max_depth": max_depth, **walk_params(visible_to)}
    if since is not None:
        params["since"] = since
    return _run(conn, statement, params, cap)


def direct_field_edges() -> sa.Select[Any]:
    """The ``fields`` edges of column lineage, in :func:`field_edges`'s columns."""
    cl = s.column_lineage_edges
    return sa.select(
        cl.c.output_field_id,
        cl.c.input_field_id,
        cl.c.transformation_type,
        cl.c.transformation_subtype,
        cl.c.description,
        cl.c.masking,
        cl.c.last_seen,
        cl.c.edge_source,
        cl.c.completeness,
        cl.c.completeness_reasons,
    )


def whole_dataset_field_edges() -> sa.Select[Any]:
    """The ``dataset`` dependencies, one edge to each field of the dataset they shape."""
    cd, f = s.column_dataset_edges, s.dataset_fields
    return sa.select(
        f.c.id.label("output_field_id"),
        cd.c.input_field_id,
        cd.c.transformation_type,
        cd.c.transformation_subtype,
        cd.c.description,
        cd.c.masking,
        cd.c.last_seen,
        cd.c.edge_source,
        cd.c.completeness,
        cd.c.completeness_reasons,
    ).join(f, f.c.dataset_id == cd.c.output_dataset_id)


@cache
def field_edges() -> sa.Subquery:
    """Field -> field lineage edges: the ``fields`` edges plus each ``dataset`` dependency applied to
    every field of the dataset it shapes (join keys, filters, grouping, sorting)."""
    return sa.union_all(direct_field_edges(), whole_dataset_field_edges()).subquery("field_edges")


def _field_seed(start_kind: str) -> sa.Select[Any]:
    """Start fields: one field, every field of a dataset, or every field a job writes."""
    start = sa.bindparam("start", type_=s.BigId)
    f, e = s.dataset_fields.alias("seed_field"), s.job_dataset_edges.alias("seed_edge")
    if start_kind == "DATASET_FIELD":
        return sa.select(f.c.id.label("node_id")).where(f.c.id == start)
    if start_kind == "DATASET":
        return sa.select(f.c.id.label("node_id")).where(f.c.dataset_id == start)
    return (
        sa.select(f.c.id.label("node_id"))
        .join(e, e.c.dataset_id == f.c.dataset_id)
        .where(e.c.job_id == start, e.c.direction == "output")
    )


def _next_fields(walk: sa.CTE, downstream: bool, since: bool) -> list[sa.Select[Any]]:
    """The fields one hop from the walk's ``node_id``: one select per kind of field edge, each
    with the walk's field in its own condition (an index lookup)."""
    cl, cd, f = s.column_lineage_edges, s.column_dataset_edges, s.dataset_fields
    if downstream:
        direct = sa.select(cl.c.output_field_id.label("node_id")).where(
            cl.c.input_field_id == walk.c.node_id
        )
        whole = (
            sa.select(f.c.id.label("node_id"))
            .join(cd, cd.c.output_dataset_id == f.c.dataset_id)
            .where(cd.c.input_field_id == walk.c.node_id)
        )
    else:
        direct = sa.select(cl.c.input_field_id.label("node_id")).where(
            cl.c.output_field_id == walk.c.node_id
        )
        whole = (
            sa.select(cd.c.input_field_id.label("node_id"))
            .join(f, f.c.dataset_id == cd.c.output_dataset_id)
            .where(f.c.id == walk.c.node_id)
        )
    return [direct.where(_seen_since(cl, since)), whole.where(_seen_since(cd, since))]


@cache
def _field_walk_statement(
    start_kind: str, downstream: bool, limited: bool, split: bool, since: bool = False
) -> sa.Select[Any]:
    """The field walk, with the walk's field inside each kind of edge's own lookup.

    Joined to the walk as one ``UNION ALL`` subquery of all field edges, both backends read every
    field edge on every step of the recursion (SQLite materializes the union, PostgreSQL hash-joins
    it once column_dataset_edges has rows: seconds per walk on a million edges). ``split`` (SQLite,
    >= 3.34): one recursive step per kind of edge. Otherwise (PostgreSQL, which allows only one
    reference to the walk): one step joined to a ``LATERAL`` union of the per-kind lookups.
    """
    seed = _field_seed(start_kind).subquery("seed")
    walk = sa.select(seed.c.node_id.label("node_id"), ZERO.label("depth")).cte(
        "downstream_fields" if downstream else "upstream_fields", recursive=True
    )
    hops: list[sa.Select[Any]] = []
    if split:
        for edges in (
            direct_field_edges()
            .where(_seen_since(s.column_lineage_edges, since))
            .subquery("direct"),
            whole_dataset_field_edges()
            .where(_seen_since(s.column_dataset_edges, since))
            .subquery("whole"),
        ):
            here, there = (
                (edges.c.input_field_id, edges.c.output_field_id)
                if downstream
                else (edges.c.output_field_id, edges.c.input_field_id)
            )
            hops.append(
                sa.select(there.label("node_id"), (walk.c.depth + ONE).label("depth"))
                .select_from(walk)
                .join(edges, here == walk.c.node_id)
            )
    else:
        lookups = _next_fields(walk, downstream, since)
        hop = sa.union_all(*(lookup.correlate(walk) for lookup in lookups)).lateral("hop")
        hops.append(
            sa.select(hop.c.node_id, (walk.c.depth + ONE).label("depth"))
            .select_from(walk)
            .join(hop, sa.true())
        )
    steps = []
    for step in hops:
        step = step.where(_within_depth(walk))
        if limited:  # only through fields of datasets a namespace-limited caller may see
            reached = step.selected_columns[0]
            visible = s.dataset_fields.alias("visible_field")
            step = step.join(visible, visible.c.id == reached).where(
                visible.c.dataset_id.in_(visible_dataset_ids(VISIBLE_NS))
            )
        steps.append(step)
    return _limited(walk.union(*steps))


def field_walk(
    conn: Connection,
    start_kind: str,
    start: int,
    *,
    downstream: bool,
    max_depth: int,
    cap: int,
    visible_to: VisibleTo = None,
    since: datetime | None = None,
) -> WalkResult:
    """Dataset fields reachable along column lineage from a field, a dataset's fields or a job's
    output fields (``start_kind`` ``DATASET_FIELD``/``DATASET``/``JOB``); upstream follows
    output -> input, downstream input -> output. ``since``: only edges last seen at or after it."""
    split = conn.dialect.name == "sqlite"
    statement = _field_walk_statement(
        start_kind, downstream, visible_to is not None, split, since is not None
    )
    params = {"start": start, "max_depth": max_depth, **walk_params(visible_to)}
    if since is not None:
        params["since"] = since
    return _run(conn, statement, params, cap)


@cache
def _run_walk_statement(limited: bool) -> sa.Select[Any]:
    io, dv, r = s.run_io, s.dataset_versions, s.runs
    walk = sa.select(
        sa.cast(sa.bindparam("start", type_=s.BigId), s.BigId).label("node_id"), ZERO.label("depth")
    ).cte("upstream_runs", recursive=True)
    step = (
        sa.select(r.c.id, (walk.c.depth + ONE).label("depth"))
        .select_from(walk)
        .join(io, sa.and_(io.c.run_id == walk.c.node_id, io.c.direction == "input"))
        .join(dv, dv.c.id == io.c.dataset_version_id)
        .join(r, r.c.uuid == dv.c.run_uuid)
        .where(_within_depth(walk))
    )
    if limited:  # only runs of jobs a namespace-limited caller may see
        step = step.where(r.c.job_id.in_(visible_job_ids(VISIBLE_NS)))
    return _limited(walk.union(step))


def upstream_run_walk(
    conn: Connection, run_pk: int, *, max_depth: int, cap: int, visible_to: VisibleTo = None
) -> WalkResult:
    """Runs upstream of ``run_pk``: run -> the dataset versions it read (the exact version each
    input is linked to, see ``run_io.version_source``) -> the runs that wrote them. The one walk
    of ``/runlineage/upstream`` and of root cause (:mod:`plumbline.analysis.root_cause`)."""
    params = {"start": run_pk, "max_depth": max_depth, **walk_params(visible_to)}
    return _run(conn, _run_walk_statement(visible_to is not None), params, cap)
