"""Security headers on every response (issue 15 item 6).

``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY`` and ``Referrer-Policy:
no-referrer`` everywhere; :data:`UI_CSP` on everything but the API documentation pages, whose
Swagger UI loads its script and styles from a CDN and runs an inline script
(:data:`DOCS_CSP` there: they may still not be framed).
"""

from __future__ import annotations

from starlette.types import Message, Receive, Scope, Send

from plumbline.server.middleware import HttpMiddleware

# the UI is same-origin modules, one stylesheet and data: icons; it is never framed
UI_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
DOCS_CSP = "frame-ancestors 'none'"
DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})

_COMMON = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]


class SecurityHeaders(HttpMiddleware):
    """ASGI middleware adding the headers above to every HTTP response."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        csp = DOCS_CSP if scope.get("path") in DOCS_PATHS else UI_CSP
        added = [*_COMMON, (b"content-security-policy", csp.encode())]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *added]}
            await send(message)

        await self.app(scope, receive, sending)
