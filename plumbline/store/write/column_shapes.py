"""The column-lineage history of runs, per shape (migration 0018): which run carried which column
edges, stored as a reference from the run to its *shape*, the distinct set of edges it carried.

Runs of a job nearly always carry the same edges: one shape serves them all, so the history grows
with runs and distinct shapes, not runs x edges. A shape is named by the digest of its sorted
edges (:func:`digest`), created once by the first run that carries it, and never changed or
deleted. A run whose events come in several writes and name more edges in a later one is given
the shape of all its edges together (the union, as the history held before 0018).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store.schema import column_lineage_shape_edges, column_lineage_shapes
from plumbline.store.schema import run_column_shapes as run_shapes
from plumbline.store.write.context import Batch
from plumbline.store.write.upsert import execute_many, insert_ignore, select_in

# (output dataset id, output field id (0: the whole dataset), input field id, type, subtype)
Edge = tuple[int, int, int, str, str]
EDGE_COLUMNS = (
    "output_dataset_id",
    "output_field_id",
    "input_field_id",
    "transformation_type",
    "transformation_subtype",
)


def digest(edges: Iterable[Edge]) -> str:
    """A shape's name: sha256 of its sorted edges as compact JSON (migration 0018 names the
    shapes it converts the same way)."""
    text = json.dumps(sorted(edges), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class RunShapes:
    """A write's run -> shape rows: runs given their first shape, runs whose shape grew."""

    new: list[dict[str, Any]] = field(default_factory=list)
    changed: list[dict[str, Any]] = field(default_factory=list)
    edges: int = 0  # (run, edge) pairs these rows stand for

    def __bool__(self) -> bool:
        return bool(self.new or self.changed)


_STORED = sa.select(run_shapes.c.run_id, run_shapes.c.shape_id)
_SHAPE_EDGES = sa.select(
    column_lineage_shape_edges.c.shape_id,
    *(column_lineage_shape_edges.c[c] for c in EDGE_COLUMNS),
)
_SHAPE_IDS = sa.select(column_lineage_shapes.c.digest, column_lineage_shapes.c.id)


def _edges_of(connection: Connection, shape_ids: set[int]) -> dict[int, set[Edge]]:
    found: dict[int, set[Edge]] = {shape_id: set() for shape_id in shape_ids}
    for row in select_in(
        connection, _SHAPE_EDGES, [column_lineage_shape_edges.c.shape_id], shape_ids
    ):
        found[row[0]].add((int(row[1]), int(row[2]), int(row[3]), str(row[4]), str(row[5])))
    return found


def resolve_shapes(
    connection: Connection, batch: Batch, carried: dict[int, set[Edge]]
) -> RunShapes:
    """The shape of each run of ``carried`` (run id -> the edges this write says it carried),
    with what it already had stored; shapes the store lacks are created."""
    if not carried:
        return RunShapes()
    older = sorted(carried.keys() - batch.created_runs)
    stored: dict[int, int] = {
        row.run_id: row.shape_id
        for row in (select_in(connection, _STORED, [run_shapes.c.run_id], older) if older else [])
    }
    had = _edges_of(connection, set(stored.values())) if stored else {}
    wanted: dict[int, tuple[str, set[Edge]]] = {}
    for run_id, edges in carried.items():
        before = stored.get(run_id)
        if before is not None:
            if edges <= had[before]:
                continue  # nothing new: the run keeps its shape
            edges = edges | had[before]
        wanted[run_id] = (digest(edges), edges)
    if not wanted:
        return RunShapes()
    ids = _shape_ids(connection, batch, {name: edges for name, edges in wanted.values()})
    rows = RunShapes()
    for run_id in sorted(wanted):
        name, edges = wanted[run_id]
        target = rows.changed if run_id in stored else rows.new
        target.append({"run_id": run_id, "shape_id": ids[name]})
        rows.edges += len(edges)
    return rows


def _shape_ids(
    connection: Connection, batch: Batch, shapes: dict[str, set[Edge]]
) -> dict[str, int]:
    """The ids of the shapes by digest, creating the missing ones (in digest order)."""
    known = batch.cache.shapes
    ids = {name: shape_id for name in shapes if (shape_id := known.get(name)) is not None}
    if len(ids) < len(shapes):
        looked_up = {
            row.digest: row.id
            for row in select_in(
                connection, _SHAPE_IDS, [column_lineage_shapes.c.digest], shapes.keys() - ids.keys()
            )
        }
        missing = sorted(shapes.keys() - ids.keys() - looked_up.keys())
        if missing:
            insert_ignore(
                connection,
                column_lineage_shapes,
                [
                    {"digest": name, "edge_count": len(shapes[name]), "created_at": batch.now}
                    for name in missing
                ],
            )
            created = {
                row.digest: row.id
                for row in select_in(
                    connection, _SHAPE_IDS, [column_lineage_shapes.c.digest], missing
                )
            }
            insert_ignore(
                connection,
                column_lineage_shape_edges,
                [
                    {"shape_id": created[name], **dict(zip(EDGE_COLUMNS, edge, strict=True))}
                    for name in missing
                    for edge in sorted(shapes[name])
                ],
            )
            looked_up.update(created)
        ids.update(looked_up)
        batch.learned.shapes.update(looked_up)
    return ids


def write_run_shapes(connection: Connection, rows: RunShapes) -> None:
    """Record the runs' shapes (no result is read: fit for a pipeline)."""
    insert_ignore(connection, run_shapes, rows.new)
    if rows.changed:

        def conflict(statement: Any) -> Any:
            return statement.on_conflict_do_update(
                index_elements=["run_id"], set_={"shape_id": statement.excluded.shape_id}
            )

        execute_many(connection, run_shapes, rows.changed, conflict)
