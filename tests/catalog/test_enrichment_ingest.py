"""Catalog enrichment on ingestion, end to end: real pyiceberg tables, a live server, the read API.

Events name an Iceberg table by its catalog name (``{namespace: <warehouse>, name: "db.table"}``)
or by its location with a TABLE symlink, as Spark does. The stored dataset gets the catalog facets,
the snapshot id as its version and the table UUID as its stable identity; after the table is
renamed in the catalog, events under the new name continue the same dataset's lineage.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

# Imported by file name, like the other gateway tests (see tests/gateway/conftest.py).
from downstream_server import Downstream
from iceberg_lake import Iceberg, make_iceberg, rows

from plumbline.server.catalog import IDENTITY_FACET
from plumbline.server.settings import ForwardTarget

RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


@pytest.fixture
def lake(tmp_path: Path) -> Iceberg:
    warehouse = tmp_path / "wh"
    warehouse.mkdir()
    return make_iceberg(
        "lake",
        {
            "type": "sql",
            "uri": f"sqlite:///{tmp_path / 'catalog.db'}",
            "warehouse": f"file://{warehouse}",
            "cache_ttl": "0",  # the test changes the catalog between posts
        },
    )


def _event(
    job: str, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]], minute: int
) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": f"2026-01-01T00:{minute:02d}:00Z",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "shop", "name": job},
        "inputs": inputs,
        "outputs": outputs,
        "producer": "https://example.com/engine",
        "schemaURL": RUN_EVENT,
    }


def _post(url: str, body: Any) -> httpx.Response:
    response = httpx.post(f"{url}/api/v1/lineage", json=body, timeout=60)
    assert response.status_code == 201, response.text
    return response


def _dataset(url: str, namespace: str, name: str) -> dict[str, Any]:
    response = httpx.get(
        f"{url}/api/v1/namespaces/{quote(namespace, safe='')}/datasets/{quote(name, safe='')}",
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return response.json()


def _versions(url: str, namespace: str, name: str) -> list[str]:
    response = httpx.get(
        f"{url}/api/v1/namespaces/{quote(namespace, safe='')}/datasets/{quote(name, safe='')}/versions",
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return sorted(v["datasetVersion"] for v in response.json()["versions"])


def _lineage_neighbours(url: str, namespace: str, name: str) -> set[str]:
    response = httpx.get(
        f"{url}/api/v1/lineage",
        params={"nodeId": f"dataset:{namespace}:{name}", "depth": 1},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    graph = response.json()["graph"]
    return {node["id"] for node in graph}


def test_renamed_table_keeps_its_lineage(make_server, lake: Iceberg) -> None:
    server = make_server(catalogs={"lake": lake.properties})
    wh = lake.warehouse
    table = {"namespace": wh, "name": "sales.orders"}
    _post(server.url, _event("load", [], [table], 1))
    _post(server.url, _event("report", [table], [{"namespace": "file", "name": "/out/report"}], 2))

    before = _dataset(server.url, wh, "sales.orders")
    assert before["facets"][IDENTITY_FACET]["tableUuid"] == lake.table_uuid
    assert before["facets"]["version"]["datasetVersion"] == str(lake.snapshots[1])
    assert _versions(server.url, wh, "sales.orders") == [str(lake.snapshots[1])]

    lake.catalog.rename_table("sales.orders", "sales.orders_v2")
    renamed = lake.catalog.load_table("sales.orders_v2")
    renamed.append(rows(5))
    third = renamed.current_snapshot().snapshot_id
    new = {"namespace": wh, "name": "sales.orders_v2"}
    _post(server.url, _event("load", [], [new], 3))
    _post(server.url, _event("report", [new], [{"namespace": "file", "name": "/out/report"}], 4))

    after = _dataset(server.url, wh, "sales.orders_v2")
    assert after["id"] == {
        "namespace": wh,
        "name": "sales.orders_v2",
    }  # shown under its current name
    assert after["createdAt"] == before["createdAt"]  # the same dataset, not a new one
    assert after["facets"][IDENTITY_FACET]["tableUuid"] == lake.table_uuid
    assert after["facets"][IDENTITY_FACET]["identifier"] == "sales.orders_v2"
    assert after["facets"]["version"]["datasetVersion"] == str(third)
    # the versions continue on the one dataset: before and after the rename
    assert _versions(server.url, wh, "sales.orders_v2") == sorted(
        [str(lake.snapshots[1]), str(third)]
    )
    # the old name is an alias: it still finds the dataset, under its new name
    assert _dataset(server.url, wh, "sales.orders")["id"] == after["id"]
    # lineage edges: both jobs stay attached to the one dataset node (no second node)
    assert _lineage_neighbours(server.url, wh, "sales.orders_v2") == {
        f"dataset:{wh}:sales.orders_v2",
        "job:shop:load",
        "job:shop:report",
        "dataset:file:/out/report",
    }
    listed = httpx.get(
        f"{server.url}/api/v1/namespaces/{quote(wh, safe='')}/datasets", timeout=60
    ).json()
    assert [d["name"] for d in listed["datasets"]] == ["sales.orders_v2"]


def test_spark_style_location_with_table_symlink_is_enriched(make_server, lake: Iceberg) -> None:
    server = make_server(catalogs={"lake": lake.properties})
    path = lake.location.removeprefix("file://")
    link = {"namespace": lake.warehouse, "name": "sales.orders", "type": "TABLE"}
    dataset = {
        "namespace": "file",
        "name": path,
        "facets": {
            "symlinks": {
                "_producer": "https://example.com/engine",
                "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json#/$defs/SymlinksDatasetFacet",
                "identifiers": [link],
            }
        },
    }
    _post(server.url, _event("spark_job", [dataset], [], 1))
    stored = _dataset(server.url, "file", path)
    assert stored["facets"][IDENTITY_FACET]["tableUuid"] == lake.table_uuid
    assert stored["facets"]["version"]["datasetVersion"] == str(lake.snapshots[1])
    assert [f["name"] for f in stored["fields"]][:3] == ["order_id", "amount", "customer"]
    # the catalog name is an alias of the location-named dataset
    assert _dataset(server.url, lake.warehouse, "sales.orders")["id"] == {
        "namespace": "file",
        "name": path,
    }


def test_without_catalogs_nothing_is_enriched(make_server, lake: Iceberg) -> None:
    server = make_server()
    table = {"namespace": lake.warehouse, "name": "sales.orders"}
    _post(server.url, _event("load", [], [table], 1))
    stored = _dataset(server.url, lake.warehouse, "sales.orders")
    assert IDENTITY_FACET not in (stored["facets"] or {})


def test_forwarded_events_stay_as_received(
    make_server, lake: Iceberg, downstream: Downstream
) -> None:
    server = make_server(
        catalogs={"lake": lake.properties}, forward=(ForwardTarget(url=downstream.url),)
    )
    table = {"namespace": lake.warehouse, "name": "sales.orders"}
    batch = [_event("load", [], [table], 1), _event("report", [table], [], 2)]
    single = _event("load", [], [table], 3)
    _post(server.url, batch)
    raw_single = json.dumps(single, indent=1).encode()
    response = httpx.post(
        f"{server.url}/api/v1/lineage",
        content=raw_single,
        headers={"Content-Type": "application/json"},
        timeout=60,
    )
    assert response.status_code == 201
    downstream.wait_for(lambda d: len(d.received) == 3)
    forwarded = sorted(downstream.bodies(), key=lambda b: json.loads(b)["eventTime"])
    assert [json.loads(b) for b in forwarded[:2]] == batch  # no catalog facets went downstream
    assert forwarded[2] == raw_single  # a single event byte for byte
    # while the stored copy is enriched
    assert (
        _dataset(server.url, lake.warehouse, "sales.orders")["facets"][IDENTITY_FACET]["tableUuid"]
        == lake.table_uuid
    )


def test_a_symlinked_name_does_not_rename_the_dataset(make_server, lake: Iceberg) -> None:
    """Producers that name one table differently (catalog name vs. location with a TABLE
    symlink) share one dataset and do not take turns renaming it."""
    server = make_server(catalogs={"lake": lake.properties})
    wh = lake.warehouse
    by_catalog_name = {"namespace": wh, "name": "sales.orders"}
    location = lake.catalog.load_table("sales.orders").location()
    by_location = {
        "namespace": "file",
        "name": location.removeprefix("file://"),
        "facets": {
            "symlinks": {
                "_producer": "https://example.com/engine",
                "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json",
                "identifiers": [{"namespace": wh, "name": "sales.orders", "type": "TABLE"}],
            }
        },
    }
    _post(server.url, _event("load", [], [by_catalog_name], 1))
    _post(server.url, _event("report", [by_location], [], 2))
    _post(server.url, _event("load", [], [by_catalog_name], 3))
    _post(server.url, _event("report", [by_location], [], 4))
    dataset = _dataset(server.url, wh, "sales.orders")
    assert dataset["id"] == by_catalog_name
    assert _lineage_neighbours(server.url, wh, "sales.orders") == {
        f"dataset:{wh}:sales.orders",
        "job:shop:load",
        "job:shop:report",
    }
