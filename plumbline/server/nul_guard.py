"""No NUL (U+0000) in a request's path or query: 400 before any route runs.

No name the store holds contains NUL (PostgreSQL's text cannot), so a path segment or query value
with one can name nothing; without this guard it reached the SQL and failed there (a 500 on
PostgreSQL, a 404 on SQLite). ``/openapi.json`` says it on every text parameter
(:data:`NO_NUL_PATTERN`).
"""

from __future__ import annotations

from starlette.types import Receive, Scope, Send

from plumbline.server.errors import error_response
from plumbline.server.middleware import HttpMiddleware

NO_NUL_PATTERN = "^[^\\u0000]*$"
MESSAGE = "the path and the query may not contain NUL (U+0000, %00)"


class NulGuard(HttpMiddleware):
    """ASGI middleware answering 400 to a request whose decoded path or query has a NUL."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        if "\x00" in scope["path"] or b"%00" in scope.get("query_string", b""):
            await error_response(400, MESSAGE)(scope, receive, send)
            return
        await self.app(scope, receive, send)
