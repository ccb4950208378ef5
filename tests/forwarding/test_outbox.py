"""The outbox: enqueue in the caller's transaction, per-run ordering, retries, dead letters, retry API.

Events are enqueued the way ingestion does it (``forwarding.enqueue`` inside a transaction) and
delivered by the server's real worker to a real local HTTP endpoint.
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import timedelta

import httpx
import pytest
import sqlalchemy as sa
from downstream_server import Downstream

from plumbline.server import forwarding
from plumbline.server.outbox import OutboxPolicy
from plumbline.server.settings import ForwardTarget, ServerSettings
from plumbline.store import outbox as queue
from plumbline.store.schema import outbox

FAST = OutboxPolicy(max_attempts=3, base_delay_s=0.05, max_delay_s=0.1, poll_interval_s=0.05)


def _body(run_id: str, seq: int) -> bytes:
    # odd spacing and key order on purpose: forwarding must not re-serialize
    return (
        '{"eventType":"RUNNING",  "eventTime": "2026-01-01T00:00:00Z", "seq": ' + str(seq) + ","
        '"run": {"runId": "' + run_id + '"}, "job": {"namespace": "ns", "name": "j"},'
        '"producer": "https://example.com/p", "schemaURL": '
        '"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"}'
    ).encode()


def _enqueue(server_app, events: list[tuple[bytes, str | None]]) -> None:
    settings: ServerSettings = server_app.state.settings
    with server_app.state.store.engine.begin() as connection:
        forwarding.enqueue(connection, settings, events)


def _status(url: str) -> dict:
    response = httpx.get(f"{url}/api/v1/forwarding")
    assert response.status_code == 200, response.text
    return response.json()


def test_events_arrive_byte_for_byte_in_run_order_with_target_auth(
    make_server, downstream: Downstream
) -> None:
    target = ForwardTarget(url=downstream.url, api_key="downstream-key", headers={"X-Team": "blue"})
    server = make_server(forward=(target,))
    runs = [str(uuid.uuid4()) for _ in range(3)]
    events = [(_body(runs[i % 3], i), runs[i % 3]) for i in range(30)]
    _enqueue(server.app, events)

    downstream.wait_for(lambda d: len(d.received) == 30)
    assert sorted(downstream.bodies()) == sorted(body for body, _ in events)
    for run in runs:
        seqs = [r.event["seq"] for r in downstream.received if r.event["run"]["runId"] == run]
        assert seqs == sorted(seqs) and len(seqs) == 10
    first = downstream.received[0]
    assert first.path == "/api/v1/lineage"
    assert first.headers["authorization"] == "Bearer downstream-key"
    assert first.headers["x-team"] == "blue"
    assert first.headers["content-type"] == "application/json"

    status = _status(server.url)
    assert status["targets"] == [
        {
            "target": f"{downstream.url}/api/v1/lineage",
            "configured": True,
            "pending": 0,
            "delivered": 30,
            "dead": 0,
            "oldestPendingAt": None,
            "lagSeconds": 0.0,
        }
    ]
    assert status["deadEvents"] == []


def test_enqueue_rolls_back_with_the_callers_transaction(
    make_server, downstream: Downstream
) -> None:
    server = make_server(forward=(ForwardTarget(url=downstream.url),))
    with pytest.raises(RuntimeError):
        with server.app.state.store.engine.begin() as connection:
            forwarding.enqueue(connection, server.app.state.settings, [(_body("r", 1), "r")])
            raise RuntimeError("the event could not be stored")
    with server.app.state.store.engine.connect() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(outbox)).scalar() == 0


def test_no_targets_means_no_rows(make_server) -> None:
    server = make_server()
    _enqueue(server.app, [(_body("r", 1), "r")])
    with server.app.state.store.engine.connect() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(outbox)).scalar() == 0
    assert _status(server.url) == {"targets": [], "deadEvents": []}


def test_failures_back_off_then_go_dead_and_can_be_retried(
    make_server, downstream: Downstream
) -> None:
    downstream.fail_with = 503
    server = make_server(forward=(ForwardTarget(url=downstream.url),), outbox=FAST)
    _enqueue(server.app, [(_body("run-a", 1), "run-a"), (_body("run-b", 2), "run-b")])

    deadline = time.monotonic() + 20
    while _status(server.url)["targets"][0]["dead"] < 2:
        assert time.monotonic() < deadline, _status(server.url)
        time.sleep(0.05)
    status = _status(server.url)
    assert status["targets"][0]["pending"] == 0
    assert status["targets"][0]["delivered"] == 0
    assert {e["runId"] for e in status["deadEvents"]} == {"run-a", "run-b"}
    assert all(e["attempts"] == 3 for e in status["deadEvents"])
    assert all(e["lastError"].startswith("HTTP 503") for e in status["deadEvents"])
    assert downstream.failures == 6  # 3 attempts each, then no more
    time.sleep(0.3)
    assert downstream.failures == 6

    metrics = httpx.get(f"{server.url}/metrics").text
    label = f'target="{downstream.url}/api/v1/lineage"'
    assert f"plumbline_outbox_dead{{{label}}} 2.0" in metrics
    assert f"plumbline_outbox_pending{{{label}}} 0.0" in metrics

    downstream.fail_with = None
    one = status["deadEvents"][0]["id"]
    assert httpx.post(f"{server.url}/api/v1/forwarding/retry", json={"ids": [one]}).json() == {
        "retried": 1
    }
    downstream.wait_for(lambda d: len(d.received) == 1)
    retried = httpx.post(
        f"{server.url}/api/v1/forwarding/retry", json={"target": downstream.url}
    ).json()
    assert retried == {"retried": 1}
    downstream.wait_for(lambda d: len(d.received) == 2)
    assert sorted(downstream.bodies()) == sorted([_body("run-a", 1), _body("run-b", 2)])
    time.sleep(0.2)
    final = _status(server.url)["targets"][0]
    assert (final["pending"], final["delivered"], final["dead"]) == (0, 2, 0)


def test_a_4xx_answer_is_final_at_once(make_server, downstream: Downstream) -> None:
    downstream.fail_with = 400
    server = make_server(forward=(ForwardTarget(url=downstream.url),), outbox=FAST)
    _enqueue(server.app, [(_body("run-a", 1), "run-a")])
    deadline = time.monotonic() + 10
    while _status(server.url)["targets"][0]["dead"] < 1:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    [dead] = _status(server.url)["deadEvents"]
    assert dead["attempts"] == 1
    assert dead["lastError"] == 'HTTP 400: {"message": "flaky on purpose"}'


def test_claim_keeps_per_run_order_behind_an_event_waiting_to_retry(engine) -> None:
    target = "http://downstream.example/api/v1/lineage"
    bodies = [(f'{{"n": {i}}}'.encode(), run) for i, run in enumerate("AABBA")] + [(b"{}", None)]
    with engine.begin() as connection:
        queue.enqueue_rows(connection, [target], bodies)
        ids = connection.execute(sa.select(outbox.c.id).order_by(outbox.c.id)).scalars().all()
        # the first event of run A failed and waits for its retry
        connection.execute(
            sa.update(outbox)
            .where(outbox.c.id == ids[0])
            .values(next_attempt_at=queue.utcnow() + timedelta(minutes=5), attempts=1)
        )
    with engine.begin() as connection:
        claimed = queue.claim_due(connection, target, limit=100)
    assert [(row.id, row.run_uuid) for row in claimed] == [
        (ids[2], "B"),
        (ids[3], "B"),
        (ids[5], None),
    ]
    with engine.begin() as connection:  # B's first is not claimed (limit): B's second must wait too
        assert [row.id for row in queue.claim_due(connection, target, limit=1)] == [ids[2]]
    with engine.begin() as connection:  # once A's first is dead, A's later events may go
        queue.mark_failed(connection, queue.OutboxRow(ids[0], target, "A", b"", 1), "x", None)
        assert [row.id for row in queue.claim_due(connection, target, limit=100)] == [
            ids[1],
            ids[2],
            ids[3],
            ids[4],
            ids[5],
        ]


def test_summary_counts_statuses_per_target(engine) -> None:
    with engine.begin() as connection:
        queue.enqueue_rows(connection, ["http://a/x", "http://b/y"], [(b"1", "r"), (b"2", "r")])
        first_a = (
            connection.execute(
                sa.select(outbox.c.id).where(outbox.c.target == "http://a/x").order_by(outbox.c.id)
            )
            .scalars()
            .first()
        )
        queue.mark_delivered(connection, [first_a])
    with engine.connect() as connection:
        summaries = queue.summarize(connection)
    assert [(s.target, s.pending, s.delivered, s.dead) for s in summaries] == [
        ("http://a/x", 1, 1, 0),
        ("http://b/y", 2, 0, 0),
    ]
    assert all(s.oldest_pending_at is not None for s in summaries)
    assert json.dumps([s.lag_seconds(queue.utcnow()) < 60 for s in summaries]) == "[true, true]"


def test_delivered_rows_are_pruned_after_the_retention(engine) -> None:
    target = "http://a/x"
    with engine.begin() as connection:
        queue.enqueue_rows(connection, [target], [(b"old", "r"), (b"new", "r"), (b"waiting", "s")])
        old, new, _waiting = connection.execute(
            sa.select(outbox.c.id).order_by(outbox.c.id)
        ).scalars()
        queue.mark_delivered(connection, [old, new])
        connection.execute(
            sa.update(outbox)
            .where(outbox.c.id == old)
            .values(delivered_at=queue.utcnow() - timedelta(days=8))
        )
        assert queue.prune_delivered(connection, target, timedelta(days=7)) == 1
        left = connection.execute(
            sa.select(outbox.c.body, outbox.c.status).order_by(outbox.c.id)
        ).all()
    assert [(bytes(body), status) for body, status in left] == [
        (b"new", "delivered"),
        (b"waiting", "pending"),
    ]


def test_policy_from_environment() -> None:
    policy = OutboxPolicy.from_env(
        {"PLUMBLINE_OUTBOX_MAX_ATTEMPTS": "4", "PLUMBLINE_OUTBOX_BASE_DELAY": "0.5"}
    )
    assert (policy.max_attempts, policy.base_delay_s, policy.max_delay_s) == (4, 0.5, 300.0)
    assert OutboxPolicy(base_delay_s=1, max_delay_s=5).backoff(10).total_seconds() <= 5
    assert 2.0 <= OutboxPolicy(base_delay_s=1).backoff(3).total_seconds() <= 4.0
    with pytest.raises(ValueError, match="max_attempts must be a number"):
        OutboxPolicy.from_env({"PLUMBLINE_OUTBOX_MAX_ATTEMPTS": "many"})


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_two_servers_on_one_postgresql_deliver_each_event_once_in_run_order(
    make_server, downstream: Downstream
) -> None:
    target = (ForwardTarget(url=downstream.url),)
    first = make_server(forward=target)
    make_server(forward=target)  # a second gateway on the same database: competes for rows
    runs = [str(uuid.uuid4()) for _ in range(20)]
    events = [(_body(runs[i % 20], i), runs[i % 20]) for i in range(300)]
    _enqueue(first.app, events)
    downstream.wait_for(lambda d: len(d.received) >= 300, timeout=120)
    time.sleep(0.5)
    received = downstream.bodies()
    assert len(received) == 300 and set(received) == {body for body, _ in events}
    for run in runs:
        seqs = [r.event["seq"] for r in downstream.received if r.event["run"]["runId"] == run]
        assert seqs == sorted(seqs)
