"""A field only a columnLineage facet names is the end of its column edges, not one of the
dataset's ``fields`` (as Marquez, whose dataset fields come from schema facets only), until a
schema names it; over real HTTP on both stores (issue 15 item 14)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

PRODUCER = "https://example.com/producer"
SCHEMA = (
    "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
)
COLUMNS = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"


def _schema(columns: dict[str, str]) -> dict[str, Any]:
    fields = [{"name": c, "type": t} for c, t in columns.items()]
    return {"_producer": PRODUCER, "_schemaURL": SCHEMA, "fields": fields}


def _event(inputs: list[dict[str, Any]], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-01-01T00:00:00Z",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "shop", "name": "load"},
        "inputs": inputs,
        "outputs": outputs,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


def _from(field: str) -> dict[str, Any]:
    return {"inputFields": [{"namespace": "lake", "name": "raw", "field": field}]}


def test_fields_known_only_from_column_lineage_are_not_listed(live_server: Any) -> None:
    sink = {
        "namespace": "lake",
        "name": "clean",
        "facets": {
            "schema": _schema({"id": "int"}),
            "columnLineage": {
                "_producer": PRODUCER,
                "_schemaURL": COLUMNS,
                "fields": {"id": _from("id"), "extra": _from("secret")},
            },
        },
    }
    source = {"namespace": "lake", "name": "raw"}  # no schema: its fields are edge ends only
    api = f"{live_server.url}/api/v1"
    with httpx.Client(base_url=api, timeout=30) as client:
        assert client.post("/lineage", json=_event([source], [sink])).status_code == 201

        def fields(name: str) -> list[tuple[str, str | None]]:
            document = client.get(f"/namespaces/lake/datasets/{name}").json()
            return [(f["name"], f["type"]) for f in document["fields"]]

        assert fields("raw") == []
        assert fields("clean") == [("id", "int")]
        graph = client.get(
            "/column-lineage", params={"nodeId": "dataset:lake:clean", "depth": 5}
        ).json()
        nodes = {node["id"] for node in graph["graph"]}
        assert {
            "datasetField:lake:raw:id",
            "datasetField:lake:raw:secret",
            "datasetField:lake:clean:extra",
        } <= nodes
        coverage = client.get("/coverage", params={"since": "2000-01-01T00:00:00Z"}).json()
        assert coverage["overall"]["outputFields"] == 1

        source["facets"] = {"schema": _schema({"id": "int", "secret": "string"})}
        assert client.post("/lineage", json=_event([source], [])).status_code == 201
        assert fields("raw") == [("id", "int"), ("secret", "string")]
        assert fields("clean") == [("id", "int")]
