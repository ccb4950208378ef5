"""Run diff, root cause and version lineage over real HTTP (both stores, auth required), and
``plumbline diff`` / ``plumbline root-cause`` against the live server.

``load`` (namespace shop) writes ``orders`` from ``raw``: run 1 completes, run 2 (a new SQL) fails
and run 3 completes; ``report`` (namespace team_b) reads ``orders`` after run 3.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / d) for d in ("analysis", "store")]
from model_mirror import assert_mirrors  # noqa: E402
from run_events import DS, orders_out, raw, run, run_id, sql  # noqa: E402
from store_summary import dataset  # noqa: E402

from plumbline.cli import main  # noqa: E402
from plumbline.server.tokens import create_token  # noqa: E402
from plumbline.store.engine import create_store_engine  # noqa: E402

REPORT = 9


@pytest.fixture
def world(make_server: Any, db_url: str) -> dict[str, Any]:
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    admin = create_token(engine, "root", "admin")
    limited = create_token(engine, "team-b-reader", "read", ["team_b"])
    engine.dispose()
    events = [
        *run(1, "load", 0, inputs=[raw()], outputs=[orders_out()], job_facets=sql("select 1")),
        *run(2, "load", 60, inputs=[raw(price="double")], outputs=[orders_out(rows=0)],
             job_facets=sql("select 2"), state="FAIL", error="ValueError: bad price"),
        *run(3, "load", 120, inputs=[raw()], outputs=[orders_out()], job_facets=sql("select 1")),
    ]  # fmt: skip
    report = run(REPORT, "report", 200, inputs=[dataset(DS, "orders")], outputs=[dataset(DS, "r")])
    for event in report:
        event["job"]["namespace"] = "team_b"
    headers = {"Authorization": f"Bearer {admin}"}
    response = httpx.post(f"{server.url}/api/v1/lineage", json=events + report, headers=headers)
    assert response.status_code == 201, response.text
    return {"url": server.url, "admin": admin, "limited": limited}


def _get(world: dict[str, Any], path: str, token: str = "admin", **params: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {world[token]}"}
    return httpx.get(f"{world['url']}{path}", params=params, headers=headers, timeout=30)


def _validate(world: dict[str, Any], route: str, body: Any) -> None:
    spec = httpx.get(f"{world['url']}/openapi.json", timeout=30).json()
    schema = spec["paths"][route]["get"]["responses"]["200"]["content"]["application/json"]
    validator = Draft202012Validator({**schema["schema"], "components": spec["components"]})
    errors = list(validator.iter_errors(body))
    assert not errors, errors[0].message
    assert_mirrors(body, route)


def test_run_diff_over_http(world: dict[str, Any]) -> None:
    response = _get(world, f"/api/v1/jobs/runs/{run_id(2)}/diff")
    assert response.status_code == 200, response.text
    body = response.json()
    _validate(world, "/api/v1/jobs/runs/{id}/diff", body)
    assert body["against"]["id"] == run_id(1) and body["jobVersionChanged"] is True
    assert body["inputs"][0]["schemaChanges"][0] == {
        "field": "price", "change": "typeChanged", "typeBefore": "string", "typeAfter": "double"
    }  # fmt: skip
    assert body["suspects"][0]["kind"] == "jobChanged"
    asked = _get(world, f"/api/v1/jobs/runs/{run_id(3)}/diff", against=run_id(2)).json()
    assert asked["againstReason"] == "requested" and asked["against"]["state"] == "FAILED"
    latest = _get(world, "/api/v1/diff", nodeId="job:shop:load")
    assert latest.status_code == 200 and latest.json()["run"]["id"] == run_id(3)
    _validate(world, "/api/v1/diff", latest.json())


def test_root_cause_over_http(world: dict[str, Any]) -> None:
    response = _get(world, f"/api/v1/jobs/runs/{run_id(REPORT)}/root-cause")
    assert response.status_code == 200, response.text
    body = response.json()
    _validate(world, "/api/v1/jobs/runs/{id}/root-cause", body)
    assert [u["run"]["id"] for u in body["upstream"]] == [run_id(3)]
    assert body["upstream"][0]["produced"] == [
        {"namespace": DS, "name": "orders", "version": run_id(3)}
    ]
    failed = _get(world, "/api/v1/root-cause", nodeId="job:shop:load").json()
    assert failed["run"]["id"] == run_id(2)
    _validate(world, "/api/v1/root-cause", failed)
    writer = _get(world, "/api/v1/root-cause", nodeId=f"dataset:{DS}:orders").json()
    assert writer["run"]["id"] == run_id(3)


def test_version_lineage_over_http(world: dict[str, Any]) -> None:
    route = "/api/v1/namespaces/{namespace}/datasets/{dataset}/versions/{version}/lineage"
    path = f"/api/v1/namespaces/{DS}/datasets/orders/versions/{run_id(3)}/lineage"
    down = _get(world, path, direction="downstream")
    assert down.status_code == 200, down.text
    _validate(world, route, down.json())
    assert [(v["name"], v["distance"], v["runId"]) for v in down.json()["versions"]] == [
        ("orders", 0, run_id(3)),
        ("r", 1, run_id(REPORT)),
    ]
    up = _get(world, path).json()["versions"]
    # raw, which no job writes, has the version its read observed (its input statistics)
    assert [(v["name"], v["datasetVersion"][:9], v["versionSource"]) for v in up] == [
        ("orders", run_id(3)[:9], None),
        ("raw", "observed:", "observed"),
    ]
    # names with slashes travel percent-encoded, as in Marquez's routes
    assert (
        _get(
            world, f"/api/v1/namespaces/{quote('s3://b', safe='')}/datasets/x/versions/1/lineage"
        ).status_code
        == 404
    )


def test_errors_name_what_was_not_found(world: dict[str, Any]) -> None:
    missing = _get(world, "/api/v1/jobs/runs/nope/diff")
    assert missing.status_code == 404 and "run 'nope' not found" in missing.json()["message"]
    against = _get(world, f"/api/v1/jobs/runs/{run_id(2)}/diff", against=run_id(77))
    assert against.status_code == 404 and run_id(77) in against.json()["message"]
    other_job = _get(world, f"/api/v1/jobs/runs/{run_id(2)}/diff", against=run_id(REPORT))
    assert other_job.status_code == 400
    assert _get(world, "/api/v1/jobs/runs/nope/root-cause").status_code == 404
    job = _get(world, "/api/v1/root-cause", nodeId="job:shop:nope")
    assert job.status_code == 404 and "'nope'" in job.json()["message"]
    assert _get(world, "/api/v1/root-cause", nodeId="job").status_code == 400
    assert _get(world, "/api/v1/diff", nodeId=f"dataset:{DS}:orders").status_code == 400
    deep = _get(world, f"/api/v1/jobs/runs/{run_id(2)}/root-cause", depth=99)
    assert deep.status_code == 400
    assert "less than or equal to 50" in deep.json()["errors"][0]["message"]
    base = f"/api/v1/namespaces/{DS}/datasets/orders/versions"
    version = _get(world, f"{base}/v9/lineage")
    assert version.status_code == 404 and "version 'v9'" in version.json()["message"]
    assert _get(world, f"{base}/{run_id(3)}/lineage", direction="up").status_code == 400


def test_a_limited_token_sees_its_runs_only(world: dict[str, Any]) -> None:
    hidden = _get(world, f"/api/v1/jobs/runs/{run_id(2)}/diff", token="limited")
    assert hidden.status_code == 404
    mine = _get(world, f"/api/v1/jobs/runs/{run_id(REPORT)}/root-cause", token="limited").json()
    assert mine["upstream"] == []  # the load runs are another namespace's


def _cli(world: dict[str, Any], *args: str) -> Any:
    env = {"PLUMBLINE_URL": world["url"], "PLUMBLINE_API_KEY": world["admin"]}
    return CliRunner().invoke(main, list(args), env=env)


def test_cli_diff_and_root_cause(world: dict[str, Any]) -> None:
    table = _cli(world, "diff", run_id(2))
    assert table.exit_code == 0, table.output
    assert "against 00000001 (COMPLETED): the job's last COMPLETE run before it" in table.output
    assert "1. jobChanged shop:load: sql" in table.output
    assert "price string -> double" in table.output  # the types, as the JSON has them
    as_json = json.loads(_cli(world, "diff", "job:shop:load", "--format", "json").output)
    assert as_json["run"]["id"] == run_id(3)
    cause = _cli(world, "root-cause", run_id(REPORT))
    assert cause.exit_code == 0, cause.output
    assert "1 upstream run(s), suspects first" in cause.output and "shop:load" in cause.output
    failed = json.loads(_cli(world, "root-cause", "job:shop:load", "--format", "json").output)
    assert failed["run"]["id"] == run_id(2)


def test_a_failed_run_s_emptied_write_is_caused_by_the_failure(world: dict[str, Any]) -> None:
    """Over HTTP and through the CLI (a subprocess): run 2 failed and wrote 0 rows of orders (10
    before): listed apart as caused by the failure, not among what changed (issue 27 §4)."""
    body = _get(world, f"/api/v1/jobs/runs/{run_id(2)}/diff").json()
    _validate(world, "/api/v1/jobs/runs/{id}/diff", body)
    effect = {
        "kind": "outputWritten",
        "subject": f"{DS}:orders",
        "detail": "rows 10 -> 0; bytes 100 -> 0",
    }
    assert body["causedByFailure"] == [effect]
    assert body["outputs"][0]["causedByFailure"] == ["rowCount", "byteCount"]
    assert all("rows 10 -> 0" not in s["detail"] for s in body["suspects"])
    env = {**os.environ, "PLUMBLINE_URL": world["url"], "PLUMBLINE_API_KEY": world["admin"]}
    done = subprocess.run([sys.executable, "-m", "plumbline", "diff", run_id(2)],
                          capture_output=True, text=True, timeout=120, env=env)  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = lines.index("caused by the failure (not a cause):")
    assert lines[at + 1].strip() == f"- outputWritten {DS}:orders: rows 10 -> 0; bytes 100 -> 0"
    assert at > lines.index("what changed, most likely cause first:")


def test_cli_errors_are_one_line(world: dict[str, Any]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "plumbline", "diff", run_id(55), "--url", world["url"],
         "--api-key", world["admin"]],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "404" in done.stderr and run_id(55) in done.stderr
    bad = _cli(world, "root-cause", "not-a-run")  # a usage error
    assert bad.exit_code == 2 and bad.output.strip().splitlines()[-1].startswith("Error: ")
    assert "expected a run id" in bad.output
    against = _cli(world, "diff", run_id(2), "--against", "x")
    assert against.exit_code == 2 and "--against" in against.output
    anonymous = CliRunner().invoke(main, ["diff", run_id(2), "--url", world["url"]])
    assert anonymous.exit_code == 1 and "401" in anonymous.output


def _plumbline(world: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PLUMBLINE_URL": world["url"], "PLUMBLINE_API_KEY": world["admin"]}
    return subprocess.run(
        [sys.executable, "-m", "plumbline", *args], capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip


def test_cli_version_lineage(world: dict[str, Any]) -> None:
    # issue 27: version lineage had a route and no command
    down = _plumbline(world, "version-lineage", f"dataset:{DS}:orders", run_id(3), "--downstream")
    assert down.returncode == 0, down.stderr
    lines = down.stdout.splitlines()
    assert lines[0] == f"{DS}:orders version 00000003 was used by 1 version(s)"
    assert any(f"{DS}:r" in line and "00000009" in line for line in lines[1:])
    up = _plumbline(world, "version-lineage", f"dataset:{DS}:orders", run_id(3), "--format", "json")
    assert up.returncode == 0, up.stderr
    body = json.loads(up.stdout)
    assert [(v["name"], v["distance"]) for v in body["versions"]] == [("orders", 0), ("raw", 1)]
    # the version's UUID (the versions API's `version`) is taken too
    uuid = body["versions"][0]["version"]
    by_uuid = _plumbline(world, "version-lineage", f"dataset:{DS}:orders", uuid, "--format", "json")
    assert json.loads(by_uuid.stdout)["versions"] == body["versions"]
    missing = _plumbline(world, "version-lineage", f"dataset:{DS}:orders", "v9")
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.startswith("Error: 404") and missing.stderr.count("\n") == 1
    bad = _plumbline(world, "version-lineage", "orders", "v9")
    assert bad.returncode == 2 and "Error: DATASET: expected dataset:NS:NAME" in bad.stderr
