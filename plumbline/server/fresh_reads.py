"""Read-your-writes over the API: a request waits for the events accepted before it.

``POST /api/v1/lineage`` answers once its events are stored raw; they reach the lineage tables
a moment later (:mod:`plumbline.store.write.normalizer`). Every other API request first waits
until the events pending when it arrived are normalized, so a client that posted an event and
then reads sees it, whichever server process answers. When nothing is pending that costs one
indexed query. After ``READ_WAIT_SECONDS`` the request is answered anyway, with the header
``Plumbline-Pending-Events`` giving how many events it may not reflect yet.
"""

from __future__ import annotations

import time

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from plumbline.store import Store, pending_mark, pending_up_to
from plumbline.store.write import StoreWriter

READ_WAIT_SECONDS = 10.0
PENDING_HEADER = b"plumbline-pending-events"
_NOT_READS = {("POST", "/api/v1/lineage"), ("GET", "/api/v1/health")}


def wait_until_normalized(store: Store, writer: StoreWriter | None, timeout: float) -> int:
    """Wait (up to ``timeout`` seconds) until the events pending now are normalized; how many
    of them are still pending (0 when all are done; failed events do not count). ``writer``,
    this process's, is started if it idles, to pick up pending rows a stopped process left."""
    with store.connection() as connection:
        mark = pending_mark(connection)
    if mark is None:
        return 0
    if writer is not None:
        writer.normalizer.start()
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        with store.connection() as connection:
            left = pending_up_to(connection, mark)
        if left == 0 or time.monotonic() >= deadline:
            return left
        time.sleep(delay)
        delay = min(2 * delay, 0.05)


class FreshReads:
    """ASGI middleware: API requests (all but ingestion and health) wait for pending events."""

    def __init__(self, app: ASGIApp, store: Store, writer: StoreWriter) -> None:
        self.app = app
        self.store = store
        self.writer = writer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or not path.startswith("/api/")
            or (scope["method"], path) in _NOT_READS
        ):
            await self.app(scope, receive, send)
            return
        left = await run_in_threadpool(
            wait_until_normalized, self.store, self.writer, READ_WAIT_SECONDS
        )
        if not left:
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (PENDING_HEADER, str(left).encode())]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_header)
