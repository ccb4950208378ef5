"""Conflicting run events over HTTP: a run id given to two jobs in one request is rejected with its
reason; conflicts found later are counted in /metrics; latestRun and ?lastRunStates agree."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from ingest_helpers import event, post


def test_a_run_id_of_two_jobs_in_one_request_rejects_the_second(live_server: Any) -> None:
    run = str(uuid.uuid4())
    body = [event(run, "START", job="first"), event(run, "COMPLETE", job="second")]
    response = post(live_server.url, body)
    assert response.status_code == 201
    answer = response.json()
    assert (answer["accepted"], answer["rejected"]) == (1, [1])
    (error,) = answer["errors"]
    assert (error["index"], error["field"]) == (1, "run.runId")
    assert "already the run of job http-tests:first in this request" in error["message"]


def test_conflicts_are_counted_in_metrics(live_server: Any) -> None:
    run = str(uuid.uuid4())
    post(live_server.url, [event(run, "START"), event(run, "COMPLETE")])
    post(live_server.url, event(run, "FAIL"))  # the same eventTime as the COMPLETE
    httpx.get(f"{live_server.url}/api/v1/namespaces", timeout=30)  # waits for normalization
    metrics = httpx.get(f"{live_server.url}/metrics", timeout=30).text
    line = next(
        line
        for line in metrics.splitlines()
        if line.startswith('plumbline_lineage_conflicts_total{kind="complete_and_fail_same_time"}')
    )
    assert float(line.split()[-1]) >= 1
    run_doc = httpx.get(f"{live_server.url}/api/v1/jobs/runs/{run}", timeout=30).json()
    assert run_doc["state"] == "FAILED"


def test_last_run_states_and_latest_run_agree_after_a_backfill(live_server: Any) -> None:
    newer, older = str(uuid.uuid4()), str(uuid.uuid4())
    failed = event(newer, "FAIL", eventTime="2024-03-02T12:00:00Z")
    completed = event(older, "COMPLETE", eventTime="2024-03-01T12:00:00Z")
    post(live_server.url, failed)
    post(live_server.url, completed)  # back-filled: older, arrives last
    url = f"{live_server.url}/api/v1/namespaces/http-tests/jobs"
    job = httpx.get(f"{url}/job", timeout=30).json()
    assert (job["latestRun"]["id"], job["latestRun"]["state"]) == (newer, "FAILED")
    completed_jobs = httpx.get(url, params={"lastRunStates": "COMPLETED"}, timeout=30).json()
    assert completed_jobs["jobs"] == []
    failed_jobs = httpx.get(url, params={"lastRunStates": "FAILED"}, timeout=30).json()["jobs"]
    assert [j["latestRun"]["state"] for j in failed_jobs] == ["FAILED"]
