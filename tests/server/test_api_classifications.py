"""``GET /api/v1/classifications/{tag}`` and declassification over real HTTP (issue 32 §1): a
producer's ``tags`` facet, column lineage from two jobs, a config rule, the readers."""

from __future__ import annotations

import json
import tomllib
import uuid
from typing import Any

import httpx
from click.testing import CliRunner

from plumbline.cli import main
from plumbline.server.classification_config import classification_settings

PRODUCER = "https://example.com/producer"


def _facet(**fields: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": "https://example.com/x.json", **fields}


def _event(
    job: str, when: str, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": when,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "etl", "name": job},
        "inputs": inputs,
        "outputs": outputs,
    }


def _lineage(field: str, source: str, source_field: str, subtype: str) -> dict[str, Any]:
    edge = {
        "namespace": "wh",
        "name": source,
        "field": source_field,
        "transformations": [{"type": "DIRECT", "subtype": subtype}],
    }
    return _facet(fields={field: {"inputFields": [edge]}})


def test_classification_route_declassification_and_rules(make_server) -> None:
    config = tomllib.loads(
        "[classifications]\nindirect = []\n"
        '[[classifications.rules]]\ntag = "pii.phone"\ncolumn = "phone.*"\nnamespace = "w*"\n'
    )
    server = make_server(classifications=classification_settings(config["classifications"]))
    tags = _facet(tags=[{"key": "pii", "value": "email", "field": "email"}])
    raw = {"namespace": "wh", "name": "raw.users", "facets": {"tags": tags}}
    stg = {
        "namespace": "wh",
        "name": "stg.users",
        "facets": {
            "columnLineage": _lineage("email", "raw.users", "email", "IDENTITY"),
            "schema": _facet(
                fields=[{"name": "email", "type": "string"}, {"name": "phone_no", "type": "string"}]
            ),
        },
    }
    mart = {
        "namespace": "wh",
        "name": "mart.customers",
        "facets": {"columnLineage": _lineage("contact", "stg.users", "email", "TRANSFORMATION")},
    }
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for event in (
            _event("load", "2026-01-01T00:00:01Z", [raw], [stg]),
            _event(
                "mart", "2026-01-01T00:00:02Z", [{"namespace": "wh", "name": "stg.users"}], [mart]
            ),
        ):
            assert client.post("/api/v1/lineage", json=event).status_code == 201
        answer = client.get("/api/v1/classifications/pii").json()
        columns = {(c["dataset"], c["field"]): c for c in answer["columns"]}
        assert set(columns) == {
            ("raw.users", "email"),
            ("stg.users", "email"),
            ("mart.customers", "contact"),
        }
        assert columns[("raw.users", "email")]["origin"] == "declared"
        contact = columns[("mart.customers", "contact")]
        assert (contact["origin"], contact["value"]) == ("propagated", "email")
        assert [(h["name"], h.get("subtype")) for h in contact["path"]] == [
            ("raw.users", None),
            ("stg.users", "IDENTITY"),
            ("mart.customers", "TRANSFORMATION"),
        ]
        readers = {r["job"]: r for r in answer["readers"]}
        assert set(readers) == {"load", "mart"}
        assert readers["mart"]["reads"] == ["wh/stg.users.email"]
        assert readers["mart"]["latestRunState"] == "COMPLETE"
        phone = client.get("/api/v1/classifications/pii.phone").json()["columns"]
        assert [(c["dataset"], c["field"], c["declaredBy"]) for c in phone] == [
            ("stg.users", "phone_no", "rule")
        ]

        path = "/api/v1/namespaces/wh/datasets/stg.users/fields/email/declassifications/pii"
        assert client.put(path, json={"reason": "hashed"}).status_code == 200
        after = client.get("/api/v1/classifications/pii").json()["columns"]
        assert [(c["dataset"], c["field"]) for c in after] == [("raw.users", "email")]
        assert client.put(path, json={}).status_code == 400  # a reason is needed
        assert client.delete(path).status_code == 200
        assert client.get("/api/v1/classifications/pii").json()["totalCount"] == 3
        assert client.get("/api/v1/classifications/nope").status_code == 404


def test_the_cli_lists_a_classification_with_its_path_and_readers(live_server) -> None:
    tags = _facet(tags=[{"key": "pii", "value": "email", "field": "email"}])
    raw = {"namespace": "wh", "name": "raw.users", "facets": {"tags": tags}}
    stg = {
        "namespace": "wh",
        "name": "stg.users",
        "facets": {"columnLineage": _lineage("mail", "raw.users", "email", "IDENTITY")},
    }
    event = _event("load", "2026-01-01T00:00:01Z", [raw], [stg])
    assert httpx.post(f"{live_server.url}/api/v1/lineage", json=event).status_code == 201
    env = {"PLUMBLINE_URL": live_server.url}
    table = CliRunner().invoke(main, ["classifications", "pii"], env=env)
    assert table.exit_code == 0, table.output
    assert "raw.users.email -> stg.users.mail (IDENTITY)" in table.output
    assert "declared (tag)" in table.output and "etl/load" in table.output
    as_json = CliRunner().invoke(main, ["classifications", "pii", "--format", "json"], env=env)
    assert json.loads(as_json.output)["totalCount"] == 2
    missing = CliRunner().invoke(main, ["classifications", "nope"], env=env)
    assert missing.exit_code == 1 and "404" in missing.output
