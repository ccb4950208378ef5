"""``POST /expectations/check``: the rules of an expectations file, as JSON, checked against the
lineage; ``GET /expectations/baseline``: a namespace's lineage per job, for baselines and starter
files (issue 31 §1). A thin face over :func:`plumbline.expectations.evaluate.check`; read
scope; the body is bounded (:data:`MAX_EXPECTATIONS_BYTES`, :data:`~plumbline.expectations.rules.MAX_RULES`)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from plumbline.expectations.baseline import take
from plumbline.expectations.evaluate import BROKEN, HOLDS, UNDECIDED, UNKNOWN, check
from plumbline.expectations.rules import ExpectationsError, parse_mapping
from plumbline.server.api.expectation_models import Baseline, Expectations, ExpectationsCheck
from plumbline.server.api.lineage import GraphResponse
from plumbline.server.api.routing import (
    PREFIX,
    Namespace,
    ReadAccess,
    Reader,
    ReadRoute,
    Timestamp,
    WorkRows,
    max_graph_nodes,
)
from plumbline.server.body_limit import MAX_REQUEST_BYTES
from plumbline.server.errors import APIError, ErrorBody
from plumbline.server.read_budget import AnalysisMemory
from plumbline.store import gc_paused, utc, work_budget
from plumbline.store.read import namespaces

MAX_EXPECTATIONS_BYTES = MAX_REQUEST_BYTES  # bounded at the door, as every body but ingestion's


router = APIRouter(prefix=PREFIX, tags=["Analysis"], route_class=ReadRoute)


@router.post(
    "/expectations/check",
    dependencies=[AnalysisMemory],
    response_model=ExpectationsCheck,
    summary="Check expectations (edges that must or must never exist, freshness) against lineage",
    description="The rules of an expectations file as JSON (`plumbline check --expect` sends its "
    "file this way). Each rule's outcome: holds, broken, unknown (names something the server does "
    "not know: a failure) or undecided (the walk was cut: node cap, work budget, or nodes the "
    f"token may not read). At most {MAX_EXPECTATIONS_BYTES} bytes; a malformed rule is 400 naming it.",
)
def check_expectations(
    *,
    body: Expectations,
    conn: Reader,
    cap: Annotated[int, Depends(max_graph_nodes)],
    rows: WorkRows,
    principal: ReadAccess,
) -> Response:
    try:
        rules = parse_mapping(body.model_dump(by_alias=True, exclude_none=True))
    except ExpectationsError as exc:
        raise APIError(400, str(exc)) from None
    with gc_paused(), work_budget(rows) as work:
        outcomes = check(conn, rules, max_nodes=cap, visible_to=principal.namespaces)
    statuses = [o.status for o in outcomes]
    answer = {
        "outcomes": [o.to_json() for o in outcomes],
        "holds": statuses.count(HOLDS),
        "broken": statuses.count(BROKEN) + statuses.count(UNKNOWN),
        "undecided": statuses.count(UNDECIDED),
        "declared": len(rules.declare),
        "truncated": False,
    }
    return GraphResponse(work.mark(answer))


@router.get(
    "/expectations/baseline",
    dependencies=[AnalysisMemory],
    response_model=Baseline,
    responses={
        404: {"model": ErrorBody, "description": "the namespace does not exist (or is not visible)"}
    },
    summary="A namespace's lineage per job (plumbline baseline save, plumbline expect init)",
    description="Each job of `namespace` with the datasets it reads and writes and the column edges "
    "into what it writes, with their transformations. Within the analysis work budget: a cut "
    "answer says `truncated` (the CLI refuses to save it).",
)
def get_baseline(
    *,
    conn: Reader,
    namespace: Annotated[Namespace, Query(description="The namespace whose jobs to list")],
    since: Annotated[
        Timestamp | None,
        Query(description="Only edges seen at or after this time (column edges: to the hour)"),
    ] = None,
    rows: WorkRows,
    principal: ReadAccess,
) -> Response:
    principal.check_namespace(namespace)
    namespaces.get_namespace(conn, namespace, principal.namespaces)  # 404 for an unknown one
    with gc_paused(), work_budget(rows) as work:
        answer = take(conn, namespace, since=utc(since), visible_to=principal.namespaces).to_json()
    answer["truncated"] = False
    return GraphResponse(work.mark(answer))
