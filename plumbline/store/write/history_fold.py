"""Folding the lineage history of runs about to be pruned into per-edge records.

The history views (``plumbline_table_lineage``, ``plumbline_column_lineage``) hold one row per
run that carried an edge and go with the runs; the edge views keep every edge for good, with its
first and last time seen, its run count and its last run. Before ``db prune`` deletes runs, their
history is added to ``pruned_table_lineage`` / ``pruned_column_lineage`` (one row per edge and
job, merged with what earlier prunes folded), which the edge views read beside the live history.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.schema import (
    column_lineage_shape_edges,
    pruned_column_lineage,
    pruned_table_lineage,
    run_column_shapes,
    run_io,
    runs,
)
from plumbline.store.write.upsert import greatest, insert, least

# a run's time in the SQL tables (as the views of migration 0012 compute it)
RUN_TIME = sa.func.coalesce(
    runs.c.started_at, runs.c.ended_at, runs.c.last_event_at, runs.c.created_at
)


def _table_pairs(doomed: sa.Select[Any]) -> sa.Subquery:
    """(run id, source dataset id, target dataset id; 0: none) of the doomed runs."""
    i, o = run_io.alias("i"), run_io.alias("o")
    both = (
        sa.select(i.c.run_id, i.c.dataset_id.label("source_id"), o.c.dataset_id.label("target_id"))
        .join(o, sa.and_(o.c.run_id == i.c.run_id, o.c.direction == "output"))
        .where(i.c.direction == "input", i.c.run_id.in_(doomed))
    )
    o2 = run_io.alias("o2")
    read_only = sa.select(i.c.run_id, i.c.dataset_id, sa.literal(0)).where(
        i.c.direction == "input",
        i.c.run_id.in_(doomed),
        ~sa.exists().where(o2.c.run_id == i.c.run_id, o2.c.direction == "output"),
    )
    i2 = run_io.alias("i2")
    write_only = sa.select(o.c.run_id, sa.literal(0), o.c.dataset_id).where(
        o.c.direction == "output",
        o.c.run_id.in_(doomed),
        ~sa.exists().where(i2.c.run_id == o.c.run_id, i2.c.direction == "input"),
    )
    return sa.union_all(both, read_only, write_only).subquery("pairs")


def _folded(keyed: sa.Select[Any], keys: list[str]) -> sa.Select[Any]:
    """One row per key of ``keyed`` (its keys, plus run uuid, state and time per run): first and
    last time, run count, and the last run."""
    rows = keyed.subquery("per_run")
    by_key = [rows.c[k] for k in keys]
    ranked = sa.select(
        *by_key,
        sa.func.min(rows.c.at).over(partition_by=by_key).label("first_seen"),
        sa.func.max(rows.c.at).over(partition_by=by_key).label("last_seen"),
        sa.func.count().over(partition_by=by_key).label("run_count"),
        rows.c.run_uuid.label("last_run_uuid"),
        rows.c.state.label("last_run_state"),
        rows.c.at.label("last_run_at"),
        sa.func.row_number()
        .over(partition_by=by_key, order_by=(rows.c.at.desc(), rows.c.run_uuid.desc()))
        .label("rn"),
    ).subquery("ranked")
    names = [*keys, "first_seen", "last_seen", "run_count", "last_run_uuid", "last_run_state"]
    return sa.select(*(ranked.c[n] for n in [*names, "last_run_at"])).where(ranked.c.rn == 1)


def _merge(connection: Connection, table: sa.Table, keys: list[str], rows: sa.Select[Any]) -> None:
    columns = [*keys, "first_seen", "last_seen", "run_count", "last_run_uuid", "last_run_state",
               "last_run_at"]  # fmt: skip
    statement = insert(connection, table).from_select(columns, rows)
    new = statement.excluded
    later = new.last_run_at > table.c.last_run_at
    connection.execute(
        statement.on_conflict_do_update(
            index_elements=keys,
            set_={
                "first_seen": least(connection, table.c.first_seen, new.first_seen),
                "last_seen": greatest(connection, table.c.last_seen, new.last_seen),
                "run_count": table.c.run_count + new.run_count,
                "last_run_uuid": sa.case((later, new.last_run_uuid), else_=table.c.last_run_uuid),
                "last_run_state": sa.case(
                    (later, new.last_run_state), else_=table.c.last_run_state
                ),
                "last_run_at": greatest(connection, table.c.last_run_at, new.last_run_at),
            },
        )
    )


def fold_history(connection: Connection, doomed: sa.Select[Any]) -> None:
    """Add the table and column lineage history of the runs ``doomed`` selects (their ids) to
    the folded per-edge records."""
    pairs = _table_pairs(doomed)
    per_run = (
        sa.select(
            pairs.c.source_id.label("source_dataset_id"),
            pairs.c.target_id.label("target_dataset_id"),
            runs.c.job_id,
            runs.c.uuid.label("run_uuid"),
            runs.c.current_state.label("state"),
            RUN_TIME.label("at"),
        )
        .select_from(pairs)
        .join(runs, runs.c.id == pairs.c.run_id)
    )
    table_keys = ["source_dataset_id", "target_dataset_id", "job_id"]
    _merge(connection, pruned_table_lineage, table_keys, _folded(per_run, table_keys))
    h, rs = column_lineage_shape_edges, run_column_shapes
    column_keys = ["job_id", "output_dataset_id", "output_field_id", "input_field_id",
                   "transformation_type", "transformation_subtype"]  # fmt: skip
    per_run_columns = (
        sa.select(
            runs.c.job_id,
            h.c.output_dataset_id,
            h.c.output_field_id,
            h.c.input_field_id,
            h.c.transformation_type,
            h.c.transformation_subtype,
            runs.c.uuid.label("run_uuid"),
            runs.c.current_state.label("state"),
            RUN_TIME.label("at"),
        )
        .select_from(rs)
        .join(h, h.c.shape_id == rs.c.shape_id)
        .join(runs, runs.c.id == rs.c.run_id)
        .where(rs.c.run_id.in_(doomed))
    )
    _merge(connection, pruned_column_lineage, column_keys, _folded(per_run_columns, column_keys))
