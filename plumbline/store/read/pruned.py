"""What ``db prune`` left of the runs it removed (``pruned_runs``): which run, of which job, in
which state, and when it was pruned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import utc


@dataclass(frozen=True)
class PrunedRunRow:
    """A run removed by ``db prune``."""

    run_uuid: str
    namespace: str
    job: str
    state: str | None
    started_at: datetime | None
    ended_at: datetime | None
    pruned_at: datetime


def _rows() -> sa.Select[tuple[object, ...]]:
    p, j, n = s.pruned_runs, s.jobs, s.namespaces
    return (
        sa.select(
            p.c.run_uuid,
            n.c.name.label("namespace"),
            j.c.name.label("job"),
            p.c.state,
            p.c.started_at,
            p.c.ended_at,
            p.c.pruned_at,
        )
        .join(j, j.c.id == p.c.job_id)
        .join(n, n.c.id == j.c.namespace_id)
    )


def _row(row: sa.Row[tuple[object, ...]]) -> PrunedRunRow:
    m = row._mapping
    pruned_at = utc(m["pruned_at"])
    assert pruned_at is not None  # NOT NULL
    return PrunedRunRow(
        run_uuid=str(m["run_uuid"]),
        namespace=str(m["namespace"]),
        job=str(m["job"]),
        state=m["state"],
        started_at=utc(m["started_at"]),
        ended_at=utc(m["ended_at"]),
        pruned_at=pruned_at,
    )


def pruned_runs(conn: Connection, run_uuids: Sequence[str]) -> dict[str, PrunedRunRow]:
    """The pruned runs among ``run_uuids``, by uuid."""
    wanted = sorted({u.lower() for u in run_uuids if u})
    if not wanted:
        return {}
    rows = conn.execute(_rows().where(s.pruned_runs.c.run_uuid.in_(wanted)))
    return {found.run_uuid: found for found in map(_row, rows)}


def pruned_runs_of_job(
    conn: Connection,
    job_id: int,
    after: datetime | None,
    before: datetime | None,
    state: str = "COMPLETE",
) -> list[PrunedRunRow]:
    """A job's pruned runs in ``state`` that ended in ``(after, before)``, newest first."""
    p = s.pruned_runs
    query = _rows().where(p.c.job_id == job_id, p.c.state == state)
    if after is not None:
        query = query.where(p.c.ended_at > after)
    if before is not None:
        query = query.where(p.c.ended_at < before)
    return [_row(row) for row in conn.execute(query.order_by(p.c.ended_at.desc()))]
