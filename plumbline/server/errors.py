"""HTTP errors with the body shape every route answers with:
``{"code": int, "message": str, "errors": [{"index", "field", "message"}]}``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from plumbline.errors import PlumblineError

RETRY_AFTER_SECONDS = 1  # what a 503 (the ingestion memory budget in use) asks to wait


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

    def __init__(self, status: int, message: str, errors: list[FieldError] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors or []

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
            exc.to_json(), status_code=exc.status, headers=_auth_headers(exc.status)
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_response(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            FieldError(
                field=".".join(str(part) for part in err.get("loc", ()) if part != "body") or None,
                message=err.get("msg", "invalid"),
            )
            for err in exc.errors()
        ]
        return error_response(400, "invalid request parameters", errors)


def _auth_headers(status: int) -> dict[str, str] | None:
    """Headers an error of ``status`` needs: how to authenticate (401), when to retry (503)."""
    if status == 401:
        return {"WWW-Authenticate": "Bearer"}
    if status == 503:
        return {"Retry-After": str(RETRY_AFTER_SECONDS)}
    return None
