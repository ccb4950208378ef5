"""``/jobs/runs/{id}`` and its facets (a run of a job a namespace-limited token may not see answers
404, as if missing)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Query

from plumbline.server.api.models import Run, RunFacets
from plumbline.server.api.routing import ReadAccess, Reader, make_router
from plumbline.store.read import records, runs

router = make_router("Jobs")


@router.get("/jobs/runs/{id}", response_model=Run, summary="Get a run")
def get_run(*, id: str, conn: Reader, principal: ReadAccess) -> records.Run:  # noqa: A002 - Marquez's name
    return runs.get_run(conn, id, principal.namespaces)


@router.get(
    "/jobs/runs/{id}/facets",
    response_model=RunFacets,
    summary="Get the run facets (type=run) or the job facets (type=job) of a run",
)
def get_run_facets(
    *,
    id: str,  # noqa: A002
    conn: Reader,
    type: Annotated[Literal["run", "job"], Query(description="run or job facets")] = "run",  # noqa: A002
    principal: ReadAccess,
) -> records.RunFacets:
    return runs.get_run_facets(conn, id, type, principal.namespaces)
