"""The version a run's input read when no facet names it: the dataset's version as of the run's
event time (``run_io.read_at``), not as of when the event was normalized.

A dataset's version as of a time is its newest version made by then (``created_at``) by a run
that completed (or by no run: a ``version`` facet on a dataset event), other than the reading run
itself. That is a function of the events, whatever order they arrive in: after each write,

- the inputs this write names are linked to their version as of their ``read_at``;
- inputs read after a version this write made (or completed: its run's COMPLETE came now) are
  linked again, so that a writer whose events arrive late still counts for the runs after it.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.openlineage import TERMINAL_STATES, RunEvent
from plumbline.store.read.idlist import in_ids
from plumbline.store.schema import dataset_versions, run_io, runs
from plumbline.store.write.context import Batch
from plumbline.store.write.upsert import select_in


def version_as_of(
    dataset_id: sa.ColumnElement[Any], at: sa.ColumnElement[Any], reader: sa.ColumnElement[Any]
) -> sa.ScalarSelect[Any]:
    """The id of the dataset's version as of ``at``, for the run ``reader`` (a scalar subquery)."""
    dv, writer = dataset_versions, runs.alias("writer")
    return (
        sa.select(dv.c.id)
        .select_from(dv.outerjoin(writer, writer.c.uuid == dv.c.run_uuid))
        .where(
            dv.c.dataset_id == dataset_id,
            dv.c.created_at <= at,
            sa.or_(
                writer.c.id.is_(None),
                sa.and_(writer.c.current_state == "COMPLETE", writer.c.id != reader),
            ),
        )
        .order_by(dv.c.created_at.desc(), dv.c.id.desc())
        .limit(1)
        .scalar_subquery()
    )


_AS_OF = version_as_of(run_io.c.dataset_id, run_io.c.read_at, run_io.c.run_id)
_BY_EVENT_TIME = sa.and_(run_io.c.direction == "input", run_io.c.version_source == "eventTime")
# the inputs of some runs
_LINK_RUNS = (
    sa.update(run_io)
    .values(dataset_version_id=_AS_OF)
    .where(in_ids(run_io.c.run_id), _BY_EVENT_TIME)
)
# the inputs of a dataset read since a time, whose version as of then changed
_RELINK_SINCE = (
    sa.update(run_io)
    .values(dataset_version_id=_AS_OF)
    .where(
        run_io.c.dataset_id == sa.bindparam("b_dataset_id"),
        _BY_EVENT_TIME,
        run_io.c.read_at >= sa.bindparam("b_since"),
        run_io.c.dataset_version_id.is_distinct_from(_AS_OF),
    )
)
_MADE = sa.select(
    dataset_versions.c.dataset_id, sa.func.min(dataset_versions.c.created_at)
).group_by(dataset_versions.c.dataset_id)


def link_input_versions(connection: Connection, batch: Batch) -> None:
    """Link inputs read by event time to their versions (after the write's other steps)."""
    run_ids = {batch.run_ids[parsed.run_id or ""] for parsed in batch.run_events()}
    if run_ids:
        connection.execute(_LINK_RUNS, {"ids": sorted(run_ids)})
    since = _versions_made(connection, batch)
    if since:
        connection.execute(
            _RELINK_SINCE,
            [
                {"b_dataset_id": dataset_id, "b_since": since[dataset_id]}
                for dataset_id in sorted(since)
            ],
        )


def _versions_made(connection: Connection, batch: Batch) -> dict[int, Any]:
    """Datasets with a version this write made or completed: the earliest such version's time."""
    finished = sorted(
        {
            parsed.run_id
            for parsed in batch.run_events()
            if isinstance(parsed.event, RunEvent)
            and parsed.event.event_type in TERMINAL_STATES
            and parsed.run_id
        }
    )
    written = sorted(
        {
            version_id
            for index, version_id in batch.version_ids.items()
            if batch.appearances[index].role != "input"
        }
    )
    since: dict[int, Any] = {}
    rows = []
    if finished:
        rows += select_in(connection, _MADE, [dataset_versions.c.run_uuid], finished)
    if written:
        rows += select_in(connection, _MADE, [dataset_versions.c.id], written)
    for dataset_id, made_at in rows:
        if dataset_id not in since or made_at < since[dataset_id]:
            since[dataset_id] = made_at
    return since
