"""``/failed-runs``: the latest failed and aborted runs of every job, newest first (the UI's
Overview shows them first). A namespace-limited token sees the runs of its namespaces only."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import Query
from pydantic import Field

from plumbline.server.api.models import JobId, Model, RunState
from plumbline.server.api.routing import Offset, ReadAccess, Reader, make_router
from plumbline.store.read import failed_runs as store

router = make_router("Jobs")

MAX_LIMIT = 100


class FailedRun(Model):
    """A failed or aborted run, its job, and the job's latest run (a later success fixed it)."""

    id: str
    state: Literal["FAILED", "ABORTED"]
    job: JobId
    startedAt: datetime | None
    endedAt: datetime | None
    errorMessage: str | None
    jobLatestRunId: str | None = Field(description="The job's latest run (this one, or a later)")
    jobLatestRunState: RunState | None


class FailedRunList(Model):
    runs: list[FailedRun]
    totalCount: int = Field(description="Failed and aborted runs in all pages")


@router.get(
    "/failed-runs",
    response_model=FailedRunList,
    summary="The latest failed and aborted runs of every job, newest first",
)
def list_failed_runs(
    *,
    conn: Reader,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="Runs listed")] = 10,
    offset: Offset = 0,
    principal: ReadAccess,
) -> store.FailedRunPage:
    return store.failed_runs(conn, limit, offset, principal.namespaces)
