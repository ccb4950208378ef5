"""Pruning the per-run facts that grow with use: raw events and finished runs older than a date.

What each question needs, and what pruning keeps for it:

- lineage (datasets, jobs, fields, edges) is never pruned, nor is a raw event still waiting for
  normalization (one that failed goes, with its failure);
- a run is kept while it is its job's latest run; a pruned run leaves a row in ``pruned_runs``
  (its id, job, state, times, when it was pruned), so that root cause, run diff and version
  lineage name it ("pruned at …") where they need it instead of answering as if it never ran;
- the dataset versions a pruned run wrote go with it unless a dataset still points at one as its
  current version or a kept run read it (version lineage and root cause from kept runs reach it;
  it then names its writer as pruned);
- the lineage history of a pruned run (the ``plumbline_table_lineage`` and
  ``plumbline_column_lineage`` views) goes with it, folded first into per-edge records so that the
  edge views keep every edge with its first/last seen, run count and last run;
- a run diff reads each run's column lineage from its raw events: pruned by when they were
  received, they leave the diff saying column lineage is not available and why.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from plumbline.store.schema import (
    dataset_versions,
    datasets,
    jobs,
    lineage_events,
    pending_events,
    pruned_runs,
    run_io,
    runs,
    stream_batches,
)
from plumbline.store.write.history_fold import fold_history


def prune(
    engine: Engine,
    before: datetime,
    *,
    batches_before: datetime | None = None,
    dry_run: bool = False,
) -> dict[str, int]:
    """Delete raw events received before ``before`` and runs that ended before it, and the
    micro-batches that ran before ``batches_before`` (default: ``before``).

    Returns the number of rows deleted per table (run states and run inputs/outputs go with
    their runs). With ``dry_run`` the same deletes run in a transaction that is rolled back, so
    the counts are exact and nothing changes.
    """
    with engine.connect() as connection, connection.begin() as transaction:
        waiting = sa.select(pending_events.c.event_id).where(pending_events.c.failed_at.is_(None))
        old_events = sa.select(lineage_events.c.id).where(lineage_events.c.received_at < before)
        connection.execute(  # failed events go with their raw rows
            sa.delete(pending_events)
            .where(pending_events.c.failed_at.is_not(None))
            .where(pending_events.c.event_id.in_(old_events))
        )
        events = connection.execute(
            sa.delete(lineage_events)
            .where(lineage_events.c.received_at < before)
            .where(lineage_events.c.id.not_in(waiting))
        ).rowcount
        latest = sa.select(jobs.c.latest_run_uuid).where(jobs.c.latest_run_uuid.is_not(None))
        doomed_where = (runs.c.ended_at < before, runs.c.uuid.not_in(latest))
        doomed = sa.select(runs.c.uuid).where(*doomed_where)
        connection.execute(
            sa.insert(pruned_runs).from_select(
                ["run_uuid", "job_id", "state", "started_at", "ended_at", "pruned_at"],
                sa.select(
                    runs.c.uuid,
                    runs.c.job_id,
                    runs.c.current_state,
                    runs.c.started_at,
                    runs.c.ended_at,
                    sa.literal(datetime.now(UTC), pruned_runs.c.pruned_at.type),
                ).where(*doomed_where),
            )
        )
        current = sa.select(datasets.c.current_version_id).where(
            datasets.c.current_version_id.is_not(None)
        )
        read_by_kept = (
            sa.select(run_io.c.dataset_version_id)
            .join(runs, runs.c.id == run_io.c.run_id)
            .where(run_io.c.direction == "input", run_io.c.dataset_version_id.is_not(None))
            .where(sa.not_(sa.and_(*doomed_where)))
        )
        versions = connection.execute(
            sa.delete(dataset_versions)
            .where(dataset_versions.c.run_uuid.in_(doomed))
            .where(dataset_versions.c.id.not_in(current))
            .where(dataset_versions.c.id.not_in(read_by_kept))
        ).rowcount
        fold_history(connection, sa.select(runs.c.id).where(*doomed_where))
        batches = connection.execute(
            sa.delete(stream_batches).where(_ran_before(batches_before or before))
        ).rowcount
        batches += connection.execute(
            sa.select(sa.func.count())
            .select_from(stream_batches)
            .where(stream_batches.c.run_id.in_(sa.select(runs.c.id).where(*doomed_where)))
        ).scalar_one()  # they go with their runs
        pruned = connection.execute(sa.delete(runs).where(*doomed_where)).rowcount
        if dry_run:
            transaction.rollback()
    return {
        "lineage_events": events,
        "runs": pruned,
        "dataset_versions": versions,
        "stream_batches": batches,
    }


def _ran_before(cut_off: datetime) -> sa.ColumnElement[bool]:
    """A micro-batch that ran before ``cut_off`` (recorded before it, when its time is unknown)."""
    b = stream_batches.c
    return sa.or_(b.batch_time < cut_off, sa.and_(b.batch_time.is_(None), b.recorded_at < cut_off))
