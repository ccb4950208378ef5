"""Run diff, root cause and version lineage: thin faces over :mod:`plumbline.analysis`.

- ``GET /jobs/runs/{id}/diff[?against=RUN_ID]`` and ``GET /diff?nodeId=job:NS:NAME`` (the job's
  latest run);
- ``GET /jobs/runs/{id}/root-cause`` and ``GET /root-cause?nodeId=job:…|dataset:…`` (a job's last
  failed run; the run that wrote a dataset's current version);
- ``GET /namespaces/{namespace}/datasets/{dataset}/versions/{version}/lineage``.

Unknown runs, versions or nodes answer 404 naming them (a pruned run: when it was pruned); a
malformed node id or a depth above the cap, 400.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Depends, Query
from sqlalchemy.engine import Connection

from plumbline.analysis.impact import MAX_DEPTH
from plumbline.analysis.root_cause import root_cause, run_of_node
from plumbline.analysis.run_diff import diff_runs
from plumbline.analysis.version_lineage import version_lineage
from plumbline.server.api.lineage import GraphResponse
from plumbline.server.api.routing import (
    ReadAccess,
    Reader,
    WorkRows,
    make_router,
    max_graph_nodes,
    node_id_pattern,
)
from plumbline.server.api.run_analysis_models import RootCause, RunDiff, VersionLineage
from plumbline.server.auth import Principal
from plumbline.server.read_budget import AnalysisMemory
from plumbline.store import gc_paused, work_budget

router = make_router("Analysis")

Depth = Annotated[
    int | None,
    Query(ge=0, le=MAX_DEPTH, description=f"Runs to walk (default and at most {MAX_DEPTH})"),
]
Cap = Annotated[int, Depends(max_graph_nodes)]


@router.get(
    "/jobs/runs/{id}/diff",
    dependencies=[AnalysisMemory],
    response_model=RunDiff,
    summary="What changed between a run and the job's last COMPLETE run before it",
    description="Inputs added and removed; each input's and output's version, schema changes and "
    "row/byte/file counts before and after; the job's version (source code, SQL, Spark version, "
    "job facets); run facets that changed; duration; column lineage edges added or removed; the "
    "run's error; `suspects`: what most likely made the difference, first.",
)
def get_run_diff(
    *,
    id: str,  # noqa: A002 - Marquez's name for a run's id
    against: Annotated[
        str | None, Query(description="Compare with this run of the same job instead")
    ] = None,
    conn: Reader,
    rows: WorkRows,
    principal: ReadAccess,
) -> GraphResponse:
    with work_budget(rows) as work:
        return GraphResponse(
            work.mark(diff_runs(conn, id, against, principal.namespaces).to_json())
        )


@router.get(
    "/diff",
    dependencies=[AnalysisMemory],
    response_model=RunDiff,
    summary="The diff of a job's latest run against its last COMPLETE run before it",
)
def get_job_diff(
    *,
    nodeId: Annotated[str, Query(pattern=node_id_pattern("job"), description="job:NS:NAME")],
    conn: Reader,
    rows: WorkRows,
    principal: ReadAccess,
) -> GraphResponse:
    run = run_of_node(conn, nodeId, failed=False, visible_to=principal.namespaces, jobs_only=True)
    with work_budget(rows) as work:
        return GraphResponse(work.mark(diff_runs(conn, run, None, principal.namespaces).to_json()))


@router.get(
    "/jobs/runs/{id}/root-cause",
    dependencies=[AnalysisMemory],
    response_model=RootCause,
    summary="The upstream runs that produced the versions a run read, with their states and changes",
    description="The walk of `/runlineage/upstream` (run -> the exact versions it read -> the runs "
    "that wrote them), each run with its state and what changed in it against its job's last "
    "COMPLETE run; suspects (failed, or whose job, inputs or output schemas changed) first.",
)
def get_root_cause(
    *,
    id: str,  # noqa: A002
    depth: Depth = None,
    conn: Reader,
    cap: Cap,
    rows: WorkRows,
    principal: ReadAccess,
) -> GraphResponse:
    return _root_cause(conn, id, depth, cap, rows, principal)


@router.get(
    "/root-cause",
    dependencies=[AnalysisMemory],
    response_model=RootCause,
    summary="Root cause of a job's last failed run, or of the run that wrote a dataset's version",
)
def get_node_root_cause(
    *,
    nodeId: Annotated[
        str,
        Query(
            pattern=node_id_pattern("job", "dataset"), description="job:NS:NAME or dataset:NS:NAME"
        ),
    ],
    depth: Depth = None,
    conn: Reader,
    cap: Cap,
    rows: WorkRows,
    principal: ReadAccess,
) -> GraphResponse:
    run = run_of_node(conn, nodeId, failed=True, visible_to=principal.namespaces)
    return _root_cause(conn, run, depth, cap, rows, principal)


def _root_cause(
    conn: Connection, run_id: str, depth: int | None, cap: int, rows: int, principal: Principal
) -> GraphResponse:
    with gc_paused(), work_budget(rows) as work:
        result = root_cause(
            conn, run_id, depth=depth, max_nodes=cap, visible_to=principal.namespaces
        )
        return GraphResponse(work.mark(result.to_json()))


@router.get(
    "/namespaces/{namespace}/datasets/{dataset}/versions/{version}/lineage",
    dependencies=[AnalysisMemory],
    response_model=VersionLineage,
    summary="The exact versions a version was made from (upstream) or that were made from it",
)
def get_version_lineage(
    *,
    namespace: str,
    dataset: str,
    version: str,
    direction: Annotated[
        Literal["upstream", "downstream"],
        Query(description="upstream: made from; downstream: used by"),
    ] = "upstream",
    depth: Depth = None,
    conn: Reader,
    cap: Cap,
    rows: WorkRows,
    principal: ReadAccess,
) -> GraphResponse:
    with gc_paused(), work_budget(rows) as work:
        result = version_lineage(
            conn,
            namespace,
            dataset,
            version,
            direction=direction,
            depth=depth,
            max_nodes=cap,
            visible_to=principal.namespaces,
        )
        return GraphResponse(work.mark(result.to_json()))
