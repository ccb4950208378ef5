"""Helpers for the ingestion endpoint tests: posting raw bodies and counting stored rows."""

from __future__ import annotations

import gzip
import json
from typing import Any

import httpx
import sqlalchemy as sa

from plumbline.server.fresh_reads import wait_until_normalized
from plumbline.store import Store
from plumbline.store.engine import create_store_engine

RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


def event(
    run_id: str,
    event_type: str = "COMPLETE",
    job: str = "job",
    namespace: str = "http-tests",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "eventTime": "2024-03-01T12:00:00Z",
        "producer": "https://github.com/example/plumbline-tests",
        "schemaURL": RUN_EVENT,
        "run": {"runId": run_id},
        "job": {"namespace": namespace, "name": job},
        "inputs": [{"namespace": "db", "name": "in"}],
        "outputs": [{"namespace": "db", "name": "out"}],
        **extra,
    }


def post(
    url: str,
    body: Any,
    *,
    gzipped: bool = False,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    content = raw if raw is not None else json.dumps(body).encode()
    sent_headers = {"Content-Type": "application/json", **(headers or {})}
    if gzipped:
        content = gzip.compress(content)
        sent_headers["Content-Encoding"] = "gzip"
    return httpx.post(f"{url}/api/v1/lineage", content=content, headers=sent_headers, timeout=60)


def count(db_url: str, table: str) -> int:
    """Rows of ``table`` once the server has normalized every event it accepted."""
    engine = create_store_engine(db_url)
    try:
        assert wait_until_normalized(Store(engine), None, 30) == 0, (
            "events still pending after 30 s"
        )
        with engine.connect() as connection:
            return connection.execute(
                sa.select(sa.func.count()).select_from(sa.table(table))
            ).scalar_one()
    finally:
        engine.dispose()
