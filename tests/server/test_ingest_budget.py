"""Ingestion memory is bounded as a whole (issue 15 item 3), on both backends: concurrent requests
share one budget; a request that does not fit waits in line for it, and when it still does not
fit is answered 503 + Retry-After and stores nothing (retried, all its
events are stored); what the normalizer holds is given back once it is done."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from ingest_helpers import count, event

from plumbline.server.config import ConfigError, build_settings
from plumbline.server.errors import APIError
from plumbline.server.ingest_budget import MAX_RETRY_AFTER, IngestBudget, minimum_budget

Server = Callable[..., Any]
LIMIT = 64 * 1024  # a small --max-body-bytes keeps the budget (and the test) small


def _batch(events: int, job: str = "job") -> bytes:
    return json.dumps([event(str(uuid.uuid4()), job=job) for _ in range(events)]).encode()


def _largest_batch(job: str) -> bytes:
    """A batch just under LIMIT: its reservation is most of the smallest budget."""
    events = 1
    while len(_batch(events + 1, job)) < LIMIT:
        events += 1
    return _batch(events, job)


def _wait_until_all_given_back(budget: Any) -> None:
    """The normalizer gives a request's parsed events' share back once it is done with them."""
    for _ in range(3000):
        if budget.in_flight == 0:
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"{budget.in_flight} bytes still reserved")


def _hold_all_but(budget: Any, left: int) -> Any:
    """What other clients' requests hold (a body reserves as its bytes arrive, so a held-open
    upload holds little: the budget is taken here as their reservations take it), leaving
    ``left`` bytes free."""
    holder = budget.reservation("address:elsewhere")
    holder.reserve(budget.capacity - budget.reserved - left)
    return holder


def test_a_request_over_the_shared_budget_gets_503_and_retry_after(make_server: Server) -> None:
    server = make_server(max_body_bytes=LIMIT, ingest_memory_bytes=minimum_budget(LIMIT))
    budget = server.app.state.ingest_budget
    budget.wait_seconds = 0  # refused without waiting in line
    holder = _hold_all_but(budget, 1000)
    refused = httpx.post(
        server.lineage_url,
        content=_batch(40, job="second"),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert refused.status_code == 503, refused.text
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["code"] == 503 and "memory budget" in refused.json()["message"]
    assert count(server.db_url, "lineage_events") == 0  # nothing of it stored
    holder.release(holder.held)
    again = httpx.post(
        server.lineage_url,
        content=_batch(40, job="second"),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert again.status_code == 201
    assert count(server.db_url, "lineage_events") == 40
    _wait_until_all_given_back(server.app.state.ingest_budget)


@pytest.mark.parametrize("budget", [1, minimum_budget(LIMIT) - 1])
def test_a_budget_below_one_largest_request_is_refused(budget: int) -> None:
    with pytest.raises(ConfigError, match="ingest_memory_bytes must be at least"):
        build_settings(db_url="sqlite://", max_body_bytes=LIMIT, ingest_memory_bytes=budget)


def test_a_request_that_does_not_fit_waits_for_the_budget_instead_of_503(
    make_server: Server,
) -> None:
    """A request waits in line while others hold the budget, and is stored once they give it
    back: no 503, no retry."""
    server = make_server(max_body_bytes=LIMIT, ingest_memory_bytes=minimum_budget(LIMIT))
    budget = server.app.state.ingest_budget
    budget.wait_seconds = 120  # longer than the test: it gets through once the budget is back
    holder = _hold_all_but(budget, 1000)
    second: list[httpx.Response] = []
    waiting = threading.Thread(
        target=lambda: second.append(
            httpx.post(
                server.lineage_url,
                content=_batch(40, job="second"),
                headers={"Content-Type": "application/json"},
                timeout=120,
            )
        )
    )
    try:
        waiting.start()
        _until(lambda: budget.waiting == 1)  # in line, not refused
    finally:
        holder.release(holder.held)
        waiting.join(120)
    assert second[0].status_code == 201, second[0].text
    assert count(server.db_url, "lineage_events") == 40
    _wait_until_all_given_back(budget)


def _until(condition: Callable[[], bool]) -> None:
    for _ in range(3000):
        if condition():
            return
        threading.Event().wait(0.01)
    raise AssertionError("the condition never held")


def test_waiting_reservations_get_through_first_come_first_served() -> None:
    """Reservations that do not fit wait in line; as the budget is given back they get through
    in the order they came, a later small one not before an earlier large one."""
    budget = IngestBudget(100, standing=0, wait_seconds=120)
    holder = budget.reservation()
    holder.reserve(100)
    order: list[str] = []
    held: dict[str, Any] = {}

    def wait_for(name: str, amount: int) -> None:
        reservation = budget.reservation()
        reservation.reserve(amount, wait=True)
        order.append(name)
        held[name] = reservation

    threads = []
    for name, amount in (("large", 80), ("small", 10), ("last", 30)):
        thread = threading.Thread(target=wait_for, args=(name, amount))
        thread.start()
        threads.append(thread)
        in_line = len(threads)
        _until(lambda: budget.waiting == in_line)  # noqa: B023 - called before the loop goes on
    holder.release(50)  # room for "small", but "large" came first
    assert budget.waiting == 3 and order == []
    holder.release(50)  # "large" fits, then "small"; "last" does not fit beside them
    _until(lambda: order == ["large", "small"])
    assert budget.waiting == 1
    held["large"].release(80)
    _until(lambda: order == ["large", "small", "last"])
    for thread in threads:
        thread.join(30)
    assert budget.reserved == 40


def test_retry_after_reflects_the_wait_expected_from_what_is_given_back() -> None:
    """With nothing given back yet the answer is the default second; once the budget is given
    back at some rate, a reservation that is short of more bytes is told to wait longer."""
    budget = IngestBudget(1000, standing=0, wait_seconds=0)
    holder = budget.reservation()
    holder.reserve(1000)
    with pytest.raises(APIError) as refused:
        budget.reservation().reserve(10)
    assert (refused.value.status, refused.value.retry_after) == (503, 1)
    holder.release(10)  # 10 bytes given back within the last second or so
    holder.reserve(10)
    waits = []
    for amount in (10, 1000):
        with pytest.raises(APIError) as refused:
            budget.reservation().reserve(amount)
        waits.append(refused.value.retry_after)
    assert 1 <= waits[0] < waits[1] <= MAX_RETRY_AFTER
