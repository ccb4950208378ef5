"""``GET /api/v1/expectations/baseline``, ``plumbline baseline save | diff`` and ``plumbline expect
init`` over real HTTP, on both stores (issue 31 §1).

shop's ``load`` reads ``raw`` and writes ``orders`` (orders.amount from raw.amount, DIRECT/IDENTITY;
the whole of orders shaped by raw.country, INDIRECT/FILTER); shop's ``copy`` reads ``orders`` and
writes analytics' ``mart``. Later (an "upgrade") ``load`` also reads ``fx`` and computes
orders.amount (DIRECT/TRANSFORMATION), and ``copy`` no longer runs.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
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
BEFORE, AFTER = "2026-01-01T00:10:00Z", "2026-01-01T05:10:00Z"


def _dataset(ns: str, name: str, columns: dict[str, Any] | None = None) -> dict[str, Any]:
    facets: dict[str, Any] = {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": SCHEMA,
            "fields": [{"name": "amount", "type": "double"}, {"name": "country", "type": "string"}],
        }
    }
    if columns is not None:
        facets["columnLineage"] = {"_producer": PRODUCER, "_schemaURL": COLUMNS, **columns}
    return {"namespace": ns, "name": name, "facets": facets}


def _input(ns: str, name: str, field: str, kind: str, subtype: str) -> dict[str, Any]:
    return {
        "namespace": ns,
        "name": name,
        "field": field,
        "transformations": [{"type": kind, "subtype": subtype}],
    }


def _complete(job: str, inputs: list[Any], outputs: list[Any], at: str) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": at,
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "shop", "name": job},
        "inputs": inputs,
        "outputs": outputs,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


def _load(subtype: str, extra_inputs: list[Any], at: str) -> dict[str, Any]:
    columns = {
        "fields": {"amount": {"inputFields": [_input("shop", "raw", "amount", "DIRECT", subtype)]}},
        "dataset": [_input("shop", "raw", "country", "INDIRECT", "FILTER")],
    }
    inputs = [_dataset("shop", "raw"), *extra_inputs]
    return _complete("load", inputs, [_dataset("shop", "orders", columns)], at)


def _copy(at: str) -> dict[str, Any]:
    columns = {
        "fields": {
            "amount": {"inputFields": [_input("shop", "orders", "amount", "DIRECT", "IDENTITY")]}
        }
    }
    return _complete(
        "copy", [_dataset("shop", "orders")], [_dataset("analytics", "mart", columns)], at
    )


@pytest.fixture
def world(make_server: Any, db_url: str) -> dict[str, Any]:
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    reader = create_token(engine, "reader", "read")
    other = create_token(engine, "other", "read", ["analytics"])
    admin = create_token(engine, "root", "admin")
    engine.dispose()
    world = {"url": server.url, "reader": reader, "other": other, "admin": admin}
    _post(world, [_load("IDENTITY", [], BEFORE), _copy(BEFORE)])
    return world


def _post(world: dict[str, Any], events: list[Any]) -> None:
    response = httpx.post(
        f"{world['url']}/api/v1/lineage",
        json=events,
        headers={"Authorization": f"Bearer {world['admin']}"},
    )
    assert response.status_code == 201, response.text


def _get(world: dict[str, Any], token: str, **params: Any) -> httpx.Response:
    return httpx.get(
        f"{world['url']}/api/v1/expectations/baseline",
        params=params,
        headers={"Authorization": f"Bearer {world[token]}"},
        timeout=30,
    )


def test_a_namespace_lineage_per_job(world: dict[str, Any]) -> None:
    response = _get(world, "reader", namespace="shop")
    assert response.status_code == 200, response.text
    body = response.json()
    spec = httpx.get(f"{world['url']}/openapi.json").json()
    schema = spec["paths"]["/api/v1/expectations/baseline"]["get"]["responses"]["200"]
    validator = Draft202012Validator(
        {**schema["content"]["application/json"]["schema"], "components": spec["components"]}
    )
    assert not list(validator.iter_errors(body))
    assert_mirrors(body, "/api/v1/expectations/baseline")
    raw, orders = (
        {"namespace": "shop", "dataset": "raw"},
        {"namespace": "shop", "dataset": "orders"},
    )
    assert body["jobs"]["load"] == {
        "reads": [raw],
        "writes": [orders],
        "columnEdges": [
            {"from": {**raw, "column": "amount"}, "to": {**orders, "column": "amount"},
             "transformations": ["DIRECT/IDENTITY"]},
            {"from": {**raw, "column": "country"}, "to": orders,
             "transformations": ["INDIRECT/FILTER"]},
        ],
    }  # fmt: skip
    assert body["jobs"]["copy"]["writes"] == [{"namespace": "analytics", "dataset": "mart"}]
    assert _get(world, "other", namespace="shop").status_code == 403
    assert _get(world, "reader", namespace="nowhere").status_code == 404


def _cli(world: dict[str, Any], *args: str) -> Any:
    return CliRunner().invoke(main, [*args, "--url", world["url"], "--api-key", world["reader"]])


def test_baseline_diff_after_an_upgrade(world: dict[str, Any], tmp_path: Path) -> None:
    saved = tmp_path / "baseline.json"
    result = _cli(world, "baseline", "save", "--namespace", "shop", "--out", str(saved))
    assert result.exit_code == 0, result.output
    assert json.loads(saved.read_text())["plumblineBaseline"] == 1
    same = _cli(world, "baseline", "diff", str(saved))
    assert same.exit_code == 0, same.output
    assert same.stdout == ""
    # the upgrade: load reads fx too and computes amount; copy does not run again
    _post(world, [_load("TRANSFORMATION", [_dataset("shop", "fx")], AFTER)])
    changed = _cli(world, "baseline", "diff", str(saved), "--since", "2026-01-01T05:00:00Z")
    assert changed.exit_code == 1, changed.output
    assert changed.stdout.splitlines() == [
        "job shop:copy",
        "  - reads dataset:shop:orders",
        "  - writes dataset:analytics:mart",
        "  - column datasetField:shop:orders:amount -> datasetField:analytics:mart:amount "
        "(DIRECT/IDENTITY)",
        "job shop:load",
        "  + reads dataset:shop:fx",
        "  ~ column datasetField:shop:raw:amount -> datasetField:shop:orders:amount: "
        "DIRECT/IDENTITY -> DIRECT/TRANSFORMATION",
    ]
    as_json = _cli(world, "baseline", "diff", str(saved), "--since", "5h", "--format", "json")
    assert set(json.loads(as_json.stdout)["jobs"]) <= {"copy", "load"}
    # without --since every edge ever seen is still there: only additions show
    every = _cli(world, "baseline", "diff", str(saved))
    assert every.exit_code == 1
    assert "  + reads dataset:shop:fx" in every.stdout
    assert " - " not in every.stdout


def test_baseline_diff_cannot_tell_without_a_baseline(
    world: dict[str, Any], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"jobs": {}}')
    result = _cli(world, "baseline", "diff", str(bad))
    assert result.exit_code == 2
    assert f"{bad}: not a plumbline baseline" in result.stderr
    down = CliRunner().invoke(
        main,
        [
            "baseline",
            "save",
            "--namespace",
            "shop",
            "--out",
            str(bad),
            "--url",
            "http://127.0.0.1:9",
        ],
    )
    assert down.exit_code == 2


def test_expect_init_writes_a_starter_that_holds(world: dict[str, Any], tmp_path: Path) -> None:
    starter = tmp_path / "expect.toml"
    result = _cli(world, "expect", "init", "--namespace", "shop", "--out", str(starter))
    assert result.exit_code == 0, result.output
    text = starter.read_text()
    assert '[[job]]\njob = "load"\nreads = ["raw"]\nwrites = ["orders"]' in text
    assert (
        '[[reach]]\nfrom = { dataset = "raw", column = "amount" }\n'
        'to = { dataset = "orders", column = "amount" }\ntransformation = "DIRECT/IDENTITY"'
    ) in text
    assert 'writes = [{ namespace = "analytics", dataset = "mart" }]' in text
    assert "# [[fresh]]" in text
    check = _cli(world, "check", "--expect", str(starter))
    assert check.exit_code == 0, check.output
    assert "ok: 6 of 6 expectation(s) hold" in check.output
    again = _cli(world, "expect", "init", "--namespace", "shop", "--out", str(starter))
    assert again.exit_code == 1
    assert "exists" in again.output
