"""Coverage (issue 19): what plumbline knows and what it does not, per namespace, over a window.

Each measure is one grouped statement; a dataset counts in its own namespace, a job, run or event
in its job's namespace. The window is one of event time (when things happened, as the store orders
runs), never of receipt: ``since`` bounds edges' ``last_seen`` (their events' latest time), runs'
``last_event_at`` (their latest event's time) and events' ``event_time``. Events sent late count
in the window of when they happened; a backlog sent today of last month's runs is last month's."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.read.visibility import VisibleTo
from plumbline.store.schema import (
    column_lineage_edges,
    dataset_fields,
    datasets,
    job_dataset_edges,
    jobs,
    lineage_events,
    namespaces,
    pending_events,
    runs,
)

# '' as SQL text, not a bound parameter: PostgreSQL groups by an expression only when the select
# list repeats it exactly, and two parameters are two expressions to it
_EMPTY: sa.ColumnClause[str] = sa.literal_column("''")
EXAMPLES = 20  # names listed per measure and namespace

Measures = dict[str, dict[str, Any]]  # namespace -> measure -> value


def _add(out: Measures, namespace: str, key: str, value: Any) -> None:
    out.setdefault(namespace, {})[key] = value


def _listed(out: Measures, key: str, rows: Iterable[Any]) -> None:
    """Rows of (ns, name): counted and the first names listed, per namespace."""
    for row in rows:
        entry = out.setdefault(row.ns, {})
        entry[key] = entry.get(key, 0) + 1
        names = entry.setdefault(f"_{key}", [])
        if len(names) < EXAMPLES:
            names.append(row.name)


def coverage(conn: Connection, since: datetime, visible_to: VisibleTo = None) -> Measures:
    """Per namespace: ``unproducedInputs``, ``outputsWithoutSchema``,
    ``outputsWithoutColumnLineage``, ``outputFields`` and ``outputFieldsWithLineage``,
    ``unfinishedRuns`` (by job), ``failedEventRuns``, ``producers`` (uri -> events); lists of
    examples under the measure's name with a leading ``_``."""
    out: Measures = {}
    ds_ns = namespaces.alias("ds_ns")
    edge_in = job_dataset_edges.alias("edge_in")
    edge_out = job_dataset_edges.alias("edge_out")
    dataset_name = sa.select(ds_ns.c.name.label("ns"), datasets.c.name).join(
        ds_ns, ds_ns.c.id == datasets.c.namespace_id
    )
    visible = ds_ns.c.name.in_(sorted(visible_to)) if visible_to is not None else sa.true()
    recent_in = sa.exists().where(
        edge_in.c.dataset_id == datasets.c.id,
        edge_in.c.direction == "input",
        edge_in.c.last_seen >= since,
    )
    recent_out = sa.exists().where(
        edge_out.c.dataset_id == datasets.c.id,
        edge_out.c.direction == "output",
        edge_out.c.last_seen >= since,
    )
    any_out = sa.exists().where(
        edge_out.c.dataset_id == datasets.c.id, edge_out.c.direction == "output"
    )
    live = datasets.c.is_hidden.is_(False)
    order = (ds_ns.c.name, datasets.c.name)
    _listed(
        out,
        "unproducedInputs",
        conn.execute(dataset_name.where(live, visible, recent_in, ~any_out).order_by(*order)),
    )
    _listed(
        out,
        "outputsWithoutSchema",
        conn.execute(
            dataset_name.where(
                live, visible, recent_out, datasets.c.current_schema_version_id.is_(None)
            ).order_by(*order)
        ),
    )
    has_lineage = (
        sa.select(column_lineage_edges.c.output_field_id)
        .where(column_lineage_edges.c.output_field_id == dataset_fields.c.id)
        .exists()
    )
    fields = conn.execute(
        sa.select(
            ds_ns.c.name.label("ns"),
            datasets.c.name,
            sa.func.count(dataset_fields.c.id).label("fields"),
            sa.func.count(dataset_fields.c.id).filter(has_lineage).label("with_lineage"),
        )
        .select_from(datasets)
        .join(ds_ns, ds_ns.c.id == datasets.c.namespace_id)
        .outerjoin(  # a dataset's fields as its document lists them: those a schema named
            dataset_fields,
            sa.and_(
                dataset_fields.c.dataset_id == datasets.c.id,
                dataset_fields.c.in_schema == sa.true(),
            ),
        )
        .where(live, visible, recent_out)
        .group_by(ds_ns.c.name, datasets.c.name)
        .order_by(ds_ns.c.name, datasets.c.name)
    ).all()
    for row in fields:
        entry = out.setdefault(row.ns, {})
        entry["outputs"] = entry.get("outputs", 0) + 1
        entry["outputFields"] = entry.get("outputFields", 0) + row.fields
        entry["outputFieldsWithLineage"] = (
            entry.get("outputFieldsWithLineage", 0) + row.with_lineage
        )
    _listed(out, "outputsWithoutColumnLineage", (r for r in fields if r.with_lineage == 0))
    _job_measures(conn, out, since, visible_to)
    return out


