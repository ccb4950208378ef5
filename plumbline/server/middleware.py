"""The one shape of the server's pure-ASGI middlewares.

An :class:`HttpMiddleware` sees each HTTP request in :meth:`HttpMiddleware.http`; every other
scope (lifespan, websockets) passes through to the wrapped app untouched. :class:`ResponseWatch`
is the ``send`` a middleware hands on when it needs to know whether, and with which status, the
answer has started.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HttpMiddleware:
    """Base of the server's middlewares: HTTP requests go to :meth:`http`, the rest passes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one HTTP request (each middleware's own job)."""
        raise NotImplementedError


class ResponseWatch:
    """A ``send`` that passes every message on and remembers the answer's status once the
    response starts (``None`` until then)."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.status: int | None = None

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
        await self._send(message)
