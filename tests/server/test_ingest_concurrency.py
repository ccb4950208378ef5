"""Several producers at once: 8 clients posting single events to a live server never deadlock and
never lose an event, on SQLite (one writer) and PostgreSQL (concurrent transactions)."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import httpx
import pytest
from ingest_helpers import count, event

CLIENTS = 8
EVENTS_PER_CLIENT = 12


@pytest.mark.slow
def test_eight_concurrent_clients(live_server: Any) -> None:
    statuses: list[int] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(CLIENTS)

    def client(index: int) -> None:
        try:
            with httpx.Client(timeout=120) as http:
                barrier.wait()
                for i in range(EVENTS_PER_CLIENT // 2):
                    run_id = str(uuid.uuid4())
                    # overlapping datasets and jobs across clients
                    for event_type in ("START", "COMPLETE"):
                        body = event(run_id, event_type, job=f"job_{(index + i) % 3}")
                        body["inputs"] = [{"namespace": "db", "name": f"t{(index + i) % 4}"}]
                        body["outputs"] = [{"namespace": "db", "name": f"t{(index + i + 1) % 4}"}]
                        response = http.post(f"{live_server.url}/api/v1/lineage", json=body)
                        statuses.append(response.status_code)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads)
    assert errors == []
    assert statuses == [201] * (CLIENTS * EVENTS_PER_CLIENT)
    assert count(live_server.db_url, "lineage_events") == CLIENTS * EVENTS_PER_CLIENT
    assert count(live_server.db_url, "runs") == CLIENTS * EVENTS_PER_CLIENT // 2
    assert count(live_server.db_url, "run_states") == CLIENTS * EVENTS_PER_CLIENT
    assert count(live_server.db_url, "datasets") == 4
