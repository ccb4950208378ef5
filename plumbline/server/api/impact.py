"""``GET /impact``: what lies downstream (or upstream) of a dataset, a job or a field, by distance.

A thin face over :func:`plumbline.analysis.impact.impact`. A namespace-limited token's walk covers
everything; the answer lists only what it may read and counts the rest (``hiddenNodes``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import Depends, Query
from fastapi.responses import Response

from plumbline.analysis.csvout import impact_csv
from plumbline.analysis.impact import MAX_DEPTH, impact
from plumbline.server.api.analysis_models import Impact
from plumbline.server.api.lineage import GraphResponse
from plumbline.server.api.routing import (
    MAX_NAMESPACES,
    Namespace,
    ReadAccess,
    Reader,
    Timestamp,
    WorkRows,
    make_router,
    max_graph_nodes,
    node_id_pattern,
)
from plumbline.server.read_budget import AnalysisMemory
from plumbline.store import gc_paused, utc, work_budget

router = make_router("Analysis")

Format = Annotated[
    Literal["json", "csv"], Query(description="json, or csv: a header row, then one row per node")
]
CSV_DOC = {"text/csv": {"schema": {"type": "string"}}}


def csv_response(text: str) -> Response:
    return Response(text, media_type="text/csv; charset=utf-8")


@router.get(
    "/impact",
    dependencies=[AnalysisMemory],
    response_model=Impact,
    summary="What a dataset, job or field feeds (downstream) or comes from (upstream)",
    description="Nodes by distance (edges from the start), each with one shortest path, a job's "
    "last run and a dataset's current version; from a field, the fields along column lineage with "
    f"their transformations. `depth` defaults to the cap, {MAX_DEPTH}; above it: 400.",
    responses={200: {"content": CSV_DOC}},
)
def get_impact(
    *,
    conn: Reader,
    nodeId: Annotated[
        str,
        Query(
            pattern=node_id_pattern("dataset", "job", "datasetField"),
            description="dataset:NS:NAME, job:NS:NAME or datasetField:NS:NAME:FIELD",
        ),
    ],
    direction: Annotated[
        Literal["downstream", "upstream"], Query(description="downstream (impact) or upstream")
    ] = "downstream",
    depth: Annotated[
        int | None,
        Query(ge=0, le=MAX_DEPTH, description=f"Edges to walk (default and at most {MAX_DEPTH})"),
    ] = None,
    namespace: Annotated[
        list[Namespace] | None,
        Query(
            max_length=MAX_NAMESPACES,
            description="List only nodes of these namespaces (repeatable)",
        ),
    ] = None,
    type: Annotated[  # noqa: A002 - the query parameter's name
        list[Literal["DATASET", "JOB", "DATASET_FIELD"]] | None,
        Query(description="List only nodes of these types (repeatable)"),
    ] = None,
    since: Annotated[
        Timestamp | None, Query(description="Walk only edges seen at or after this time")
    ] = None,
    minConfidence: Annotated[
        Literal["partial", "complete"] | None,
        Query(
            description="Walk only edges at least this complete (inferred < partial < complete): "
            "keeps only such paths"
        ),
    ] = None,
    format: Format = "json",  # noqa: A002
    cap: Annotated[int, Depends(max_graph_nodes)],
    rows: WorkRows,
    principal: ReadAccess,
) -> Response:
    with gc_paused(), work_budget(rows) as work:
        result = impact(
            conn,
            nodeId,
            direction=direction,
            depth=depth,
            max_nodes=cap,
            namespaces=namespace,
            types=type,
            since=utc(since),
            min_confidence=minConfidence,
            visible_to=principal.namespaces,
        )
        if format == "csv":
            return csv_response(impact_csv(result))
        return GraphResponse(work.mark(result.to_json()))
