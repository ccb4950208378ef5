"""``/jobs/runs/{id}`` and its facets (a run of a job a namespace-limited token may not see answers
404, as if missing), and ``/jobs/runs?idPrefix=…``: the runs whose id starts so (how the CLI
resolves a short run id; a limited token finds only the runs it may read), or ``?idSuffix=…``."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Query

from plumbline.server.api.models import Run, RunFacets, RunMatchList
from plumbline.server.api.routing import ReadAccess, Reader, make_router
from plumbline.store import InvalidArgumentError
from plumbline.store.read import records, runs

router = make_router("Jobs")


MAX_MATCHES = 100
IdPart = Annotated[
    str | None,
    Query(pattern=runs.RUN_ID_PART, description="4 to 36 characters of a run id (hex and -)"),
]


@router.get(
    "/jobs/runs",
    response_model=RunMatchList,
    summary="Find runs by the start or the end of their id",
    description="The runs whose id starts with `idPrefix`, or ends with `idSuffix` (exactly one; "
    "4 to 36 characters, any case), by id, at most `limit`, and how many match: one match is the "
    "run a short id names (the UI and the CLI show a run id's last 8 characters).",
)
def find_runs(
    *,
    idPrefix: IdPart = None,  # noqa: N803 - the API's camelCase
    idSuffix: IdPart = None,  # noqa: N803
    limit: Annotated[int, Query(ge=1, le=MAX_MATCHES, description="Runs listed")] = 10,
    conn: Reader,
    principal: ReadAccess,
) -> records.RunMatches:
    if (idPrefix is None) == (idSuffix is None):
        raise InvalidArgumentError("give exactly one of idPrefix and idSuffix")
    part = idPrefix if idPrefix is not None else idSuffix
    assert part is not None
    return runs.runs_with_part(
        conn, part, limit, at_end=idSuffix is not None, visible_to=principal.namespaces
    )


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
