"""``GET /api/v1/impact`` and ``plumbline impact`` over real HTTP, on both stores, with auth.

team_b's ``feed`` writes ``/data/a_in``; team_a's ``load`` reads it and writes ``/data/shared``;
team_b's ``report`` reads ``/data/shared`` and writes ``/data/b_out`` (column ``id`` all the way). A
token limited to team_a walks through everything but lists only what it may read.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from model_mirror import assert_mirrors

from plumbline.cli import main
from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine

PRODUCER = "https://example.com/producer"
SCHEMA = (
    "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
)
COLUMNS = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"


def _dataset(name: str, source: str | None = None) -> dict[str, Any]:
    facets: dict[str, Any] = {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": SCHEMA,
            "fields": [{"name": "id", "type": "int"}],
        }
    }
    if source is not None:
        facets["columnLineage"] = {
            "_producer": PRODUCER,
            "_schemaURL": COLUMNS,
            "fields": {
                "id": {
                    "inputFields": [
                        {
                            "namespace": "file",
                            "name": source,
                            "field": "id",
                            "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
                        }
                    ]
                }
            },
        }
    return {"namespace": "file", "name": name, "facets": facets}


def _complete(
    namespace: str, job: str, inputs: list[Any], outputs: list[Any], at: int
) -> dict[str, Any]:
    when = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=at)
    return {
        "eventType": "COMPLETE",
        "eventTime": when.isoformat().replace("+00:00", "Z"),
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": namespace, "name": job},
        "inputs": inputs,
        "outputs": outputs,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


@pytest.fixture
def world(make_server: Any, db_url: str) -> dict[str, Any]:
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    limited = create_token(engine, "team-a-reader", "read", ["team_a"])
    admin = create_token(engine, "root", "admin")
    engine.dispose()
    events = [
        _complete("team_b", "feed", [], [_dataset("/data/a_in")], at=0),
        _complete(
            "team_a", "load", [_dataset("/data/a_in")], [_dataset("/data/shared", "/data/a_in")], 1
        ),
        _complete(
            "team_b",
            "report",
            [_dataset("/data/shared")],
            [_dataset("/data/b_out", "/data/shared")],
            at=2,
        ),
    ]
    # load's producer states its lineage complete (issue 31 §2); the others state nothing
    events[1]["run"]["facets"] = {
        "plumbline_completeness": {
            "_producer": PRODUCER,
            "_schemaURL": "https://example.com/completeness.json",
            "completeness": "complete",
            "reasons": [],
        }
    }
    root = {"Authorization": f"Bearer {admin}"}
    response = httpx.post(f"{server.url}/api/v1/lineage", json=events, headers=root)
    assert response.status_code == 201, response.text
    runs = {event["job"]["name"]: event["run"]["runId"] for event in events}
    return {"url": server.url, "admin": admin, "limited": limited, "runs": runs}


def _get(world: dict[str, Any], token: str, path: str = "impact", **params: Any) -> httpx.Response:
    return httpx.get(
        f"{world['url']}/api/v1/{path}",
        params=params,
        headers={"Authorization": f"Bearer {world[token]}"},
        timeout=30,
    )


def _validate(world: dict[str, Any], body: Any, path: str = "/api/v1/impact") -> None:
    spec = httpx.get(f"{world['url']}/openapi.json").json()
    operation = spec["paths"][path]["get"]
    content = operation["responses"]["200"]["content"]
    assert "text/csv" in content
    schema = content["application/json"]["schema"]
    validator = Draft202012Validator({**schema, "components": spec["components"]})
    errors = list(validator.iter_errors(body))
    assert not errors, errors[0].message
    assert_mirrors(body, path)
    documented = {p["name"] for p in operation["parameters"]}
    assert {"nodeId", "format", "since"} <= documented


def test_impact_of_a_dataset_over_http(world: dict[str, Any]) -> None:
    response = _get(world, "admin", nodeId="dataset:file:/data/a_in", direction="downstream")
    assert response.status_code == 200, response.text
    body = response.json()
    _validate(world, body)
    assert [(n["id"], n["distance"]) for n in body["nodes"]] == [
        ("dataset:file:/data/a_in", 0),
        ("job:team_a:load", 1),
        ("dataset:file:/data/shared", 2),
        ("job:team_b:report", 3),
        ("dataset:file:/data/b_out", 4),
    ]
    load = body["nodes"][1]
    assert load["lastRun"]["state"] == "COMPLETED"
    assert body["nodes"][2]["lastVersion"]["runId"] == load["lastRun"]["id"]
    assert ("job:team_a:load", "dataset:file:/data/shared") in {
        (e["origin"], e["destination"]) for e in body["edges"]
    }
    assert body["hiddenNodes"] == 0 and body["truncated"] is False
    up = _get(world, "admin", nodeId="job:team_b:report", direction="upstream", depth=2).json()
    assert [n["id"] for n in up["nodes"]] == [
        "job:team_b:report",
        "dataset:file:/data/shared",
        "job:team_a:load",
    ]


def test_column_impact_over_http(world: dict[str, Any]) -> None:
    body = _get(world, "admin", nodeId="datasetField:file:/data/a_in:id").json()
    _validate(world, body)
    assert body["mode"] == "column"
    assert [n["id"] for n in body["nodes"]] == [
        "datasetField:file:/data/a_in:id",
        "datasetField:file:/data/shared:id",
        "datasetField:file:/data/b_out:id",
    ]
    assert body["nodes"][2]["pathTransformations"] == [
        [{"type": "DIRECT", "subtype": "IDENTITY"}],
        [{"type": "DIRECT", "subtype": "IDENTITY"}],
    ]
    assert body["nodes"][2]["indirectOnly"] is False


def test_a_limited_token_lists_what_it_may_read_and_counts_the_rest(
    world: dict[str, Any],
) -> None:
    body = _get(world, "limited", nodeId="dataset:file:/data/a_in").json()
    _validate(world, body)
    assert [n["id"] for n in body["nodes"]] == [
        "dataset:file:/data/a_in",
        "job:team_a:load",
        "dataset:file:/data/shared",
    ]
    assert body["hiddenNodes"] == 2
    assert "team_b" not in json.dumps(body)
    missing = _get(world, "limited", nodeId="job:team_b:report")
    assert missing.status_code == 404


def test_min_confidence_keeps_only_such_paths_over_http(world: dict[str, Any]) -> None:
    every = _get(world, "admin", nodeId="dataset:file:/data/a_in").json()
    assert {(e["origin"], e["completeness"]) for e in every["edges"]} == {
        ("dataset:file:/data/a_in", "complete"),
        ("job:team_a:load", "complete"),
        ("dataset:file:/data/shared", "inferred"),
        ("job:team_b:report", "inferred"),
    }
    body = _get(world, "admin", nodeId="dataset:file:/data/a_in", minConfidence="complete").json()
    _validate(world, body)
    assert [n["id"] for n in body["nodes"]] == [
        "dataset:file:/data/a_in",
        "job:team_a:load",
        "dataset:file:/data/shared",
    ]
    bad = _get(world, "admin", nodeId="dataset:file:/data/a_in", minConfidence="inferred")
    assert bad.status_code == 400
    cli = _cli(world, "dataset:file:/data/a_in", "--min-confidence", "complete", "--format", "json")
    assert cli.exit_code == 0, cli.output
    assert [n["id"] for n in json.loads(cli.output)["nodes"]][-1] == "dataset:file:/data/shared"
    graph = _get(world, "admin", "lineage", nodeId="dataset:file:/data/shared", depth=1).json()
    edges = {(e["origin"], e["destination"]): e for n in graph["graph"] for e in n["outEdges"]}
    load = edges[("job:team_a:load", "dataset:file:/data/shared")]
    assert (load["edgeSource"], load["completeness"], load["completenessReasons"]) == (
        "producer:producer",
        "complete",
        [],
    )
    report = edges[("job:team_b:report", "dataset:file:/data/b_out")]
    assert report["completeness"] == "inferred"
    assert report["completenessReasons"] == [
        "unattested: producer:producer does not state how complete its lineage is"
    ]


def test_csv_over_http(world: dict[str, Any]) -> None:
    response = _get(world, "admin", nodeId="dataset:file:/data/a_in", format="csv", depth=2)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    lines = response.text.splitlines()
    assert lines[0].split(",")[:3] == ["distance", "type", "id"]
    assert [line.split(",")[2] for line in lines[1:]] == [
        "dataset:file:/data/a_in",
        "job:team_a:load",
        "dataset:file:/data/shared",
    ]


def test_bad_input_over_http(world: dict[str, Any]) -> None:
    unknown = _get(world, "admin", nodeId="dataset:file:/data/nope")
    assert unknown.status_code == 404
    assert "/data/nope" in unknown.json()["message"]
    assert _get(world, "admin", nodeId="table:x").status_code == 400
    deep = _get(world, "admin", nodeId="dataset:file:/data/a_in", depth=51)
    assert deep.status_code == 400
    assert "less than or equal to 50" in deep.json()["errors"][0]["message"]
    assert _get(world, "admin", nodeId="dataset:file:/data/a_in", direction="x").status_code == 400
    assert _get(world, "admin", nodeId="dataset:file:/data/a_in", since="soon").status_code == 400


def _cli(world: dict[str, Any], *args: str, token: str = "admin", command: str = "impact") -> Any:
    env = {"PLUMBLINE_URL": world["url"], "PLUMBLINE_API_KEY": world[token]}
    return CliRunner().invoke(main, [command, *args], env=env)


def test_cli_table_json_and_csv(world: dict[str, Any]) -> None:
    table = _cli(world, "dataset:file:/data/a_in")
    assert table.exit_code == 0, table.output
    assert "dataset:file:/data/a_in feeds 4 node(s)" in table.output
    row = next(line for line in table.output.splitlines() if "job:team_a:load" in line)
    assert "COMPLETED" in row and " 1 " in row
    as_json = _cli(world, "dataset:file:/data/a_in", "--format", "json", "--depth", "2")
    assert [n["id"] for n in json.loads(as_json.output)["nodes"]][-1] == "dataset:file:/data/shared"
    as_csv = _cli(world, "job:team_b:report", "--upstream", "--format", "csv", "--type", "job")
    assert as_csv.output.splitlines()[1:] and all(
        ",JOB," in line for line in as_csv.output.splitlines()[1:]
    )
    limited = _cli(world, "dataset:file:/data/a_in", token="limited")
    assert "2 more node(s) this token may not read" in limited.output


def test_cli_errors_are_one_line(world: dict[str, Any]) -> None:
    env_url = world["url"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "plumbline",
            "impact",
            "dataset:file:/data/nope",
            "--url",
            env_url,
            "--api-key",
            world["admin"],
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "404" in done.stderr and "/data/nope" in done.stderr
    deep = _cli(world, "dataset:file:/data/a_in", "--depth", "99")
    assert deep.exit_code == 1 and "less than or equal to 50" in deep.output
    anonymous = CliRunner().invoke(main, ["impact", "dataset:file:/data/a_in", "--url", env_url])
    assert anonymous.exit_code == 1 and "401" in anonymous.output
    assert len(anonymous.output.strip().splitlines()) == 1


def test_rerun_plan_over_http(world: dict[str, Any]) -> None:
    runs = world["runs"]
    by_run = _get(world, "admin", "rerun-plan", runId=runs["feed"])
    assert by_run.status_code == 200, by_run.text
    body = by_run.json()
    _validate(world, body, "/api/v1/rerun-plan")
    assert [(s["order"], s["job"]["name"], s["after"]) for s in body["steps"]] == [
        (1, "load", []),
        (2, "report", [1]),
    ]
    assert [r["id"] for r in body["steps"][0]["runs"]] == [runs["load"]]
    read = body["steps"][0]["runs"][0]["reads"][0]
    assert read["name"] == "/data/a_in" and read["affected"] is True
    assert body["badVersions"][0]["runId"] == runs["feed"]
    version = body["badVersions"][0]["version"]
    by_version = _get(
        world, "admin", "rerun-plan", nodeId="dataset:file:/data/a_in", version=version
    ).json()
    assert by_version["steps"] == body["steps"]
    by_since = _get(
        world, "admin", "rerun-plan", nodeId="dataset:file:/data/a_in", since="2026-01-01T00:00:00Z"
    ).json()
    assert by_since["steps"] == body["steps"]
    later = _get(
        world, "admin", "rerun-plan", nodeId="dataset:file:/data/a_in", since="2026-01-02T00:00:00Z"
    ).json()
    assert later["steps"] == [] and later["badVersions"] == []
    limited = _get(world, "limited", "rerun-plan", runId=runs["load"]).json()
    assert limited["steps"] == [] and limited["hiddenSteps"] == 1
    as_csv = _get(world, "admin", "rerun-plan", runId=runs["feed"], format="csv")
    assert as_csv.headers["content-type"].startswith("text/csv")
    assert [line.split(",")[2] for line in as_csv.text.splitlines()[1:]] == ["load", "report"]


def test_rerun_plan_bad_input_over_http(world: dict[str, Any]) -> None:
    missing = _get(world, "admin", "rerun-plan", runId="no-such-run")
    assert missing.status_code == 404 and "no-such-run" in missing.json()["message"]
    version = _get(world, "admin", "rerun-plan", nodeId="dataset:file:/data/a_in", version="v9")
    assert version.status_code == 404 and "v9" in version.json()["message"]
    alone = _get(world, "admin", "rerun-plan", nodeId="dataset:file:/data/a_in")
    assert alone.status_code == 400
    assert _get(world, "admin", "rerun-plan", nodeId="x:y", since="2026-01-01").status_code == 400
    hidden = _get(world, "limited", "rerun-plan", runId=world["runs"]["report"])
    assert hidden.status_code == 404


def test_rerun_plan_cli(world: dict[str, Any]) -> None:
    runs = world["runs"]
    table = _cli(
        world, "dataset:file:/data/a_in", "--since", "2026-01-01T00:00:00Z", command="rerun-plan"
    )
    assert table.exit_code == 0, table.output
    assert "2 job(s) to rerun" in table.output
    rows = [line for line in table.output.splitlines() if "team_" in line]
    assert "team_a:load" in rows[0] and runs["load"][-8:] in rows[0]  # the short form
    assert "team_b:report" in rows[1]
    as_json = _cli(world, "--run", runs["feed"], "--format", "json", command="rerun-plan")
    assert [s["job"]["name"] for s in json.loads(as_json.output)["steps"]] == ["load", "report"]
    as_csv = _cli(world, "--run", runs["feed"], "--format", "csv", command="rerun-plan")
    assert as_csv.output.startswith("order,namespace,job,")
    limited = _cli(world, "--run", runs["feed"], command="rerun-plan", token="limited")
    assert limited.exit_code == 1 and "404" in limited.output  # feed is team_b's
    no_time = _cli(world, "dataset:file:/data/a_in", command="rerun-plan")  # a usage error
    assert no_time.exit_code == 2 and no_time.output.strip().splitlines()[-1].startswith("Error: ")
    unknown = _cli(world, "--run", "nope", command="rerun-plan")
    assert unknown.exit_code == 2 and "'nope'" in unknown.output


def test_since_takes_a_date_or_a_span_in_impact_and_rerun_plan(world: dict[str, Any]) -> None:
    # issue 27: `--since 2024-01-01` and `--since 7d` were 400 "expected an RFC 3339 date-time"
    # here while check, coverage and export took them; one parser now, RFC 3339 to the server
    whole = json.loads(_cli(world, "dataset:file:/data/a_in", "--format", "json").output)
    for since in ("2000-01-01", "9999d"):
        done = _cli(world, "dataset:file:/data/a_in", "--since", since, "--format", "json")
        assert done.exit_code == 0, done.output
        assert json.loads(done.output)["nodes"] == whole["nodes"], since
    later = _cli(world, "dataset:file:/data/a_in", "--since", "2999-01-01", "--format", "json")
    assert [n["distance"] for n in json.loads(later.output)["nodes"]] == [0]
    by_time = _cli(world, "dataset:file:/data/a_in", "--since", "2026-01-01T00:00:00Z",
                   "--format", "json", command="rerun-plan")  # fmt: skip
    by_date = _cli(world, "dataset:file:/data/a_in", "--since", "2026-01-01",
                   "--format", "json", command="rerun-plan")  # fmt: skip
    assert by_date.exit_code == 0, by_date.output
    assert json.loads(by_date.output)["steps"] == json.loads(by_time.output)["steps"]
    span = _cli(world, "dataset:file:/data/a_in", "--since", "100000d", command="rerun-plan")
    assert span.exit_code == 0 and "2 job(s) to rerun" in span.output
