"""Every analysis route has a work budget (issue 28 item 5), over real HTTP on both stores: past
the rows one answer may read (``max_analysis_rows``) the answer is cut and says so
(``truncated`` true, ``truncatedReason`` ``"work budget"``); within it the answer is whole, says
so (``truncatedReason`` null) and is the one the analysis gives outside any budget (the code
path before budgets), field for field.

The graph: job ``src`` writes ``in0``; job ``wide`` reads 120 datasets (``in0`` and others) (a schema and column lineage from each) and writes
``mid``, twice (two runs to diff); job ``down`` reads ``mid`` and writes ``out``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import Connection

from plumbline.analysis.impact import impact
from plumbline.analysis.rerun import rerun_plan
from plumbline.analysis.root_cause import root_cause, run_of_node
from plumbline.analysis.run_diff import diff_runs
from plumbline.analysis.version_lineage import version_lineage
from plumbline.server.config import ConfigError, build_settings
from plumbline.store.read import column_lineage, lineage, run_lineage
from plumbline.store.read.work_budget import DEFAULT_MAX_ANALYSIS_ROWS

PRODUCER = "https://example.com/producer"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
SCHEMA = "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json"
COLUMNS = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"
WIDTH = 120
BUDGET = 40  # rows: each route below reads more than this from the wide job's 120 inputs


def _facet(url: str, **fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": url, **fields}


def _event(run: str, job: str, day: int, inputs: list[str], output: str) -> dict[str, Any]:
    schema = _facet(SCHEMA, fields=[{"name": "c", "type": "int"}])
    lineage_of = {
        "c": {"inputFields": [{"namespace": "lake", "name": i, "field": "c"} for i in inputs]}
    }
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-01-0{day}T00:00:00Z",
        "run": {"runId": run},
        "job": {"namespace": "team", "name": job},
        "inputs": [{"namespace": "lake", "name": i, "facets": {"schema": schema}} for i in inputs],
        "outputs": [
            {
                "namespace": "lake",
                "name": output,
                "facets": {"schema": schema, "columnLineage": _facet(COLUMNS, fields=lineage_of)},
            }
        ],
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT,
    }


def _plain(document: Any) -> Any:
    """A document as its JSON answer reads (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(document, default=str))


def test_every_analysis_route_answers_within_its_work_budget_and_says_so(
    make_server: Any,
) -> None:
    full = make_server()
    inputs = [f"in{i}" for i in range(WIDTH)]
    wide = [str(uuid.uuid4()), str(uuid.uuid4())]
    down = str(uuid.uuid4())
    events = [
        [_event(str(uuid.uuid4()), "src", 1, [], "in0")],
        [_event(wide[0], "wide", 2, inputs, "mid")],
        [_event(wide[1], "wide", 3, inputs, "mid")],
        [_event(down, "down", 4, ["mid"], "out")],
    ]
    with httpx.Client(base_url=full.url + "/api/v1", timeout=120) as client:
        for batch in events:
            assert client.post("/lineage", json=batch).status_code == 201
        in0 = client.get("/namespaces/lake/datasets/in0/versions").json()["versions"][0]
        out = client.get("/namespaces/lake/datasets/out/versions").json()["versions"][0]

    # route -> (params, the analysis outside any budget: what the route answered before budgets)
    routes: dict[str, tuple[dict[str, str], Callable[[Connection], Any]]] = {
        "/lineage": (
            {"nodeId": "job:team:wide", "depth": "1"},
            lambda c: lineage.get_lineage(c, "job:team:wide", 1, 2000),
        ),
        "/column-lineage": (
            {"nodeId": "dataset:lake:mid"},
            lambda c: column_lineage.get_column_lineage(
                c, "dataset:lake:mid", column_lineage.DEFAULT_DEPTH, False, 2000
            ),
        ),
        "/runlineage/upstream": (
            {"runId": down},
            lambda c: run_lineage.get_upstream_runs(c, down, lineage.DEFAULT_DEPTH, 2000),
        ),
        "/impact": (
            {"nodeId": "dataset:lake:in0"},
            lambda c: impact(c, "dataset:lake:in0", max_nodes=2000).to_json(),
        ),
        "/rerun-plan": (
            {"nodeId": "dataset:lake:in0", "version": in0["version"]},
            lambda c: rerun_plan(c, node_id="dataset:lake:in0", version=in0["version"]).to_json(),
        ),
        f"/jobs/runs/{wide[1]}/diff": ({}, lambda c: diff_runs(c, wide[1]).to_json()),
        "/diff": ({"nodeId": "job:team:wide"}, lambda c: diff_runs(c, wide[1]).to_json()),
        f"/jobs/runs/{down}/root-cause": ({}, lambda c: root_cause(c, down).to_json()),
        "/root-cause": (
            {"nodeId": "dataset:lake:out"},
            lambda c: root_cause(
                c, run_of_node(c, "dataset:lake:out", failed=True), max_nodes=2000
            ).to_json(),
        ),
        f"/namespaces/lake/datasets/out/versions/{out['version']}/lineage": (
            {},
            lambda c: version_lineage(c, "lake", "out", out["version"]).to_json(),
        ),
    }
    cut = make_server(max_analysis_rows=BUDGET)
    store = full.app.state.store
    with (
        httpx.Client(base_url=full.url + "/api/v1", timeout=120) as whole,
        httpx.Client(base_url=cut.url + "/api/v1", timeout=120) as budgeted,
    ):
        for path, (params, before) in routes.items():
            answer = whole.get(path, params=params)
            assert answer.status_code == 200, (path, answer.text)
            body = answer.json()
            assert (body["truncated"], body["truncatedReason"]) == (False, None), path
            with store.reading() as conn:
                expected = _plain(before(conn))
            expected.setdefault("truncated", False)
            expected["truncatedReason"] = None
            assert body == expected, path

            answer = budgeted.get(path, params=params)
            assert answer.status_code == 200, (path, answer.text)
            body = answer.json()
            assert (body["truncated"], body["truncatedReason"]) == (True, "work budget"), path
            assert body != expected, path  # cut: less than the whole answer

    # the CLI says which bound cut the answer
    for command in (
        ["impact", "dataset:lake:in0"],
        ["diff", wide[1]],
        ["root-cause", down],
        ["rerun-plan", "dataset:lake:in0", "--version", in0["version"]],
    ):
        shown = subprocess.run(
            [sys.executable, "-m", "plumbline", *command, "--url", cut.url],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert shown.returncode == 0, (command, shown.stderr)
        assert "the analysis reached the server's work budget" in shown.stdout, command


def test_the_work_budget_is_a_config_file_setting(tmp_path: Path) -> None:
    config = tmp_path / "plumbline.toml"
    config.write_text("max_analysis_rows = 40\n")
    settings = build_settings(db_url="sqlite:///x.db", config_file=config)
    assert settings.max_analysis_rows == 40
    assert build_settings(db_url="sqlite:///x.db").max_analysis_rows == DEFAULT_MAX_ANALYSIS_ROWS
    config.write_text("max_analysis_rows = 0\n")
    with pytest.raises(ConfigError, match="max_analysis_rows must be from 1 to 100000000, not 0"):
        build_settings(db_url="sqlite:///x.db", config_file=config)
