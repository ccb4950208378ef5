"""What ``db prune`` left of the runs it removed (``pruned_runs``): which run, of which job, in
which state, and when it was pruned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import utc
from plumbline.store.read.idlist import in_ids


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


_COLUMNS = (
    s.pruned_runs.c.run_uuid,
    s.pruned_runs.c.job_id,
    s.pruned_runs.c.state,
    s.pruned_runs.c.started_at,
    s.pruned_runs.c.ended_at,
    s.pruned_runs.c.pruned_at,
)
_JOB_NAMES = (
    sa.select(s.jobs.c.id, s.namespaces.c.name, s.jobs.c.name)
    .join(s.namespaces, s.namespaces.c.id == s.jobs.c.namespace_id)
    .where(in_ids(s.jobs.c.id))
)


def _named(conn: Connection, rows: list[sa.Row[Any]]) -> list[PrunedRunRow]:
    """The rows with their jobs' names (looked up only when there are rows: the usual answer is
    none, and a join would make the planner read the jobs first)."""
    if not rows:
        return []
    ids = sorted({row.job_id for row in rows})
    names = {pk: (ns, name) for pk, ns, name in conn.execute(_JOB_NAMES, {"ids": ids})}
    out = []
    for row in rows:
        pruned_at = utc(row.pruned_at)
        assert pruned_at is not None  # NOT NULL
        namespace, job = names[row.job_id]
        out.append(
            PrunedRunRow(
                run_uuid=row.run_uuid,
                namespace=namespace,
                job=job,
                state=row.state,
                started_at=utc(row.started_at),
                ended_at=utc(row.ended_at),
                pruned_at=pruned_at,
            )
        )
    return out


def pruned_runs(conn: Connection, run_uuids: Sequence[str]) -> dict[str, PrunedRunRow]:
    """The pruned runs among ``run_uuids``, by uuid."""
    wanted = sorted({u.lower() for u in run_uuids if u})
    if not wanted:
        return {}
    query = sa.select(*_COLUMNS).where(s.pruned_runs.c.run_uuid.in_(wanted))
    return {row.run_uuid: row for row in _named(conn, list(conn.execute(query)))}


def pruned_runs_of_job(
    conn: Connection,
    job_id: int,
    after: datetime | None,
    before: datetime | None,
    state: str = "COMPLETE",
) -> list[PrunedRunRow]:
    """A job's pruned runs in ``state`` that ended in ``(after, before)``, newest first."""
    p = s.pruned_runs
    query = sa.select(*_COLUMNS).where(p.c.job_id == job_id, p.c.state == state)
    if after is not None:
        query = query.where(p.c.ended_at > after)
    if before is not None:
        query = query.where(p.c.ended_at < before)
    return _named(conn, list(conn.execute(query.order_by(p.c.ended_at.desc()))))
