"""The access log: one line per HTTP request, on by default (``plumbline serve --no-access-log``
turns it off), on the ``plumbline.access`` logger.

``127.0.0.1 "POST /api/v1/lineage" 201 4.2ms token=ingest``: the client address, the method and
path as sent (percent-escapes kept, so a line is always one line; no query string, which may
hold search terms), the status, the time to the end of the response, and the name of the token
that authenticated the request (``-``: none, or auth is open). Tokens themselves never appear.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

from starlette.types import Receive, Scope, Send

from plumbline.server.middleware import HttpMiddleware, ResponseWatch

logger = logging.getLogger("plumbline.access")


class AccessLog(HttpMiddleware):
    """ASGI middleware writing one :data:`logger` line per HTTP request once it is answered."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        watch = ResponseWatch(send)
        try:
            await self.app(scope, receive, watch)
        finally:
            logger.info(
                '%s "%s %s" %d %.1fms token=%s',
                _client(scope),
                scope["method"],
                _path(scope),
                # no response started: the server answers 500 to what raised
                500 if watch.status is None else watch.status,
                (time.perf_counter() - started) * 1000,
                _token_name(scope),
            )


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "-"


def _path(scope: Scope) -> str:
    raw = scope.get("raw_path")
    if isinstance(raw, bytes):
        return raw.split(b"?", 1)[0].decode("ascii", "backslashreplace")
    return str(scope.get("path", "")).encode("unicode_escape").decode("ascii")


def _token_name(scope: Scope) -> str:
    state: Any = scope.get("state") or {}
    principal = state.get("principal") if isinstance(state, dict) else None
    return getattr(principal, "name", None) or "-"


def ensure_output() -> None:
    """Make the access lines visible when nothing else configured logging: a stderr handler on
    the access logger (INFO), unless it or the root logger already has a handler."""
    if logger.handlers or logging.getLogger().handlers:
        logger.setLevel(logging.INFO)
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
