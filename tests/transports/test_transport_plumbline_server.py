"""The transports against the real plumbline server (both store backends, auth required)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from ol_test_server import make_event

from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine
from plumbline.transports import AsyncEmitter, EmitterStats, TransportConfig, create_transport


def test_emitter_into_the_plumbline_server(make_server, db_url: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    live = make_server(auth="required")
    engine = create_store_engine(db_url)
    token = create_token(engine, "capture", "write")
    engine.dispose()

    invalid = {k: v for k, v in make_event(9).items() if k != "eventTime"}
    spill = tmp_path / "spill.jsonl"
    config = TransportConfig(type="http", url=live.url, api_key=token, compression="gzip")
    emitter = AsyncEmitter(create_transport(config), spill_path=spill, retries=1, backoff=0.01)
    for event in (make_event(1), make_event(2), invalid, make_event(3)):
        emitter.submit(event)
    assert emitter.close(timeout=30) is True
    assert emitter.stats == EmitterStats(submitted=4, sent=3, spilled=1, failed=1)
    assert [json.loads(line) for line in spill.read_text().splitlines()] == [invalid]

    stored = httpx.get(
        f"{live.url}/api/v1/events/lineage", headers={"Authorization": f"Bearer {token}"}
    ).json()["events"]
    assert sorted(e["run"]["runId"] for e in stored) == [
        make_event(i)["run"]["runId"] for i in (1, 2, 3)
    ]


def test_wrong_api_key_spills_without_retrying(make_server, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    live = make_server(auth="required")
    spill = tmp_path / "spill.jsonl"
    config = TransportConfig(type="http", url=live.url + "/", api_key="not-a-real-token")
    emitter = AsyncEmitter(create_transport(config), spill_path=spill, retries=3, backoff=5)
    emitter.submit(make_event(1))
    emitter.submit(make_event(2))
    assert emitter.close(timeout=5) is True  # a 401 is final: no 5 s backoff waits
    assert emitter.stats == EmitterStats(submitted=2, spilled=2, failed=2)
    assert [json.loads(line) for line in spill.read_text().splitlines()] == [
        make_event(1),
        make_event(2),
    ]
