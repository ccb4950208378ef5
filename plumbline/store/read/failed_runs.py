"""The latest failed runs of every job, newest first: what the UI's Overview shows first."""

from __future__ import annotations

from datetime import datetime
from typing import TypedDict

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import count, iso
from plumbline.store.read.records import NodeRef
from plumbline.store.read.runs import STORED_STATES, marquez_state, newest_first
from plumbline.store.read.visibility import VisibleTo, visible_jobs

#: Marquez states that count as a failure
FAILED_STATES = ("FAILED", "ABORTED")


class FailedRun(TypedDict):
    """A failed (or aborted) run, its job, and the job's latest run since (fixed or not)."""

    id: str
    state: str
    job: NodeRef
    startedAt: str | None
    endedAt: str | None
    errorMessage: str | None
    jobLatestRunId: str | None
    jobLatestRunState: str | None


class FailedRunPage(TypedDict):
    runs: list[FailedRun]
    totalCount: int


def failed_runs(
    conn: Connection, limit: int, offset: int = 0, visible_to: VisibleTo = None
) -> FailedRunPage:
    """Failed and aborted runs of visible, not hidden jobs, newest first by event time."""
    r, j, n = s.runs, s.jobs, s.namespaces
    latest = s.runs.alias("job_latest_run")
    stored = [state for state in STORED_STATES if marquez_state(state) in FAILED_STATES]
    base = (
        sa.select(r.c.id)
        .join(j, j.c.id == r.c.job_id)
        .join(n, n.c.id == j.c.namespace_id)
        .where(
            r.c.current_state.in_(stored),
            j.c.is_hidden == sa.false(),
            visible_jobs(n.c.name, visible_to),
        )
    )
    total = count(conn, base)
    rows = conn.execute(
        sa.select(
            r.c.uuid,
            r.c.current_state,
            n.c.name,
            j.c.name,
            r.c.started_at,
            r.c.ended_at,
            r.c.error_message,
            latest.c.uuid,
            latest.c.current_state,
        )
        .join(j, j.c.id == r.c.job_id)
        .join(n, n.c.id == j.c.namespace_id)
        .outerjoin(latest, latest.c.uuid == j.c.latest_run_uuid)
        .where(r.c.id.in_(base.order_by(*newest_first(r)).limit(limit).offset(offset)))
        .order_by(*newest_first(r))
    )
    return {"runs": [_failed_run(*row) for row in rows], "totalCount": total}


def _failed_run(
    uuid: str,
    state: str,
    namespace: str,
    name: str,
    started_at: datetime | None,
    ended_at: datetime | None,
    error: str | None,
    latest_uuid: str | None,
    latest_state: str | None,
) -> FailedRun:
    return {
        "id": str(uuid),
        "state": marquez_state(state),
        "job": {"namespace": namespace, "name": name},
        "startedAt": iso(started_at),
        "endedAt": iso(ended_at),
        "errorMessage": error,
        "jobLatestRunId": str(latest_uuid) if latest_uuid else None,
        "jobLatestRunState": marquez_state(latest_state) if latest_uuid else None,
    }
