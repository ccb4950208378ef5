"""Runs ``db prune`` removed, as the analyses name them where the history they need is gone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from plumbline.store import iso
from plumbline.store.read.pruned import PrunedRunRow, pruned_runs, pruned_runs_of_job
from plumbline.store.read.runs import marquez_state


@dataclass(frozen=True)
class PrunedRun:
    """A run that is no longer stored: which one, of which job, and when it was pruned."""

    id: str
    namespace: str
    job: str
    state: str  # Marquez's names: COMPLETED, FAILED, …
    ended_at: datetime | None
    pruned_at: datetime

    @classmethod
    def of(cls, row: PrunedRunRow) -> PrunedRun:
        return cls(
            row.run_uuid, row.namespace, row.job, marquez_state(row.state), row.ended_at,
            row.pruned_at,
        )  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "job": {"namespace": self.namespace, "name": self.job},
            "state": self.state,
            "endedAt": iso(self.ended_at),
            "prunedAt": iso(self.pruned_at),
        }


def pruned_run(conn: Connection, run_uuid: str) -> PrunedRun | None:
    """The run ``run_uuid`` if ``db prune`` removed it."""
    found = pruned_runs(conn, [run_uuid]).get(run_uuid.lower())
    return PrunedRun.of(found) if found is not None else None


def pruned_by_id(conn: Connection, run_uuids: list[str]) -> dict[str, PrunedRun]:
    """Those of ``run_uuids`` that ``db prune`` removed."""
    return {k: PrunedRun.of(v) for k, v in pruned_runs(conn, run_uuids).items()}


def pruned_complete_runs(
    conn: Connection, job_id: int, after: datetime | None, before: datetime | None
) -> list[PrunedRun]:
    """The job's COMPLETE runs pruned that ended between ``after`` and ``before``."""
    return [PrunedRun.of(row) for row in pruned_runs_of_job(conn, job_id, after, before)]
