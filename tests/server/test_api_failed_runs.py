"""``GET /api/v1/failed-runs``: the latest failed and aborted runs of every job, newest first, each
with its job and the job's latest run (so a failure a later run fixed says so); both stores, over
HTTP, a namespace-limited token seeing its namespaces only."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / d) for d in ("analysis", "store")]
from run_events import NS, orders_out, raw, run, run_id  # noqa: E402

from plumbline.server.tokens import create_token  # noqa: E402
from plumbline.store.engine import create_store_engine  # noqa: E402


@pytest.fixture
def world(make_server: Any, db_url: str) -> dict[str, Any]:
    """``load`` fails (run 2) then completes (run 3); ``report`` (namespace team_b) fails last
    (run 5) and ``export`` aborts (run 6) earlier; ``ok`` only completes."""
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    admin = create_token(engine, "root", "admin")
    limited = create_token(engine, "team-b-reader", "read", ["team_b"])
    engine.dispose()
    load = [
        *run(1, "load", 0, inputs=[raw()], outputs=[orders_out()]),
        *run(2, "load", 60, inputs=[raw()], outputs=[orders_out()], state="FAIL",
             error="ValueError: bad price\n  at line 3"),
        *run(3, "load", 120, inputs=[raw()], outputs=[orders_out()]),
        *run(4, "ok", 130),
        *run(6, "export", 140, state="ABORT"),
    ]  # fmt: skip
    report = run(5, "report", 200, state="FAIL", error="boom")
    for event in report:
        event["job"]["namespace"] = "team_b"
    headers = {"Authorization": f"Bearer {admin}"}
    response = httpx.post(f"{server.url}/api/v1/lineage", json=load + report, headers=headers)
    assert response.status_code == 201, response.text
    return {"url": server.url, "admin": admin, "limited": limited}


def _get(world: dict[str, Any], token: str = "admin", **params: Any) -> httpx.Response:
    headers = {"Authorization": f"Bearer {world[token]}"}
    return httpx.get(f"{world['url']}/api/v1/failed-runs", params=params, headers=headers)


def test_newest_failures_first_with_their_job_and_its_latest_run(world: dict[str, Any]) -> None:
    response = _get(world)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["totalCount"] == 3
    assert [(r["id"], r["state"], r["job"]) for r in body["runs"]] == [
        (run_id(5), "FAILED", {"namespace": "team_b", "name": "report"}),
        (run_id(6), "ABORTED", {"namespace": NS, "name": "export"}),
        (run_id(2), "FAILED", {"namespace": NS, "name": "load"}),
    ]
    load = body["runs"][2]
    assert load["errorMessage"].startswith("ValueError: bad price")
    # a later run of the job completed: the failure was fixed since
    assert (load["jobLatestRunId"], load["jobLatestRunState"]) == (run_id(3), "COMPLETED")
    report = body["runs"][0]
    assert (report["jobLatestRunId"], report["jobLatestRunState"]) == (run_id(5), "FAILED")
    assert report["startedAt"] and report["endedAt"]


def test_paging_and_bounds(world: dict[str, Any]) -> None:
    page = _get(world, limit=1, offset=1).json()
    assert [r["id"] for r in page["runs"]] == [run_id(6)] and page["totalCount"] == 3
    for bad in ({"limit": 0}, {"limit": 101}, {"offset": -1}):
        assert _get(world, **bad).status_code == 400, bad


def test_a_limited_token_sees_its_namespaces_only(world: dict[str, Any]) -> None:
    body = _get(world, token="limited").json()
    assert [r["id"] for r in body["runs"]] == [run_id(5)] and body["totalCount"] == 1
    assert httpx.get(f"{world['url']}/api/v1/failed-runs").status_code == 401
