"""Pruning the per-run facts that grow with use: raw events and finished runs older than a date.

Lineage itself (datasets, jobs, fields, edges) is never pruned, nor is a raw event still waiting
for normalization (one that failed goes, with its failure). A run is kept while it is its job's
latest run; the dataset versions a pruned run wrote go with it unless a dataset still points at
them as its current version.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from plumbline.store.schema import (
    dataset_versions,
    datasets,
    jobs,
    lineage_events,
    pending_events,
    runs,
)


def prune(engine: Engine, before: datetime, *, dry_run: bool = False) -> dict[str, int]:
    """Delete raw events received before ``before`` and runs that ended before it.

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
        doomed = (
            sa.select(runs.c.uuid).where(runs.c.ended_at < before).where(runs.c.uuid.not_in(latest))
        )
        current = sa.select(datasets.c.current_version_id).where(
            datasets.c.current_version_id.is_not(None)
        )
        versions = connection.execute(
            sa.delete(dataset_versions)
            .where(dataset_versions.c.run_uuid.in_(doomed))
            .where(dataset_versions.c.id.not_in(current))
        ).rowcount
        pruned_runs = connection.execute(
            sa.delete(runs).where(runs.c.ended_at < before).where(runs.c.uuid.not_in(latest))
        ).rowcount
        if dry_run:
            transaction.rollback()
    return {"lineage_events": events, "runs": pruned_runs, "dataset_versions": versions}
