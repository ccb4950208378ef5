"""Rebuilding the column-lineage history (the runs' column shapes, ``run_column_shapes``) of runs
recorded before migration 0012, from their raw events still stored: which run carried which
column edge.

Each run's events are read back and their ``columnLineage`` facets turned into its shape by the
write path's own code (:func:`plumbline.store.write.column_lineage.run_edges`,
:mod:`plumbline.store.write.column_shapes`); a run
whose raw events are pruned, or name a dataset the store no longer has, keeps no history.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from plumbline.openlineage import EventValidationError, parse_event
from plumbline.store.schema import lineage_events, run_column_shapes, runs
from plumbline.store.write.column_lineage import run_edges
from plumbline.store.write.column_shapes import resolve_shapes, write_run_shapes
from plumbline.store.write.context import Batch
from plumbline.store.write.input_versions import _dataset_ids


@dataclass(frozen=True)
class RebuiltHistory:
    """What :func:`rebuild_column_history` did."""

    runs: int  # runs given their column-lineage history
    rows: int  # history rows given (one per run and column edge, as the view shows them)
    skipped: int  # runs whose events could not be read back (invalid, or naming unknown datasets)


_CANDIDATES = (
    sa.select(runs.c.id, runs.c.uuid)
    .where(
        runs.c.uuid.in_(
            sa.select(lineage_events.c.run_uuid).where(
                lineage_events.c.kind == "RunEvent",
                sa.cast(lineage_events.c.payload, sa.Text).like('%"columnLineage"%'),
            )
        ),
        ~sa.exists().where(run_column_shapes.c.run_id == runs.c.id),
    )
    .order_by(runs.c.id)
)


def rebuild_column_history(
    engine: Engine, *, dry_run: bool = False, chunk: int = 200
) -> RebuiltHistory:
    """Give every run without column-lineage history, whose raw events carry column lineage,
    the history those events say (``dry_run``: count, change nothing)."""
    with engine.connect() as conn:
        todo = [(int(row.id), str(row.uuid)) for row in conn.execute(_CANDIDATES)]
    done = rows = skipped = 0
    for start in range(0, len(todo), chunk):
        with engine.connect() as conn, conn.begin() as transaction:
            for run_id, run_uuid in todo[start : start + chunk]:
                written = _rebuild_run(conn, run_id, run_uuid)
                if written is None:
                    skipped += 1
                elif written:
                    done, rows = done + 1, rows + written
            if dry_run:
                transaction.rollback()
    return RebuiltHistory(done, rows, skipped)


def _rebuild_run(conn: Connection, run_id: int, run_uuid: str) -> int | None:
    """The history rows written for one run (None: its events cannot be read back)."""
    payloads = conn.execute(
        sa.select(lineage_events.c.payload)
        .where(lineage_events.c.run_uuid == run_uuid, lineage_events.c.kind == "RunEvent")
        .order_by(lineage_events.c.event_time, lineage_events.c.id)
    ).scalars()
    try:
        events = [parse_event(_document(payload)) for payload in payloads]
    except (EventValidationError, ValueError):
        return None
    batch = Batch.of(events)
    keys = {appearance.key for appearance in batch.appearances}
    for appearance in batch.appearances:
        facets = appearance.dataset.facets
        lineage = facets.column_lineage if facets is not None else None
        if lineage is not None and not lineage.deleted:
            keys.update(lineage.dataset_names)
    batch.dataset_ids = _dataset_ids(conn, keys)
    if len(batch.dataset_ids) < len(keys):
        return None
    batch.run_ids = {parsed.run_id: run_id for parsed in events if parsed.run_id}
    shapes = resolve_shapes(conn, batch, run_edges(conn, batch))
    write_run_shapes(conn, shapes)
    return shapes.edges


def _document(payload: Any) -> Any:
    return json.loads(payload) if isinstance(payload, str | bytes) else payload
