"""The catalog facets route over real HTTP, and catalogs + forward targets from a TOML config file."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pyarrow as pa
import pytest
from downstream_server import Downstream
from iceberg_lake import EXPECTED_FIELDS, Iceberg, make_iceberg
from server_process import Gateway

from plumbline.server.catalog.facets import IDENTITY_FACET


@pytest.fixture
def lake(tmp_path: Path) -> Iceberg:
    warehouse = tmp_path / "wh"
    warehouse.mkdir()
    found = make_iceberg(
        "lake",
        {
            "type": "sql",
            "uri": f"sqlite:///{tmp_path / 'catalog.db'}",
            "warehouse": f"file://{warehouse}",
        },
    )
    found.catalog.create_namespace(("eu", "finance"))
    nested = found.catalog.create_table(
        ("eu", "finance", "ledger"), schema=pa.schema([("id", pa.int64())])
    )
    found.ledger_uuid = str(nested.metadata.table_uuid)
    return found


def test_route_returns_the_catalog_facets(make_server, lake: Iceberg) -> None:
    server = make_server(catalogs={"lake": lake.properties})
    response = httpx.get(f"{server.url}/api/v1/catalogs/lake/lineage/datasets/sales/orders")
    assert response.status_code == 200, response.text
    body = response.json()
    path = lake.location.removeprefix("file://")
    assert (body["catalog"], body["table"], body["namespace"], body["name"]) == (
        "lake",
        "sales.orders",
        "file",
        path,
    )
    facets = body["facets"]
    assert sorted(facets) == sorted(
        ["catalog", "symlinks", "schema", "storage", "version", IDENTITY_FACET]
    )
    assert facets["version"]["datasetVersion"] == str(lake.snapshots[1])
    assert facets[IDENTITY_FACET]["tableUuid"] == lake.table_uuid
    assert facets["schema"]["fields"] == EXPECTED_FIELDS
    assert facets["symlinks"]["identifiers"] == [
        {"namespace": lake.warehouse, "name": "sales.orders", "type": "TABLE"}
    ]
    assert {k: facets["catalog"][k] for k in ("framework", "type", "name", "warehouseUri")} == {
        "framework": "iceberg",
        "type": "sql",
        "name": "lake",
        "warehouseUri": lake.warehouse,
    }
    assert facets["storage"] == {
        "_producer": facets["storage"]["_producer"],
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/StorageDatasetFacet.json#/$defs/StorageDatasetFacet",
        "storageLayer": "iceberg",
        "fileFormat": "parquet",
    }


def test_route_follows_new_snapshots(make_server, lake: Iceberg) -> None:
    server = make_server(catalogs={"lake": {**lake.properties, "cache_ttl": "0"}})
    url = f"{server.url}/api/v1/catalogs/lake/lineage/datasets/sales/orders"
    assert httpx.get(url).json()["facets"]["version"]["datasetVersion"] == str(lake.snapshots[1])
    table = lake.catalog.load_table("sales.orders")
    from iceberg_lake import rows

    table.append(rows(10))
    third = table.current_snapshot().snapshot_id
    assert third not in lake.snapshots
    assert httpx.get(url).json()["facets"]["version"]["datasetVersion"] == str(third)


def test_dot_separated_namespaces(make_server, lake: Iceberg) -> None:
    server = make_server(catalogs={"lake": lake.properties})
    body = httpx.get(f"{server.url}/api/v1/catalogs/lake/lineage/datasets/eu.finance/ledger").json()
    assert body["table"] == "eu.finance.ledger"
    assert body["facets"][IDENTITY_FACET]["tableUuid"] == lake.ledger_uuid
    assert "version" not in body["facets"]  # no snapshot yet


def test_unknown_catalog_or_table_is_a_clear_404(make_server, lake: Iceberg) -> None:
    server = make_server(catalogs={"lake": lake.properties})
    missing_catalog = httpx.get(f"{server.url}/api/v1/catalogs/sea/lineage/datasets/sales/orders")
    assert missing_catalog.status_code == 404
    assert missing_catalog.json()["message"] == "unknown catalog 'sea' (configured: lake)"
    missing_table = httpx.get(f"{server.url}/api/v1/catalogs/lake/lineage/datasets/sales/nope")
    assert missing_table.status_code == 404
    assert missing_table.json()["message"] == "catalog 'lake' has no table 'sales.nope'"
    missing_ns = httpx.get(f"{server.url}/api/v1/catalogs/lake/lineage/datasets/hr/people")
    assert missing_ns.status_code == 404
    assert missing_ns.json()["message"] == "catalog 'lake' has no table 'hr.people'"


@pytest.mark.slow
def test_serve_reads_catalogs_and_forward_targets_from_config(
    tmp_path: Path, lake: Iceberg, downstream: Downstream
) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text(
        f"""
[[forward]]
url = "{downstream.url}"
api_key = "from-config"
headers = {{ X-Env = "test" }}

[catalog.lake]
type = "sql"
uri = "{lake.properties["uri"]}"
warehouse = "{lake.warehouse}"
"""
    )
    gateway = Gateway(
        ["--db", f"sqlite:///{tmp_path / 'gw.db'}", "--port", "0", "--config", str(config)],
        dict(os.environ),
    )
    gateway.start()
    try:
        body = httpx.get(
            f"{gateway.url}/api/v1/catalogs/lake/lineage/datasets/sales/orders", timeout=60
        ).json()
        assert body["facets"][IDENTITY_FACET]["tableUuid"] == lake.table_uuid
        event = (
            b'{"eventType":"START","eventTime":"2026-01-01T00:00:00Z","run":{"runId":'
            b'"3f5e1b9e-0d6c-4a57-9a3e-4f1f2c1d0b7a"},"job":{"namespace":"ns","name":"j"},'
            b'"producer":"https://example.com/p","schemaURL":'
            b'"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"}'
        )
        response = httpx.post(
            f"{gateway.url}/api/v1/lineage",
            content=event,
            headers={"Content-Type": "application/json"},
            timeout=60,
        )
        assert response.status_code == 201
        downstream.wait_for(lambda d: len(d.received) == 1)
        [received] = downstream.received
        assert received.body == event
        assert received.headers["authorization"] == "Bearer from-config"
        assert received.headers["x-env"] == "test"
    finally:
        gateway.stop()
