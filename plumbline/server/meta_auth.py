"""``--auth-meta``: with ``--auth required``, the metrics and the API documentation need a read
token too (issue 15 item 6). Without it they stay public, as the health check always is."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from plumbline.server.auth import authenticate
from plumbline.server.errors import APIError

META_PATHS = frozenset({"/metrics", "/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"})


class MetaAuth:
    """ASGI middleware: 401 for :data:`META_PATHS` without a valid token (any scope reads)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") in META_PATHS:
            request = Request(scope)
            try:
                principal = await run_in_threadpool(authenticate, request)
            except APIError as exc:
                headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
                response = JSONResponse(exc.to_json(), status_code=exc.status, headers=headers)
                await response(scope, receive, send)
                return
            request.state.principal = principal  # the access log names the token
        await self.app(scope, receive, send)
