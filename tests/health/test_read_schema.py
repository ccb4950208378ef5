"""What a run reads is what it read (issue 27): a reader's declared schema (an input's ``schema``
facet) neither resets the current fields of a dataset a run writes nor raises ``schema-drift``;
only a write makes a version and its schema. A dataset no run writes (an external file only
ever read) shows the schema its latest read declared, still without drift alerts. On both
backends, through the store and over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from pipeline import DS, NS, ORDERS, _schema, alerts_of, day, job_run, orders
from sqlalchemy.engine import Engine
from store_summary import dataset, ingest

HOURS = 3
DECLARED = {"id": "string", "price": "double", "qty": "int"}  # the reader says price is double


def _audit(n: int, hour: int, fields: dict[str, str], name: str = "orders") -> list[dict[str, Any]]:
    """A job that reads ``name`` with a declared schema and writes ``audit``."""
    read = dataset(DS, name, schema=_schema(fields))
    return job_run(n, "audit", hour, [read], [dataset(DS, f"audit_{name}")])


def test_a_declared_read_schema_neither_resets_fields_nor_raises_drift(store: Engine) -> None:
    for hour in range(HOURS):
        ingest(store, day(hour))
    ingest(store, _audit(900, HOURS, DECLARED))
    assert alerts_of(store, "schema-drift") == []
    with store.connect() as conn:
        stored = _stored_fields(conn, "orders")
    assert stored == ORDERS  # still what the writer wrote: price decimal(10,2)
    # the next write with the writer's own schema is no change either
    ingest(store, day(HOURS + 1))
    assert alerts_of(store, "schema-drift") == []
    # a real change by the writer still is one, attributed to the writer's run
    ingest(store, day(HOURS + 2, outputs=[orders({"id": "string", "price": "double"})]))
    drift = alerts_of(store, "schema-drift")
    assert [a["subject"] for a in drift] == [f"dataset:{DS}:orders"]


def test_an_external_file_only_read_shows_its_latest_read_schema_without_drift(
    store: Engine,
) -> None:
    ingest(store, _audit(1, 0, {"rate": "string"}, name="rates.csv"))
    ingest(store, _audit(2, 1, {"rate": "double"}, name="rates.csv"))
    with store.connect() as conn:
        assert _stored_fields(conn, "rates.csv") == {"rate": "double"}
    assert alerts_of(store, "schema-drift") == []


def _stored_fields(conn: Any, name: str) -> dict[str, str | None]:
    from plumbline.store import schema as s

    dataset_id = conn.execute(
        s.datasets.select().with_only_columns(s.datasets.c.id).where(s.datasets.c.name == name)
    ).scalar_one()
    rows = conn.execute(
        s.dataset_fields.select()
        .with_only_columns(s.dataset_fields.c.name, s.dataset_fields.c.type)
        .where(s.dataset_fields.c.dataset_id == dataset_id, s.dataset_fields.c.in_schema)
    )
    return {row.name: row.type for row in rows}


def test_over_http_the_dataset_page_agrees_with_its_current_version(
    make_server: Callable[..., Any],
) -> None:
    server = make_server()
    for hour in range(HOURS):
        assert httpx.post(f"{server.url}/api/v1/lineage", json=day(hour)).status_code == 201
    posted = httpx.post(f"{server.url}/api/v1/lineage", json=_audit(900, HOURS, DECLARED))
    assert posted.status_code == 201, posted.text
    base = f"{server.url}/api/v1/namespaces/{DS}/datasets/orders"
    page = httpx.get(base, timeout=30).json()
    assert {f["name"]: f["type"] for f in page["fields"]} == ORDERS
    version = httpx.get(f"{base}/versions/{page['currentVersion']}", timeout=30).json()
    assert version["fields"] == page["fields"]
    alerts = httpx.get(f"{server.url}/api/v1/alerts", timeout=30).json()
    assert [a for a in alerts["alerts"] if a["kind"] == "schema-drift"] == []
    runs = httpx.get(f"{server.url}/api/v1/namespaces/{NS}/jobs/audit/runs", timeout=30).json()
    assert [r["state"] for r in runs["runs"]] == ["COMPLETED"]
