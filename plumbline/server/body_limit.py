"""Every request body but ingestion's is bounded at the door (:data:`MAX_REQUEST_BYTES`).

Ingestion (``POST /api/v1/lineage``) streams its own, larger bodies under ``max_body_bytes``
(:mod:`plumbline.server.ingest`). Every other route that takes a body (tags, declassifications,
alert acknowledgements, expectations) takes a small JSON document: a body longer than the limit
is answered 413 by its declared length, or once its bytes pass the limit, before any route reads
or parses it. Within the limit the body is read here and handed on whole.
"""

from __future__ import annotations

from starlette.types import Message, Receive, Scope, Send

from plumbline.server.errors import error_response
from plumbline.server.middleware import HttpMiddleware

MAX_REQUEST_BYTES = 1024 * 1024  # a request body of any route but ingestion's
INGESTION_PATHS = frozenset({"/api/v1/lineage"})
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
MESSAGE = f"the body is over the limit of {MAX_REQUEST_BYTES} bytes"


class BodyLimit(HttpMiddleware):
    """ASGI middleware answering 413 to a body over :data:`MAX_REQUEST_BYTES` (ingestion
    excepted)."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] not in _BODY_METHODS or scope["path"] in INGESTION_PATHS:
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > MAX_REQUEST_BYTES:
            await error_response(413, MESSAGE)(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_REQUEST_BYTES:
                await error_response(413, MESSAGE)(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        await self.app(scope, _replay(b"".join(chunks), receive), send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` giving ``body`` as one message, then whatever the client sends next (its
    disconnect)."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed
