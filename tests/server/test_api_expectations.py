"""``POST /api/v1/expectations/check`` and ``plumbline check --expect`` over real HTTP, on both
stores, with auth (issue 31 §1).

shop's ``load`` reads ``raw`` and writes ``orders`` (orders.amount from raw.amount, DIRECT);
analytics' ``copy`` reads ``orders`` and writes ``mart`` (mart.amount from orders.amount).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import httpx
import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from model_mirror import assert_mirrors

from plumbline.cli import main
from plumbline.server.api.expectations import MAX_EXPECTATIONS_BYTES
from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine

PRODUCER = "https://example.com/producer"
SCHEMA = (
    "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
)
COLUMNS = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
NOW = datetime.now(UTC).replace(microsecond=0)


def _dataset(ns: str, name: str, source: tuple[str, str] | None = None) -> dict[str, Any]:
    facets: dict[str, Any] = {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": SCHEMA,
            "fields": [{"name": "amount", "type": "double"}],
        }
    }
    if source is not None:
        facets["columnLineage"] = {
            "_producer": PRODUCER,
            "_schemaURL": COLUMNS,
            "fields": {
                "amount": {
                    "inputFields": [
                        {
                            "namespace": source[0],
                            "name": source[1],
                            "field": "amount",
                            "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
                        }
                    ]
                }
            },
        }
    return {"namespace": ns, "name": name, "facets": facets}


def _complete(ns: str, job: str, inputs: list[Any], outputs: list[Any], at: int) -> dict[str, Any]:
    when = NOW - timedelta(minutes=at)
    return {
        "eventType": "COMPLETE",
        "eventTime": when.isoformat().replace("+00:00", "Z"),
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": ns, "name": job},
        "inputs": inputs,
        "outputs": outputs,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


@pytest.fixture
def world(make_server: Any, db_url: str) -> dict[str, Any]:
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    limited = create_token(engine, "shop-reader", "read", ["shop"])
    reader = create_token(engine, "reader", "read")
    admin = create_token(engine, "root", "admin")
    engine.dispose()
    events = [
        _complete(
            "shop",
            "load",
            [_dataset("shop", "raw")],
            [_dataset("shop", "orders", ("shop", "raw"))],
            30,
        ),
        _complete(
            "analytics",
            "copy",
            [_dataset("shop", "orders")],
            [_dataset("analytics", "mart", ("shop", "orders"))],
            20,
        ),
    ]
    response = httpx.post(
        f"{server.url}/api/v1/lineage", json=events, headers={"Authorization": f"Bearer {admin}"}
    )
    assert response.status_code == 201, response.text
    runs = {event["job"]["name"]: event["run"]["runId"] for event in events}
    return {"url": server.url, "reader": reader, "limited": limited, "runs": runs}


RULES = {
    "namespace": "shop",
    "reach": [
        {"from": "raw", "to": {"namespace": "analytics", "dataset": "mart"}},
        {
            "from": {"dataset": "raw", "column": "amount"},
            "to": {"dataset": "orders", "column": "amount"},
            "transformation": "DIRECT/IDENTITY",
        },
    ],
    "never_reach": [
        {"from": {"dataset": "raw", "column": "amount"}, "namespace": "analytics", "name": "pii"}
    ],
    "job": [{"job": "load", "reads": ["raw"], "writes": ["orders"]}],
    "fresh": [{"dataset": "orders", "within": "2h"}],
    "declare": [{"from": "crm", "to": "raw"}],
}


def _check(world: dict[str, Any], body: Any, token: str = "reader") -> httpx.Response:
    return httpx.post(
        f"{world['url']}/api/v1/expectations/check",
        headers={"Authorization": f"Bearer {world[token]}"} if token else {},
        timeout=30,
        json=body,
    )


def test_expectations_are_checked_with_a_read_token(world: dict[str, Any]) -> None:
    response = _check(world, RULES)
    assert response.status_code == 200, response.text
    body = response.json()
    spec = httpx.get(f"{world['url']}/openapi.json").json()
    operation = spec["paths"]["/api/v1/expectations/check"]["post"]
    schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
    validator = Draft202012Validator({**schema, "components": spec["components"]})
    assert not list(validator.iter_errors(body))
    assert "requestBody" in operation
    assert_mirrors(body, "/api/v1/expectations/check", "POST")
    assert [(o["kind"], o["status"]) for o in body["outcomes"]] == [
        ("reach", "holds"),
        ("reach", "holds"),
        ("never_reach", "broken"),
        ("job", "holds"),
        ("job", "holds"),
        ("fresh", "holds"),
    ]
    never = body["outcomes"][2]
    assert never["name"] == "pii"
    assert never["path"] == [
        "datasetField:shop:raw:amount",
        "datasetField:shop:orders:amount",
        "datasetField:analytics:mart:amount",
    ]
    assert never["runId"] == world["runs"]["copy"]  # it wrote mart's current version
    assert body["outcomes"][0]["runId"] == world["runs"]["copy"]
    assert (body["holds"], body["broken"], body["undecided"], body["declared"]) == (5, 1, 0, 1)
    assert body["truncated"] is False


def test_a_limited_token_cannot_tell_through_what_it_may_not_read(world: dict[str, Any]) -> None:
    body = _check(
        world,
        {"namespace": "shop", "never_reach": [{"from": "orders", "namespace": "shop"}]},
        token="limited",
    ).json()
    assert [o["status"] for o in body["outcomes"]] == ["undecided"]
    assert "analytics" not in json.dumps(body)


def test_bad_bodies_are_refused_at_the_door(world: dict[str, Any]) -> None:
    assert _check(world, RULES, token="").status_code == 401
    bad = _check(world, {"namespace": "shop", "reach": [{"from": "a", "to": "b"}, {"from": "a"}]})
    assert bad.status_code == 400
    assert "to" in bad.text
    semantic = _check(
        world, {"namespace": "shop", "fresh": [{"dataset": "orders", "within": "soon"}]}
    )
    assert semantic.status_code == 400
    assert semantic.json()["message"].startswith("fresh[0]: within:")
    huge = json.dumps({"namespace": "x" * (MAX_EXPECTATIONS_BYTES + 10)}).encode()
    headers = {"Authorization": f"Bearer {world['reader']}", "Content-Type": "application/json"}
    url = f"{world['url']}/api/v1/expectations/check"
    assert httpx.post(url, content=huge, headers=headers).status_code == 413  # by its length

    def chunks() -> Any:  # no Content-Length: refused as the bytes arrive
        for start in range(0, len(huge), 65536):
            yield huge[start : start + 65536]

    assert httpx.post(url, content=chunks(), headers=headers).status_code == 413
    many = {"namespace": "shop", "reach": [{"from": "a", "to": "b"}] * 1001}
    assert _check(world, many).status_code == 400


def _file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "expect.toml"
    path.write_text(text)
    return str(path)


def _cli(world: dict[str, Any], *args: str) -> Any:
    return CliRunner().invoke(
        main, ["check", "--url", world["url"], "--api-key", world["reader"], *args]
    )


HOLDING = """namespace = "shop"
[[reach]]
from = "raw"
to = { namespace = "analytics", dataset = "mart" }
[[job]]
job = "load"
writes = ["orders"]
"""


def test_check_expect_exits_0_when_all_hold(world: dict[str, Any], tmp_path: Path) -> None:
    result = _cli(world, "--expect", _file(tmp_path, HOLDING))
    assert result.exit_code == 0, result.output
    assert "ok: 2 of 2 expectation(s) hold" in result.output


def test_check_expect_prints_one_line_per_broken_rule_and_exits_1(
    world: dict[str, Any], tmp_path: Path
) -> None:
    text = HOLDING + (
        '[[never_reach]]\nfrom = "raw"\nnamespace = "analytics"\n'
        '[[reach]]\nfrom = "orders"\nto = "ordres"\n'
    )
    result = _cli(world, "--expect", _file(tmp_path, text))
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert (
        lines
        == [  # by section (reach, never_reach, job, fresh), each in the file's order
            "UNKNOWN reach: expected dataset:shop:orders must reach dataset:shop:ordres; seen "
            "unknown: dataset 'ordres' not found in namespace 'shop'",
            "BROKEN never_reach: expected dataset:shop:raw must never reach namespace 'analytics'; "
            "seen reaches dataset:analytics:mart in 4 hop(s); path dataset:shop:raw -> "
            "job:shop:load -> dataset:shop:orders -> job:analytics:copy -> dataset:analytics:mart; "
            "last shown by run " + world["runs"]["copy"][-8:],
        ]
    )
    junit = _cli(world, "--expect", _file(tmp_path, text), "--format", "junit")
    assert junit.exit_code == 1
    suite = ET.fromstring(junit.stdout).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("4", "2", "0")
    as_json = _cli(world, "--expect", _file(tmp_path, text), "--format", "json")
    assert json.loads(as_json.stdout)["broken"] == 2


def test_check_expect_exits_2_when_it_cannot_tell(world: dict[str, Any], tmp_path: Path) -> None:
    malformed = _cli(world, "--expect", _file(tmp_path, 'namespace = "shop"\n[[reach]]\nfrom = \n'))
    assert malformed.exit_code == 2
    assert f"{tmp_path / 'expect.toml'}:3" in malformed.stderr
    down = CliRunner().invoke(
        main, ["check", "--url", "http://127.0.0.1:9", "--expect", _file(tmp_path, HOLDING)]
    )
    assert down.exit_code == 2
    assert "cannot reach" in down.stderr
