"""Catalog enrichment against real Iceberg tables (pyiceberg SQL catalogs on SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from iceberg_lake import ARROW_SCHEMA, EXPECTED_FIELDS, Iceberg, make_iceberg

from plumbline.server.catalog import (
    IDENTITY_FACET,
    IcebergResolver,
    UnknownTableError,
    enrich_event,
    stable_id_of,
)


@pytest.fixture
def iceberg(tmp_path: Path) -> Iceberg:
    warehouse = tmp_path / "wh"
    warehouse.mkdir()
    return make_iceberg(
        "lake",
        {
            "type": "sql",
            "uri": f"sqlite:///{tmp_path / 'catalog.db'}",
            "warehouse": f"file://{warehouse}",
        },
    )


@pytest.fixture
def pg_iceberg(pg_url: str, tmp_path: Path) -> Iterator[Iceberg]:
    warehouse = tmp_path / "pgwh"
    warehouse.mkdir()
    yield make_iceberg("pglake", {"type": "sql", "uri": pg_url, "warehouse": f"file://{warehouse}"})


def _event(inputs: list[dict[str, Any]], outputs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-01-01T00:00:00Z",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "shop", "name": "report"},
        "inputs": inputs,
        "outputs": outputs,
        "producer": "https://example.com/engine",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


def test_resolver_describes_the_table_after_two_appends(iceberg: Iceberg) -> None:
    resolver = IcebergResolver("lake", iceberg.properties)
    table = resolver.table(("sales", "orders"))
    assert table.table_uuid == iceberg.table_uuid
    assert table.current_snapshot_id == iceberg.snapshots[1]
    assert iceberg.snapshots[0] != iceberg.snapshots[1]
    assert table.location == iceberg.location
    assert table.qualified_name == "sales.orders"
    assert [f.name for f in table.fields] == ["order_id", "amount", "customer"]
    with pytest.raises(UnknownTableError, match="catalog 'lake' has no table 'sales.nope'"):
        resolver.table(("sales", "nope"))


def test_resolves_by_location_and_by_symlink(iceberg: Iceberg) -> None:
    resolver = IcebergResolver("lake", iceberg.properties)
    path = iceberg.location.removeprefix("file://")
    assert resolver.resolve("file", path, []).table_uuid == iceberg.table_uuid
    assert resolver.resolve("file", path + "/", []).table_uuid == iceberg.table_uuid
    by_symlink = resolver.resolve(
        "file",
        "/somewhere/else",
        [{"namespace": iceberg.warehouse, "name": "sales.orders", "type": "TABLE"}],
    )
    assert by_symlink is not None and by_symlink.table_uuid == iceberg.table_uuid
    assert resolver.resolve("file", path + "_other", []) is None
    assert resolver.resolve("s3://bucket", "sales/orders", []) is None


def test_enrich_event_adds_identity_and_current_snapshot(iceberg: Iceberg) -> None:
    settings = SimpleNamespace(catalogs={"lake": iceberg.properties})
    path = iceberg.location.removeprefix("file://")
    event = _event(
        inputs=[{"namespace": "file", "name": path}],
        outputs=[{"namespace": "file", "name": "/tmp/not/a/table"}],
    )
    enriched = enrich_event(settings, event)
    assert "facets" not in event["inputs"][0]  # the original (forwarded) event is untouched
    facets = enriched["inputs"][0]["facets"]
    assert facets[IDENTITY_FACET]["tableUuid"] == iceberg.table_uuid
    assert facets[IDENTITY_FACET]["currentSnapshotId"] == iceberg.snapshots[1]
    assert facets["version"]["datasetVersion"] == str(iceberg.snapshots[1])
    assert facets["symlinks"]["identifiers"] == [
        {"namespace": iceberg.warehouse, "name": "sales.orders", "type": "TABLE"}
    ]
    assert facets["catalog"]["name"] == "lake"
    assert facets["catalog"]["framework"] == "iceberg"
    assert facets["schema"]["fields"] == EXPECTED_FIELDS
    assert facets["storage"]["storageLayer"] == "iceberg"
    assert "facets" not in enriched["outputs"][0]
    assert stable_id_of(enriched["inputs"][0]) == f"lake:{iceberg.table_uuid}"
    assert stable_id_of(enriched["outputs"][0]) is None


def test_enrichment_keeps_what_the_engine_sent_and_merges_symlinks(iceberg: Iceberg) -> None:
    settings = SimpleNamespace(catalogs={"lake": iceberg.properties})
    own_version = {"_producer": "p", "_schemaURL": "s", "datasetVersion": "engine-says-this"}
    own_link = {"namespace": "hive://metastore", "name": "sales.orders", "type": "TABLE"}
    dataset = {
        "namespace": "file",
        "name": iceberg.location.removeprefix("file://"),
        "facets": {
            "version": own_version,
            "symlinks": {"_producer": "p", "_schemaURL": "s", "identifiers": [own_link]},
        },
    }
    enriched = enrich_event(settings, _event([], [dataset]))
    facets = enriched["outputs"][0]["facets"]
    assert facets["version"] == own_version
    assert facets["symlinks"]["identifiers"] == [
        own_link,
        {"namespace": iceberg.warehouse, "name": "sales.orders", "type": "TABLE"},
    ]


def test_renamed_table_keeps_its_stable_identity(iceberg: Iceberg) -> None:
    settings = SimpleNamespace(catalogs={"lake": {**iceberg.properties, "cache_ttl": "0"}})
    iceberg.catalog.rename_table("sales.orders", "sales.orders_v2")
    link = [{"namespace": iceberg.warehouse, "name": "sales.orders_v2", "type": "TABLE"}]
    enriched = enrich_event(
        settings,
        _event(
            [
                {
                    "namespace": "file",
                    "name": "/elsewhere",
                    "facets": {"symlinks": {"identifiers": link}},
                }
            ],
            [],
        ),
    )
    identity = enriched["inputs"][0]["facets"][IDENTITY_FACET]
    assert identity["tableUuid"] == iceberg.table_uuid
    assert identity["identifier"] == "sales.orders_v2"


def test_enrichment_can_be_switched_off_per_catalog(iceberg: Iceberg) -> None:
    settings = SimpleNamespace(catalogs={"lake": {**iceberg.properties, "enrich": "false"}})
    event = _event([{"namespace": "file", "name": iceberg.location.removeprefix("file://")}], [])
    assert enrich_event(settings, event) is event


def test_unreachable_catalog_leaves_events_alone(tmp_path: Path) -> None:
    settings = SimpleNamespace(
        catalogs={
            "broken": {
                "type": "sql",
                "uri": f"sqlite:///{tmp_path}/missing/dir/c.db",
                "warehouse": "file:///x",
            }
        }
    )
    event = _event([{"namespace": "file", "name": "/x/sales/orders"}], [])
    assert enrich_event(settings, event) is event


@pytest.mark.postgres
def test_sql_catalog_on_postgresql(pg_iceberg: Iceberg) -> None:
    resolver = IcebergResolver("pglake", pg_iceberg.properties)
    table = resolver.resolve("file", pg_iceberg.location.removeprefix("file://"), [])
    assert table is not None
    assert table.table_uuid == pg_iceberg.table_uuid
    assert table.current_snapshot_id == pg_iceberg.snapshots[1]
    assert table.catalog_type == "sql"
    assert table.metadata_uri is not None and "postgres" in table.metadata_uri


def test_resolves_a_table_at_a_custom_location_inside_the_warehouse(iceberg: Iceberg) -> None:
    custom = f"{iceberg.warehouse}/custom/place/returns"
    table = iceberg.catalog.create_table("sales.returns", schema=ARROW_SCHEMA, location=custom)
    resolver = IcebergResolver("lake", iceberg.properties)
    found = resolver.resolve("file", custom.removeprefix("file://"), [])
    assert found is not None
    assert (found.qualified_name, found.table_uuid) == (
        "sales.returns",
        str(table.metadata.table_uuid),
    )
    assert found.current_snapshot_id is None
