"""A real local HTTP server standing in for a downstream OpenLineage backend.

It records every POSTed body (raw bytes and headers) and can fail on purpose: a fixed status for a
while (``fail_with``) or at random (``failure_rate``), to exercise the forwarder's retries.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def event(self) -> dict[str, Any]:
        return json.loads(self.body)


@dataclass
class Downstream:
    url: str
    received: list[Received] = field(default_factory=list)
    failures: int = 0
    fail_with: int | None = None  # answer every POST with this status while set
    failure_rate: float = 0.0  # answer 503 at random with this probability
    redirects: dict[str, str] = field(default_factory=dict)  # path -> 307 to this Location
    lock: threading.Lock = field(default_factory=threading.Lock)

    def bodies(self) -> list[bytes]:
        with self.lock:
            return [r.body for r in self.received]

    def wait_for(self, predicate: Callable[[Downstream], bool], timeout: float = 30.0) -> None:
        """Wait until ``predicate(self)`` holds; fail with what arrived so far."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self):
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out; downstream received {len(self.received)} events")


def _handler(state: Downstream, seed: int) -> type[BaseHTTPRequestHandler]:
    rng = random.Random(seed)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if len(body) < length:  # the sender died mid-request: nothing was delivered
                self.close_connection = True
                return
            location = state.redirects.get(self.path)
            if location is not None:
                self.send_response(307)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            with state.lock:
                fail = state.fail_with
                if fail is None and state.failure_rate and rng.random() < state.failure_rate:
                    fail = 503
                if fail is None:
                    state.received.append(
                        Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                else:
                    state.failures += 1
            status = fail or 201
            payload = b'{"message": "flaky on purpose"}' if fail else b""
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    return Handler


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # senders that are SIGKILLed mid-request reset their connections: expected here
        pass


@contextmanager
def running_downstream(failure_rate: float = 0.0, seed: int = 7) -> Iterator[Downstream]:
    """A recording (and optionally flaky) OpenLineage endpoint on a free local port."""
    state = Downstream(url="")
    state.failure_rate = failure_rate
    server = _QuietServer(("127.0.0.1", 0), _handler(state, seed))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
