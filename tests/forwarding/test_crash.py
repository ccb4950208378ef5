"""Crash test: load while the gateway is SIGKILLed and restarted and a downstream fails at random.

The gateway runs as a real `python -m plumbline serve` subprocess forwarding to a second plumbline
server and to a flaky HTTP endpoint (503 at random). Afterwards every event that got a 201 has
arrived at both at least once, and everything received is byte-identical to an event a client sent
(duplicates are only redeliveries). Events of one run arrive in order (first arrivals).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from downstream_server import running_downstream
from server_process import Gateway

from plumbline.store.engine import create_store_engine
from plumbline.store.schema import lineage_events

REPO = Path(__file__).resolve().parents[2]
KILLS = 3
KILL_EVERY_S = 3.0  # uptime between two kills
LOAD_SECONDS = 30  # at most, after the last restart, to reach TARGET_EVENTS
TARGET_EVENTS = 1500
STALL_S = 30.0  # the drain fails when the outbox does not shrink for this long
CLIENTS = 4
BATCH = 20  # events per request (a batch is forwarded event by event, each compact JSON)
EVENT_TYPES = ("START", "RUNNING", "COMPLETE")

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def gateway_factory() -> Iterator[list[Gateway]]:
    started: list[Gateway] = []
    yield started
    for gateway in started:
        gateway.stop()


def _event(run_id: str, job: str, event_type: str) -> bytes:
    return json.dumps(
        {
            "eventType": event_type,
            "eventTime": "2026-01-01T00:00:00Z",
            "run": {"runId": run_id},
            "job": {"namespace": "crash", "name": job},
            "inputs": [{"namespace": "file", "name": f"/data/{job}/in"}],
            "outputs": [{"namespace": "file", "name": f"/data/{job}/out"}],
            "producer": "https://example.com/crash-test",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        },
        separators=(",", ":"),
    ).encode()


def test_every_accepted_event_arrives_despite_sigkill_and_a_flaky_downstream(
    db_url: str, tmp_path: Path, gateway_factory: list[Gateway]
) -> None:
    downstream_db = f"sqlite:///{tmp_path / 'downstream.db'}"
    downstream_plumbline = Gateway(["--db", downstream_db, "--port", "0"], dict(os.environ))
    gateway_factory.append(downstream_plumbline)
    downstream_plumbline.start()
    with running_downstream(failure_rate=0.2, seed=11) as flaky:
        port = _free_port()
        env = {
            **os.environ,
            "PLUMBLINE_OUTBOX_MAX_ATTEMPTS": "1000",
            "PLUMBLINE_OUTBOX_BASE_DELAY": "0.02",
            "PLUMBLINE_OUTBOX_MAX_DELAY": "0.2",
            "PLUMBLINE_OUTBOX_POLL_INTERVAL": "0.1",
        }
        args = [
            "--db",
            db_url,
            "--port",
            str(port),
            "--forward",
            downstream_plumbline.url,
            "--forward",
            flaky.url,
        ]
        gateway = Gateway(args, env)
        gateway_factory.append(gateway)
        gateway.start()

        sent: set[bytes] = set()  # every body a client tried to post
        accepted: list[bytes] = []  # bodies answered 201
        lock = threading.Lock()
        stop = threading.Event()
        kills = 0

        def client(index: int) -> None:
            with httpx.Client(timeout=10) as http:
                while not stop.is_set():
                    run_ids = [str(uuid.uuid4()) for _ in range(BATCH)]
                    for event_type in EVENT_TYPES:
                        bodies = [_event(run_id, f"job_{index}", event_type) for run_id in run_ids]
                        with lock:
                            sent.update(bodies)
                        while True:  # like a producer's retrying transport: same batch again
                            try:
                                response = http.post(
                                    f"http://127.0.0.1:{port}/api/v1/lineage",
                                    content=b"[" + b",".join(bodies) + b"]",
                                    headers={"Content-Type": "application/json"},
                                )
                            except httpx.HTTPError:
                                time.sleep(0.05)
                                continue
                            if response.status_code == 201:
                                assert response.json()["accepted"] == BATCH
                                with lock:
                                    accepted.extend(bodies)
                                break
                            assert response.status_code >= 500, response.text
                            time.sleep(0.05)

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(CLIENTS)]
        for thread in threads:
            thread.start()
        while kills < KILLS:
            time.sleep(KILL_EVERY_S)
            gateway.kill()
            kills += 1
            gateway.start()
        load_end = time.monotonic() + LOAD_SECONDS
        while time.monotonic() < load_end and len(accepted) < TARGET_EVENTS:
            time.sleep(0.1)
        stop.set()
        for thread in threads:
            thread.join(30)

        expected = set(accepted)
        print("CRASHSTATS", kills, len(expected), len(sent))
        assert len(expected) >= 1000, f"only {len(expected)} events were accepted"

        # let the last gateway drain its outbox; fail when it stops making progress
        last_progress, last_pending = time.monotonic(), None
        while True:
            targets = httpx.get(f"{gateway.url}/api/v1/forwarding", timeout=30).json()["targets"]
            pending = sum(t["pending"] for t in targets)
            if pending == 0:
                break
            if last_pending is None or pending < last_pending:
                last_progress, last_pending = time.monotonic(), pending
            assert time.monotonic() - last_progress < STALL_S, targets
            time.sleep(0.2)
        assert [t["dead"] for t in targets] == [0, 0]

    received = flaky.bodies()
    assert expected - set(received) == set(), "accepted events lost on the flaky downstream"
    assert set(received) <= sent, "the flaky downstream got something no client sent"
    assert flaky.failures > 0

    engine = create_store_engine(downstream_db)
    with engine.connect() as connection:
        stored = connection.execute(sa.select(lineage_events.c.payload)).scalars().all()
    engine.dispose()

    def canonical(document: object) -> str:
        return json.dumps(document, sort_keys=True)

    assert {canonical(json.loads(b)) for b in expected} - {canonical(p) for p in stored} == set()

    # events of one run reached the flaky downstream in acceptance order (first arrivals)
    first_seen: dict[str, list[str]] = {}
    for body in dict.fromkeys(received):
        event = json.loads(body)
        first_seen.setdefault(event["run"]["runId"], []).append(event["eventType"])
    out_of_order = {
        run: types for run, types in first_seen.items() if types != list(EVENT_TYPES)[: len(types)]
    }
    assert out_of_order == {}
