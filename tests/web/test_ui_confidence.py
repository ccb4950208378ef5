"""Edges drawn by confidence (issue 31 §2), in headless Chromium on a live server: complete solid,
partial dashed, inferred dotted, each with its reasons in the edge's tooltip, in table and column
mode."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from .ui_server import UiServer, serving

pytestmark = pytest.mark.browser

CAPTURE = "https://github.com/plumbline/plumbline/tree/0.1.0/plumbline/spark"
DBT = "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/integration/dbt"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
UDF = "pythonUdf: score (inputs assumed from its arguments)"


def _facet(producer: str, **fields: Any) -> dict[str, Any]:
    return {"_producer": producer, "_schemaURL": "https://example.com/facet.json", **fields}


def _run(job: str, source: str, target: str, minute: int, producer: str, **facets: Any) -> dict:
    lineage = _facet(
        producer,
        fields={
            "v": {
                "inputFields": [
                    {
                        "namespace": "conf",
                        "name": source,
                        "field": "v",
                        "transformations": [{"type": "DIRECT", "subtype": "TRANSFORMATION"}],
                    }
                ]
            }
        },
    )
    schema = _facet(producer, fields=[{"name": "v", "type": "double"}])
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-01-01T00:{minute:02d}:00Z",
        "run": {"runId": str(uuid.uuid4()), "facets": facets},
        "job": {"namespace": "conf", "name": job},
        "inputs": [{"namespace": "conf", "name": source, "facets": {"schema": schema}}],
        "outputs": [
            {
                "namespace": "conf",
                "name": target,
                "facets": {"schema": schema, "columnLineage": lineage},
            }
        ],
        "producer": producer,
        "schemaURL": RUN_EVENT,
    }


def _events() -> list[dict[str, Any]]:
    complete = _facet(CAPTURE, completeness="complete", reasons=[])
    partial = _facet(CAPTURE, completeness="partial", reasons=[UDF])
    return [
        _run("clean", "raw", "clean", 1, CAPTURE, plumbline_completeness=complete),
        _run("score", "clean", "scored", 2, CAPTURE, plumbline_completeness=partial),
        _run("model", "scored", "mart", 3, DBT),
    ]


@pytest.fixture(scope="module")
def confident(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    yield from serving(tmp_path_factory, "ui-confidence", _events())


def _edge(page: Any, origin: str, destination: str) -> dict[str, Any]:
    """An edge's completeness, its dash pattern as drawn, and its tooltip."""
    selector = f'svg.graph path.edge[data-from="{origin}"][data-to="{destination}"]'
    return page.eval_on_selector(
        selector,
        """p => ({completeness: p.dataset.completeness,
                  dashes: getComputedStyle(p).strokeDasharray,
                  title: (p.querySelector('title') || {}).textContent})""",
    )


def test_table_edges_are_drawn_by_confidence(page: Any, confident: UiServer) -> None:
    page.goto(f"{confident.url}/lineage?node={quote('dataset:conf:scored', safe='')}&depth=3")
    page.wait_for_selector('svg.graph[data-nodes="7"]')
    complete = _edge(page, "job:conf:clean", "dataset:conf:clean")
    partial = _edge(page, "job:conf:score", "dataset:conf:scored")
    inferred = _edge(page, "job:conf:model", "dataset:conf:mart")
    assert [e["completeness"] for e in (complete, partial, inferred)] == [
        "complete",
        "partial",
        "inferred",
    ]
    # solid, dashed, dotted: three different strokes
    assert complete["dashes"] == "none"
    assert len({complete["dashes"], partial["dashes"], inferred["dashes"]}) == 3
    assert partial["title"].splitlines() == [
        "partial · from capture",
        UDF,
        "last seen 2026-01-01T00:02:00Z",
    ]
    assert inferred["title"].splitlines()[:2] == [
        "inferred · from producer:dbt",
        "unattested: producer:dbt does not state how complete its lineage is",
    ]
    # hovering the edge's job highlights it (the tooltip is the edge's own title)
    page.hover('svg.graph .node[data-id="job:conf:score"]')
    selector = 'svg.graph path.edge[data-from="job:conf:score"][data-to="dataset:conf:scored"]'
    assert "hover" in page.get_attribute(selector, "class").split()
    legend = page.eval_on_selector_all(".legend .lg-conf", "els => els.map(e => e.textContent)")
    assert legend == ["Complete", "Partial", "Inferred"]


def test_column_edges_are_drawn_by_confidence(page: Any, confident: UiServer) -> None:
    field = "datasetField:conf:{}:v".format
    edge = f'svg.graph path.edge[data-from="{field("clean")}"][data-to="{field("scored")}"]'
    page.goto(f"{confident.url}/lineage?node={quote('dataset:conf:scored', safe='')}&column=v")
    page.wait_for_selector(edge, state="attached")
    partial = _edge(page, field("clean"), field("scored"))
    assert partial["completeness"] == "partial" and UDF in partial["title"].splitlines()
    assert partial["dashes"] != "none"
    edge = f'svg.graph path.edge[data-from="{field("scored")}"][data-to="{field("mart")}"]'
    page.goto(f"{confident.url}/lineage?node={quote('dataset:conf:mart', safe='')}&column=v")
    page.wait_for_selector(edge, state="attached")
    assert _edge(page, field("scored"), field("mart"))["completeness"] == "inferred"
