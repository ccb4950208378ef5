"""Slow uploads do not starve ingestion (issue 28 item 6), on both backends, with real sockets
against a live server: a body reserves memory as its bytes arrive (a client that declares
10 MB and sends 1 byte holds 2 bytes, not 200 MB), a body slower than the minimum rate is
answered 408 and gives its reservation back, and one client (a token; in open mode an address)
holds at most its share of the budget, so another client's writes still get through."""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import httpx
from ingest_helpers import count, event

from plumbline.server.ingest_budget import minimum_budget
from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine

Server = Callable[..., Any]
DECLARED = 10485000
LIMIT = 64 * 1024


def _batch(events: int, job: str) -> bytes:
    return json.dumps([event(str(uuid.uuid4()), job=job) for _ in range(events)]).encode()


def _upload(
    url: str, declared: int, sent: bytes, source: str = "127.0.0.1", token: str | None = None
) -> socket.socket:
    """A POST that declares ``declared`` bytes of body and sends ``sent`` of them, left open."""
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    port = urlsplit(url).port
    sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))
    head = (
        f"POST /api/v1/lineage HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"{auth}Content-Type: application/json\r\nContent-Length: {declared}\r\n\r\n"
    )
    sock.sendall(head.encode() + sent)
    return sock


def _status(sock: socket.socket, timeout: float) -> int | None:
    """The status the server answered on ``sock`` within ``timeout`` s (None: none yet)."""
    sock.settimeout(timeout)
    try:
        line = sock.recv(64)
    except TimeoutError:
        return None
    return int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else None


@contextmanager
def _open(sockets: list[socket.socket]) -> Iterator[list[socket.socket]]:
    try:
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def test_slow_uploads_do_not_starve_ingestion(make_server: Server) -> None:
    server = make_server(body_timeout_seconds=120.0)  # the default budget and body limit
    budget = server.app.state.ingest_budget
    slow = [_upload(server.url, DECLARED, b"[", source="127.0.0.2") for _ in range(12)]
    with _open(slow):
        time.sleep(0.5)  # every slow request is in, holding what it holds
        assert budget.in_flight <= 2 * len(slow)  # 2 bytes each, not 19 x 10 MB
        answers = [
            httpx.post(server.lineage_url, content=_batch(20, f"legit-{n}"), timeout=30,
                       headers={"Content-Type": "application/json"})
            for n in range(10)
        ]  # fmt: skip
        assert [a.status_code for a in answers] == [201] * 10, answers[-1].text
        assert all(_status(sock, 0.01) is None for sock in slow)  # still open, unanswered
    assert count(server.db_url, "lineage_events") == 200


def test_a_body_slower_than_the_minimum_rate_is_408(make_server: Server) -> None:
    server = make_server(body_timeout_seconds=1.0, body_min_rate=1024)
    budget = server.app.state.ingest_budget
    started = time.monotonic()
    with _open([_upload(server.url, DECLARED, b"[" * 100)]) as (sock,):
        status = _status(sock, 15)
    assert status == 408
    assert time.monotonic() - started < 10  # 1 s, plus 100 bytes at 1 KiB/s, plus slack
    for _ in range(300):
        if budget.in_flight == 0:
            break
        time.sleep(0.01)
    assert budget.in_flight == 0
    # a body that keeps the rate is read to its end
    body = _batch(5, "steady")
    with _open([_upload(server.url, len(body), body[:10])]) as (sock,):
        for start in range(10, len(body), 600):
            time.sleep(0.3)  # 2,000 bytes/s, over the minimum
            sock.sendall(body[start : start + 600])
        assert _status(sock, 15) == 201


def test_one_client_holds_at_most_its_share_of_the_budget(make_server: Server) -> None:
    """An address that holds many large uploads open gets 503 past half the budget; another
    address's largest batch still gets through."""
    per_request = 21 * LIMIT
    server = make_server(
        max_body_bytes=LIMIT,
        ingest_memory_bytes=minimum_budget(LIMIT) + 4 * per_request,  # 5 largest requests
        body_timeout_seconds=120.0,
    )
    budget = server.app.state.ingest_budget
    budget.wait_seconds = 0
    hogs = [_upload(server.url, LIMIT, b"[" * (LIMIT - 1), "127.0.0.2") for _ in range(50)]
    with _open(hogs):
        refused = [_status(sock, 0.2) for sock in hogs]
        assert refused.count(503) > 0  # past its share, at once
        assert budget.held_by("address:127.0.0.2") <= budget.share
        answer = httpx.post(server.lineage_url, content=_largest(), timeout=30,
                            headers={"Content-Type": "application/json"})  # fmt: skip
        assert answer.status_code == 201, answer.text


def test_one_token_holds_at_most_its_share_of_the_budget(make_server: Server) -> None:
    """With tokens, the share is the token's: another tenant's writes from the same address
    get through while one tenant's uploads hold its share."""
    server = make_server(
        auth="required",
        max_body_bytes=LIMIT,
        ingest_memory_bytes=minimum_budget(LIMIT) + 4 * 21 * LIMIT,
        body_timeout_seconds=120.0,
    )
    budget = server.app.state.ingest_budget
    budget.wait_seconds = 0
    engine = create_store_engine(server.db_url)
    try:
        hog, tenant = (create_token(engine, name, "write") for name in ("hog", "tenant"))
    finally:
        engine.dispose()
    hogs = [_upload(server.url, LIMIT, b"[" * (LIMIT - 1), token=hog) for _ in range(50)]
    with _open(hogs):
        assert [_status(sock, 0.2) for sock in hogs].count(503) > 0
        assert budget.held_by("token:hog") <= budget.share
        answer = httpx.post(server.lineage_url, content=_largest(), timeout=30,
                            headers={"Content-Type": "application/json",
                                     "Authorization": f"Bearer {tenant}"})  # fmt: skip
        assert answer.status_code == 201, answer.text


def _largest() -> bytes:
    """A batch just under LIMIT."""
    events = 1
    while len(_batch(events + 1, "legit")) < LIMIT:
        events += 1
    return _batch(events, "legit")
