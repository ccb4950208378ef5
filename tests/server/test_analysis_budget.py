"""The analysis memory budget (issue 28 item 5) over real HTTP, on both stores: while reads hold
all of it, every analysis route answers 503 with Retry-After after its short wait and other reads
answer at once; as soon as a read's share is given back, analysis answers again."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx

from plumbline.server.read_budget import ANALYSIS_MEMORY_BYTES, ANALYSIS_READ_BYTES

PRODUCER = "https://example.com/producer"


def _settled(budget: Any) -> int:
    """What the budget holds once the reads answered have given their share back (a read's
    share is given back as its answer is sent: a moment after the client has it)."""
    deadline = time.monotonic() + 10
    while budget.reserved and time.monotonic() < deadline:
        time.sleep(0.01)
    return int(budget.reserved)


def _event(run: str) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-01-01T00:00:00Z",
        "run": {"runId": run},
        "job": {"namespace": "team", "name": "etl"},
        "inputs": [{"namespace": "lake", "name": "raw"}],
        "outputs": [{"namespace": "lake", "name": "clean"}],
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


def test_analysis_reads_share_a_memory_budget(make_server: Any) -> None:
    server = make_server()
    run = str(uuid.uuid4())
    assert httpx.post(f"{server.url}/api/v1/lineage", json=_event(run)).status_code == 201
    with httpx.Client(base_url=server.url + "/api/v1", timeout=60) as client:
        versions = client.get("/namespaces/lake/datasets/clean/versions").json()["versions"]
        version = versions[0]["version"]
        analysis = [
            ("/lineage", {"nodeId": "dataset:lake:clean"}),
            ("/column-lineage", {"nodeId": "dataset:lake:clean"}),
            ("/runlineage/upstream", {"runId": run}),
            ("/impact", {"nodeId": "dataset:lake:raw"}),
            ("/rerun-plan", {"nodeId": "dataset:lake:clean", "version": version}),
            (f"/jobs/runs/{run}/diff", {}),
            ("/diff", {"nodeId": "job:team:etl"}),
            (f"/jobs/runs/{run}/root-cause", {"depth": "50"}),
            ("/root-cause", {"nodeId": "dataset:lake:clean"}),
            (f"/namespaces/lake/datasets/clean/versions/{version}/lineage", {}),
        ]
        for path, params in analysis:
            answer = client.get(path, params=params)
            assert answer.status_code == 200, (path, answer.text)

        budget = server.app.state.analysis_budget
        budget.wait_seconds = 0.3  # the documented 3 s, shorter for the test
        assert budget.capacity == ANALYSIS_MEMORY_BYTES
        assert _settled(budget) == 0
        # what reads in flight hold: as many as fit
        held = [budget.reservation() for _ in range(ANALYSIS_MEMORY_BYTES // ANALYSIS_READ_BYTES)]
        for reservation in held:
            reservation.reserve(ANALYSIS_READ_BYTES)
        try:
            for path, params in analysis:
                began = time.monotonic()
                answer = client.get(path, params=params)
                assert answer.status_code == 503, (path, answer.status_code, answer.text)
                assert time.monotonic() - began >= 0.3  # it waited for room first
                assert 1 <= int(answer.headers["retry-after"]) <= 60
                body = answer.json()
                assert body["code"] == 503
                assert body["message"].startswith(
                    "the server is answering as many analysis reads as its memory budget allows"
                )
            # reads that build no graph do not wait for it
            assert client.get("/jobs").status_code == 200
            assert client.get(f"/jobs/runs/{run}").status_code == 200
            held.pop().release(ANALYSIS_READ_BYTES)  # one read is answered: room for one
            assert client.get(f"/jobs/runs/{run}/root-cause").status_code == 200
        finally:
            for reservation in held:
                reservation.release(reservation.held)
        assert _settled(budget) == 0  # every read gave its share back


def test_root_cause_past_its_work_budget_answers_the_nearest_runs_and_says_so(
    make_server: Any,
) -> None:
    from plumbline.analysis.root_cause import MAX_COMPARED_RUNS

    server = make_server()
    writers = MAX_COMPARED_RUNS + 100
    events = []
    for i in range(writers):
        event = _event(str(uuid.uuid4()))
        event["job"] = {"namespace": "team", "name": f"w{i}"}
        event["inputs"] = []
        event["outputs"] = [{"namespace": "lake", "name": f"part{i}"}]
        events.append(event)
    sink = str(uuid.uuid4())
    last = _event(sink)
    last["eventTime"] = "2026-01-02T00:00:00Z"
    last["job"] = {"namespace": "team", "name": "sink"}
    last["inputs"] = [{"namespace": "lake", "name": f"part{i}"} for i in range(writers)]
    with httpx.Client(base_url=server.url + "/api/v1", timeout=120) as client:
        for body in (events, last):
            assert client.post("/lineage", json=body).status_code == 201
        answer = client.get(f"/jobs/runs/{sink}/root-cause")
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert (body["truncated"], body["truncatedReason"]) == (True, "work budget")
        assert len(body["upstream"]) == MAX_COMPARED_RUNS
        # within the budget the answer is whole and says so
        one = client.get(f"/jobs/runs/{events[0]['run']['runId']}/root-cause").json()
        assert (one["truncated"], one["truncatedReason"]) == (False, None)