def _job_measures(conn: Connection, out: Measures, since: datetime, visible_to: VisibleTo) -> None:
    job_ns = namespaces.alias("job_ns")
    visible = job_ns.c.name.in_(sorted(visible_to)) if visible_to is not None else sa.true()
    unfinished = conn.execute(
        sa.select(job_ns.c.name.label("ns"), jobs.c.name, sa.func.count().label("runs"))
        .select_from(runs)
        .join(jobs, jobs.c.id == runs.c.job_id)
        .join(job_ns, job_ns.c.id == jobs.c.namespace_id)
        .where(
            visible,
            runs.c.last_event_at >= since,
            runs.c.ended_at.is_(None),
            sa.or_(runs.c.current_state.is_(None), runs.c.current_state.in_(("START", "RUNNING"))),
        )
        .group_by(job_ns.c.name, jobs.c.name)
        .order_by(job_ns.c.name, jobs.c.name)
    ).all()
    _listed(out, "jobsWithUnfinishedRuns", unfinished)
    for row in unfinished:
        entry = out[row.ns]
        entry["unfinishedRuns"] = entry.get("unfinishedRuns", 0) + row.runs
    event_visible = (
        lineage_events.c.job_namespace.in_(sorted(visible_to))
        if visible_to is not None
        else sa.true()
    )
    failed = conn.execute(
        sa.select(
            sa.func.coalesce(lineage_events.c.job_namespace, _EMPTY).label("ns"),
            sa.func.count(sa.distinct(lineage_events.c.run_uuid)).label("runs"),
            sa.func.count().label("events"),
        )
        .select_from(pending_events)
        .join(lineage_events, lineage_events.c.id == pending_events.c.event_id)
        .where(
            pending_events.c.failed_at.is_not(None),
            lineage_events.c.event_time >= since,
            event_visible,
        )
        .group_by(sa.func.coalesce(lineage_events.c.job_namespace, _EMPTY))
    )
    for row in failed:
        _add(out, row.ns, "failedEventRuns", row.runs)
        _add(out, row.ns, "failedEvents", row.events)
    producers = conn.execute(
        sa.select(
            sa.func.coalesce(lineage_events.c.job_namespace, _EMPTY).label("ns"),
            sa.func.coalesce(lineage_events.c.producer, _EMPTY).label("producer"),
            sa.func.count().label("events"),
        )
        .where(lineage_events.c.event_time >= since, event_visible)
        .group_by(
            sa.func.coalesce(lineage_events.c.job_namespace, _EMPTY),
            sa.func.coalesce(lineage_events.c.producer, _EMPTY),
        )
    )
    for row in producers:
        out.setdefault(row.ns, {}).setdefault("producers", {})[row.producer] = row.events
