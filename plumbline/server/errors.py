"""HTTP errors with the body shape every route answers with:
``{"code": int, "message": str, "errors": [{"index", "field", "message"}]}``.

Every error goes through here: ours (:class:`APIError`), the framework's (404 for an unknown path,
405 with ``Allow``, request validation: 400) and the unexpected ones (:class:`ServerErrors`: 500,
logged with its traceback, the connection kept usable).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.dependencies.utils import get_flat_params
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import Receive, Scope, Send

from plumbline.errors import PlumblineError
from plumbline.server.middleware import HttpMiddleware, ResponseWatch

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 1  # what a 503 (the ingestion memory budget in use) asks to wait


class ErrorItem(BaseModel):
    index: int | None
    field: str | None
    message: str


class ErrorBody(BaseModel):
    """The body of every error answer (what ``/openapi.json`` documents for 4xx and 5xx)."""

    code: int
    message: str
    errors: list[ErrorItem]


@dataclass(frozen=True)
class FieldError:
    """One problem with one field of one event (``index`` is the position in a batch)."""

    message: str
    field: str | None = None
    index: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "field": self.field, "message": self.message}


class APIError(PlumblineError):
    """An error answered to the client as JSON with a 4xx/5xx status."""

    def __init__(
        self,
        status: int,
        message: str,
        errors: list[FieldError] | None = None,
        *,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors or []
        self.retry_after = retry_after  # seconds, for a 503 (else RETRY_AFTER_SECONDS)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.status,
            "message": self.message,
            "errors": [error.to_json() for error in self.errors],
        }


def error_response(
    status: int, message: str, errors: list[FieldError] | None = None
) -> JSONResponse:
    """A JSON error response in the common shape."""
    return JSONResponse(APIError(status, message, errors).to_json(), status_code=status)


def install_error_handlers(app: FastAPI) -> None:
    """Make every error, ours or the framework's, answer in the common shape."""

    @app.exception_handler(APIError)
    async def _api_error(_request: Request, exc: APIError) -> JSONResponse:
        return JSONResponse(
            exc.to_json(),
            status_code=exc.status,
            headers=_auth_headers(exc.status, exc.retry_after),
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        response = error_response(exc.status_code, str(exc.detail))
        response.headers.update(exc.headers or {})
        if exc.status_code == 405:  # Allow: the methods of every route of this path, not one's
            methods = allowed_methods(request.app.router.routes, request.scope)
            response.headers["Allow"] = ", ".join(sorted(methods))
        return response

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        expected = _descriptions(request.scope.get("route"))
        errors = [
            FieldError(
                field=".".join(str(part) for part in err.get("loc", ()) if part != "body") or None,
                message=_problem(err, expected),
            )
            for err in exc.errors()
        ]
        return error_response(400, "invalid request parameters", errors)


def _descriptions(route: Any) -> dict[str, str]:
    """The descriptions of a route's parameters by name (what a value that breaks a pattern is
    told to be)."""
    if not isinstance(route, APIRoute):
        return {}
    return {
        field.alias: field.field_info.description
        for field in get_flat_params(route.dependant)
        if field.field_info.description
    }


def _problem(err: Any, expected: dict[str, str]) -> str:
    """A validation error in words; a value that breaks a pattern is named, with what was
    expected (the parameter's description), not the regex."""
    if err.get("type") == "string_pattern_mismatch":
        loc = [part for part in err.get("loc", ()) if isinstance(part, str)]
        wanted = expected.get(loc[-1], "the form /openapi.json gives") if loc else "?"
        return f"{str(err.get('input'))[:200]!r}: expected {wanted}"
    return str(err.get("msg", "invalid"))


def allowed_methods(routes: list[Any], scope: Scope) -> set[str]:
    """The methods the routes matching ``scope``'s path answer (routers included)."""
    found: set[str] = set()
    for route in routes:
        if hasattr(route, "original_router"):
            found |= allowed_methods(route.original_router.routes, scope)
        elif getattr(route, "methods", None) and route.matches(scope)[0] != Match.NONE:
            found |= set(route.methods)
    return found


def _auth_headers(status: int, retry_after: int | None = None) -> dict[str, str] | None:
    """Headers an error of ``status`` needs: how to authenticate (401), when to retry (503)."""
    if status == 401:
        return {"WWW-Authenticate": "Bearer"}
    if status == 503:
        return {"Retry-After": str(retry_after or RETRY_AFTER_SECONDS)}
    return None


class ServerErrors(HttpMiddleware):
    """ASGI middleware: an unexpected exception answers 500 in the common shape (and is logged
    with its traceback) instead of propagating to the server, which would drop the connection.
    An exception after the answer has started cannot be answered: it propagates as before."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        watch = ResponseWatch(send)
        try:
            await self.app(scope, receive, watch)
        except Exception:
            if watch.status is not None:
                raise
            logger.exception("unexpected error answering %s %s", scope["method"], scope["path"])
            response = error_response(500, "internal server error: the server log has the details")
            await response(scope, receive, send)
