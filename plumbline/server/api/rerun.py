"""``GET /rerun-plan``: the downstream runs to redo after a bad dataset version, in order.

A thin face over :func:`plumbline.analysis.rerun.rerun_plan`. A namespace-limited token gets the
steps of the jobs it may read and the count of the others (``hiddenSteps``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Query
from fastapi.responses import Response

from plumbline.analysis.csvout import rerun_csv
from plumbline.analysis.rerun import rerun_plan
from plumbline.server.api.analysis_models import RerunPlan
from plumbline.server.api.impact import CSV_DOC, csv_response
from plumbline.server.api.lineage import GraphResponse
from plumbline.server.api.routing import (
    ReadAccess,
    Reader,
    Timestamp,
    WorkRows,
    make_router,
    node_id_pattern,
)
from plumbline.server.read_budget import AnalysisMemory
from plumbline.store import gc_paused, utc, work_budget

router = make_router("Analysis")


@router.get(
    "/rerun-plan",
    dependencies=[AnalysisMemory],
    response_model=RerunPlan,
    summary="The downstream runs to redo after a bad dataset version, in order",
    description="Give `nodeId=dataset:NS:NAME` with `version` or `since`, `nodeId=job:NS:NAME` "
    "with `since` (the versions its runs wrote), or `runId` (the versions that run wrote). Steps "
    "are jobs in topological order, each with the runs that read an affected version.",
    responses={200: {"content": CSV_DOC}},
)
def get_rerun_plan(
    *,
    conn: Reader,
    nodeId: Annotated[
        str | None,
        Query(
            pattern=node_id_pattern("dataset", "job"),
            description="dataset:NS:NAME, or job:NS:NAME with since",
        ),
    ] = None,
    since: Annotated[
        Timestamp | None, Query(description="The versions made at or after this time are bad")
    ] = None,
    version: Annotated[str | None, Query(description="This version of the dataset is bad")] = None,
    runId: Annotated[str | None, Query(description="The versions this run wrote are bad")] = None,
    format: Annotated[  # noqa: A002
        Literal["json", "csv"], Query(description="json, or csv: one row per step")
    ] = "json",
    rows: WorkRows,
    principal: ReadAccess,
) -> Response:
    with gc_paused(), work_budget(rows) as work:
        plan = rerun_plan(
            conn,
            node_id=nodeId,
            since=utc(since),
            version=version,
            run_id=runId,
            visible_to=principal.namespaces,
        )
        if format == "csv":
            return csv_response(rerun_csv(plan))
        return GraphResponse(work.mark(plan.to_json()))
