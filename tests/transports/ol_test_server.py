"""A real HTTP server on a free local port that records what it receives, for transport tests.

It answers 201 by default; it can be told to answer a given status for the next N requests, to
reject events that fail a predicate (with the plumbline server's answers: 422 and its error shape,
or 201 listing the rejected indexes of a batch), and to hang before answering.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    raw: bytes  # the body as sent on the wire
    body: Any  # the JSON document (after gunzip when Content-Encoding: gzip)


class LineageServer:
    def __init__(self) -> None:
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._failures: list[tuple[int, dict[str, Any]]] = []
        self.reject: Callable[[Any], str | None] | None = None  # event -> reason, or None
        self.atomic_batches = False
        self.hang_seconds = 0.0
        self.release = threading.Event()  # set to end every hang early
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def fail_next(self, status: int, count: int = 1, message: str = "induced failure") -> None:
        """Answer `status` (with `{"code", "message"}`) to the next `count` requests."""
        with self._lock:
            self._failures.extend([(status, {"code": status, "message": message})] * count)

    def wait_for(self, count: int, timeout: float = 10.0) -> None:
        """Block until at least `count` requests arrived."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(self.received) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"expected {count} requests, got {len(self.received)}")
                self._arrived.wait(remaining)

    @property
    def events(self) -> list[Any]:
        """Every event received, batches flattened, in arrival order."""
        out: list[Any] = []
        for r in self.received:
            out.extend(r.body if isinstance(r.body, list) else [r.body])
        return out

    def _answer(self, body: Any) -> tuple[int, dict[str, Any] | None]:
        with self._lock:
            if self._failures:
                return self._failures.pop(0)
        if self.reject is None:
            return 201, None
        is_batch = isinstance(body, list)
        items = body if is_batch else [body]
        errors = []
        for index, item in enumerate(items):
            reason = self.reject(item)
            if reason:
                errors.append(
                    {"index": index if is_batch else None, "field": "", "message": reason}
                )
        if not errors:
            return 201, None
        # Like plumbline's server: a batch is accepted in part (201 listing the rejected indexes)
        # unless nothing in it is valid; with atomic_batches, any bad event fails the whole batch.
        if is_batch and len(errors) < len(items) and not self.atomic_batches:
            rejected = [e["index"] for e in errors]
            return 201, {
                "accepted": len(items) - len(errors),
                "rejected": rejected,
                "errors": errors,
            }
        message = "invalid events" if is_batch else "the event breaks the OpenLineage specification"
        return 422, {"code": 422, "message": message, "errors": errors}

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                data = (
                    gzip.decompress(raw) if self.headers.get("Content-Encoding") == "gzip" else raw
                )
                body = json.loads(data)
                record = Received(
                    "POST", self.path, {k.lower(): v for k, v in self.headers.items()}, raw, body
                )
                with server._lock:
                    server.received.append(record)
                    server._arrived.notify_all()
                if server.hang_seconds:
                    server.release.wait(server.hang_seconds)
                status, answer = server._answer(body)
                payload = json.dumps(answer).encode() if answer is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler

    def start(self) -> LineageServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self._httpd.shutdown()
        self._httpd.server_close()


@contextlib.contextmanager
def running_server() -> Iterator[LineageServer]:
    server = LineageServer().start()
    try:
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def dead_port() -> Iterator[str]:
    """A URL on a local port that refuses connections (bound, never listening)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


def make_event(n: int, event_type: str = "COMPLETE") -> dict[str, Any]:
    """A small valid OpenLineage RunEvent, distinguishable by `n`."""
    return {
        "eventType": event_type,
        "eventTime": f"2026-11-21T10:00:{n % 60:02d}.000Z",
        "run": {"runId": f"0190a0a0-0000-7000-8000-{n:012d}"},
        "job": {"namespace": "tests", "name": f"job_{n}"},
        "inputs": [],
        "outputs": [{"namespace": "file", "name": f"/data/out_{n}"}],
        "producer": "https://example.com/plumbline-tests",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }
