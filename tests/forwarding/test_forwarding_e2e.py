"""Durable pass-through end to end: events posted to one plumbline server arrive at another backend."""

from __future__ import annotations

import gzip
import json
import re
import time
import uuid
from pathlib import Path

import httpx
import sqlalchemy as sa
from downstream_server import Downstream

from plumbline.server.settings import ForwardTarget
from plumbline.store.engine import create_store_engine
from plumbline.store.schema import lineage_events, outbox, runs


def run_event(job: str, event_type: str = "START", run_id: str | None = None) -> dict:
    return {
        "eventType": event_type,
        "eventTime": "2026-01-01T00:00:00Z",
        "run": {"runId": run_id or str(uuid.uuid4())},
        "job": {"namespace": "shop", "name": job},
        "inputs": [{"namespace": "file", "name": "/data/in"}],
        "outputs": [{"namespace": "file", "name": f"/data/{job}"}],
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


def _count(db_url: str, table: sa.Table) -> int:
    engine = create_store_engine(db_url)
    try:
        with engine.connect() as connection:
            return int(
                connection.execute(sa.select(sa.func.count()).select_from(table)).scalar_one()
            )
    finally:
        engine.dispose()


def _wait(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_second_plumbline_receives_every_event(make_server, tmp_path: Path) -> None:
    downstream = make_server(db_url=f"sqlite:///{tmp_path / 'downstream.db'}")
    upstream = make_server(forward=(ForwardTarget(url=downstream.url),))
    run_id = str(uuid.uuid4())
    single = [run_event("load", t, run_id) for t in ("START", "RUNNING", "COMPLETE")]
    batch = [run_event(f"job_{i}") for i in range(7)]
    with httpx.Client(base_url=upstream.url) as client:
        for event in single:
            assert client.post("/api/v1/lineage", json=event).status_code == 201
        gz = gzip.compress(json.dumps(batch).encode())
        response = client.post(
            "/api/v1/lineage",
            content=gz,
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
        )
        assert response.status_code == 201, response.text
    _wait(lambda: _count(downstream.db_url, lineage_events) == 10)
    downstream.settle()  # stored raw; the run below is read from the lineage tables
    engine = create_store_engine(downstream.db_url)
    with engine.connect() as connection:
        stored = connection.execute(sa.select(lineage_events.c.payload)).scalars().all()
        run = connection.execute(
            sa.select(runs.c.current_state).where(runs.c.uuid == run_id)
        ).scalar_one()
    engine.dispose()
    assert sorted(json.dumps(p, sort_keys=True) for p in stored) == sorted(
        json.dumps(e, sort_keys=True) for e in single + batch
    )
    assert run == "COMPLETE"
    status = httpx.get(f"{upstream.url}/api/v1/forwarding").json()["targets"]
    assert [(t["pending"], t["delivered"], t["dead"]) for t in status] == [(0, 10, 0)]


def test_single_events_are_forwarded_exactly_as_received(
    make_server, downstream: Downstream
) -> None:
    upstream = make_server(forward=(ForwardTarget(url=f"{downstream.url}/custom/path"),))
    raw = json.dumps(run_event("exact"), indent=3).encode()
    response = httpx.post(
        f"{upstream.url}/api/v1/lineage", content=raw, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 201
    gz_raw = json.dumps(run_event("zipped"), separators=(" ,", ": ")).encode()
    response = httpx.post(
        f"{upstream.url}/api/v1/lineage",
        content=gzip.compress(gz_raw),
        headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
    )
    assert response.status_code == 201
    downstream.wait_for(lambda d: len(d.received) == 2)
    # byte for byte; not in posting order: on PostgreSQL two jobs' requests go to two writer
    # threads, so their outbox rows (and deliveries) may come in either order
    assert sorted(downstream.bodies()) == sorted([raw, gz_raw])
    assert {r.path for r in downstream.received} == {"/custom/path"}


def test_rejected_events_are_not_forwarded(make_server, downstream: Downstream) -> None:
    upstream = make_server(forward=(ForwardTarget(url=downstream.url),))
    bad = run_event("bad")
    del bad["producer"]
    good = run_event("good")
    response = httpx.post(f"{upstream.url}/api/v1/lineage", json=[bad, good])
    assert response.status_code == 201
    downstream.wait_for(lambda d: len(d.received) == 1)
    time.sleep(0.3)
    assert [r.event["job"]["name"] for r in downstream.received] == ["good"]


def test_proxy_mode_keeps_no_lineage_but_forwards_durably(
    make_server, downstream: Downstream
) -> None:
    downstream.fail_with = 503
    upstream = make_server(store=False, forward=(ForwardTarget(url=downstream.url),))
    events = [run_event(f"p{i}") for i in range(5)]
    for event in events:
        assert httpx.post(f"{upstream.url}/api/v1/lineage", json=event).status_code == 201
    assert _count(upstream.db_url, outbox) == 5
    _wait(lambda: downstream.failures >= 1)
    downstream.fail_with = None  # the downstream comes back: nothing was lost meanwhile
    downstream.wait_for(lambda d: len(d.received) == 5, timeout=30)
    assert sorted(r.event["job"]["name"] for r in downstream.received) == [
        f"p{i}" for i in range(5)
    ]
    assert _count(upstream.db_url, lineage_events) == 0
    assert _count(upstream.db_url, runs) == 0


def _metric(text: str, name: str, labels: str) -> float:
    match = re.search(rf"^{re.escape(name)}\{{{re.escape(labels)}\}} (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def test_metrics_count_ingest_and_outbox(make_server, downstream: Downstream) -> None:
    downstream.fail_with = 503
    upstream = make_server(forward=(ForwardTarget(url=downstream.url),))
    before = httpx.get(f"{upstream.url}/metrics").text
    bad = run_event("bad")
    del bad["eventTime"]
    assert (
        httpx.post(
            f"{upstream.url}/api/v1/lineage", json=[run_event("a"), run_event("b"), bad]
        ).status_code
        == 201
    )
    assert httpx.post(f"{upstream.url}/api/v1/lineage", json=bad).status_code == 422
    _wait(lambda: downstream.failures >= 1)
    after = httpx.get(f"{upstream.url}/metrics")
    assert after.headers["content-type"].startswith("text/plain")
    text = after.text
    name = "plumbline_ingest_events_total"
    assert (
        _metric(text, name, 'result="accepted"') - _metric(before, name, 'result="accepted"') == 2
    )
    assert (
        _metric(text, name, 'result="rejected"') - _metric(before, name, 'result="rejected"') == 2
    )
    target = f'target="{downstream.url}/api/v1/lineage"'
    assert _metric(text, "plumbline_outbox_pending", target) == 2
    assert _metric(text, "plumbline_outbox_dead", target) == 0
    assert _metric(text, "plumbline_outbox_lag_seconds", target) > 0
    attempts = f'outcome="failed",{target}'
    _wait(
        lambda: (
            _metric(
                httpx.get(f"{upstream.url}/metrics").text,
                "plumbline_forward_attempts_total",
                attempts,
            )
            >= 2
        )
    )


def test_the_openlineage_client_with_api_key_auth_works_unchanged(make_server, db_url: str) -> None:
    from openlineage.client import OpenLineageClient
    from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
    from openlineage.client.transport.http import ApiKeyTokenProvider, HttpConfig, HttpTransport

    from plumbline.server.tokens import create_token

    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    token = create_token(engine, "ol-client", "write", ["shop"])
    config = HttpConfig(url=server.url, auth=ApiKeyTokenProvider({"apiKey": token}))
    client = OpenLineageClient(transport=HttpTransport(config))
    run_id = str(uuid.uuid4())
    client.emit(
        RunEvent(
            eventType=RunState.START,
            eventTime="2026-01-01T00:00:00Z",
            run=Run(runId=run_id),
            job=Job(namespace="shop", name="from_client"),
            producer="https://example.com/client",
        )
    )
    with engine.connect() as connection:
        rows = connection.execute(
            sa.select(lineage_events.c.token_name, lineage_events.c.run_uuid)
        ).all()
    engine.dispose()
    assert [tuple(r) for r in rows] == [("ol-client", run_id)]
