"""Ingestion memory is bounded as a whole (issue 15 item 3), on both backends: concurrent requests
share one budget, a request that does not fit is answered 503 + Retry-After before its body is
read and stores nothing; what the normalizer holds is given back once it is done."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from ingest_helpers import count, event

from plumbline.server.config import ConfigError, build_settings
from plumbline.server.ingest_budget import minimum_budget

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
        if budget.reserved == 0:
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"{budget.reserved} bytes still reserved")


def _held_open(url: str, body: bytes, release: threading.Event) -> tuple[threading.Thread, list]:
    """POST ``body`` with its length declared, sending the last byte only once ``release`` is
    set: the request holds its reservation meanwhile. Returns the thread and its response."""
    answers: list[httpx.Response] = []

    def slowly() -> Iterator[bytes]:
        yield body[:-1]
        release.wait(30)
        yield body[-1:]

    def send() -> None:
        headers = {"Content-Type": "application/json", "Content-Length": str(len(body))}
        answers.append(httpx.post(url, content=slowly(), headers=headers, timeout=60))

    thread = threading.Thread(target=send)
    thread.start()
    return thread, answers


def test_a_request_over_the_shared_budget_gets_503_and_retry_after(make_server: Server) -> None:
    server = make_server(max_body_bytes=LIMIT, ingest_memory_bytes=minimum_budget(LIMIT))
    release = threading.Event()
    first = _largest_batch("first")
    thread, answers = _held_open(server.lineage_url, first, release)
    try:
        budget = server.app.state.ingest_budget
        for _ in range(300):  # until the first request holds its share
            if budget.reserved:
                break
            threading.Event().wait(0.01)
        refused = httpx.post(
            server.lineage_url,
            content=_batch(40, job="second"),
            headers={"Content-Type": "application/json"},
            timeout=30,
        )
    finally:
        release.set()
        thread.join(60)
    assert refused.status_code == 503, refused.text
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["code"] == 503 and "memory budget" in refused.json()["message"]
    assert answers[0].status_code == 201, answers[0].text
    stored = answers[0].json()["stored"]
    _wait_until_all_given_back(server.app.state.ingest_budget)
    again = httpx.post(
        server.lineage_url,
        content=_batch(40, job="second"),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert again.status_code == 201
    assert count(server.db_url, "lineage_events") == stored + 40
    _wait_until_all_given_back(server.app.state.ingest_budget)


@pytest.mark.parametrize("budget", [1, minimum_budget(LIMIT) - 1])
def test_a_budget_below_one_largest_request_is_refused(budget: int) -> None:
    with pytest.raises(ConfigError, match="ingest_memory_bytes must be at least"):
        build_settings(db_url="sqlite://", max_body_bytes=LIMIT, ingest_memory_bytes=budget)
