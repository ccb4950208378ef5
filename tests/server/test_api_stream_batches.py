"""``GET /api/v1/jobs/runs/{id}/batches`` and ``plumbline batches RUN_ID`` (issue 26 §2): a
streaming run's micro-batches over real HTTP on both stores, paged, read scope, a
namespace-limited token seeing its namespaces' runs only, 404 for an unknown run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "store")]
from stream_batch_events import KAFKA, kafka_batch, stream_event  # noqa: E402

from plumbline.server.tokens import create_token  # noqa: E402
from plumbline.store.engine import create_store_engine  # noqa: E402

RUN = str(uuid.uuid4())
OTHER = str(uuid.uuid4())


@pytest.fixture
def world(make_server: Any, db_url: str) -> dict[str, Any]:
    """RUN (namespace tests): batches 0-2 in two events; OTHER (namespace team_b): batch 0."""
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    admin = create_token(engine, "root", "admin")
    limited = create_token(engine, "team-b-reader", "read", ["team_b"])
    engine.dispose()
    other = stream_event(OTHER, "START", 1, kafka_batch(0, 0, 5, "1"))
    other["job"]["namespace"] = "team_b"
    events = [
        stream_event(RUN, "START", 1, kafka_batch(0, 0, 10, "1")),
        stream_event(RUN, "RUNNING", 2, kafka_batch(1, 10, 25, "2"), kafka_batch(2, 25, 30, "3")),
        other,
    ]
    headers = {"Authorization": f"Bearer {admin}"}
    response = httpx.post(f"{server.url}/api/v1/lineage", json=events, headers=headers)
    assert response.status_code == 201, response.text
    return {"url": server.url, "admin": admin, "limited": limited}


def _get(world: dict[str, Any], run: str, token: str = "admin", **params: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {world[token]}"}
    url = f"{world['url']}/api/v1/jobs/runs/{run}/batches"
    return httpx.get(url, params=params, headers=headers)


def test_a_runs_batches_with_offsets_and_committed_versions(world: dict[str, Any]) -> None:
    response = _get(world, RUN)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["runId"] == RUN and body["totalCount"] == 3
    assert [b["batchId"] for b in body["batches"]] == [0, 1, 2]
    second = body["batches"][1]
    assert second["sinks"] == [{"namespace": "file", "name": "/lake/orders", "version": "2"}]
    (source,) = second["sources"]
    assert source["namespace"] == KAFKA and source["failOnDataLoss"] == "false"
    assert [(p["topic"], p["partition"], p["startOffset"], p["endOffset"])
            for p in source["partitions"]] == [("orders", 0, 10, 25), ("orders", 3, 20, 50)]  # fmt: skip
    assert second["timestamp"] == "2024-01-01T00:00:01Z" and second["recordedAt"]


def test_paging_and_bounds(world: dict[str, Any]) -> None:
    page = _get(world, RUN, limit=1, offset=2).json()
    assert [b["batchId"] for b in page["batches"]] == [2] and page["totalCount"] == 3
    for bad in ({"limit": -1}, {"offset": -1}, {"limit": "x"}):
        assert _get(world, RUN, **bad).status_code == 400, bad


def test_unknown_runs_and_other_namespaces_are_not_found(world: dict[str, Any]) -> None:
    assert _get(world, str(uuid.uuid4())).status_code == 404
    assert _get(world, RUN, token="limited").status_code == 404
    mine = _get(world, OTHER, token="limited")
    assert mine.status_code == 200 and mine.json()["totalCount"] == 1
    anonymous = httpx.get(f"{world['url']}/api/v1/jobs/runs/{RUN}/batches")
    assert anonymous.status_code == 401


def _plumbline(world: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PLUMBLINE_URL": world["url"], "PLUMBLINE_API_KEY": world["admin"]}
    return subprocess.run(
        [sys.executable, "-m", "plumbline", *args], capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip


def test_cli_batches(world: dict[str, Any]) -> None:
    table = _plumbline(world, "batches", RUN[-8:])  # the short id the CLI and UI show
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0] == f"run {RUN}: 3 batch(es)"
    batch_1 = next(i for i, line in enumerate(lines) if f"{KAFKA} orders[0] 10-25" in line)
    assert "file:/lake/orders version 2" in lines[batch_1]
    assert f"{KAFKA} orders[3] 20-50" in lines[batch_1 + 1]
    as_json = _plumbline(world, "batches", RUN, "--format", "json", "--limit", "1", "--offset", "1")
    assert as_json.returncode == 0, as_json.stderr
    body = json.loads(as_json.stdout)
    assert [b["batchId"] for b in body["batches"]] == [1] and body["totalCount"] == 3
    missing = _plumbline(world, "batches", str(uuid.uuid4()))
    assert missing.returncode == 1 and "404" in missing.stderr
    assert missing.stderr.count("\n") == 1
