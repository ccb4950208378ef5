"""``/openapi.json`` says what the server answers, errors included (issue 15 item 7).

FastAPI documents 200 and a 422 for request validation; this server answers request validation with
400 and every error in one shape (:class:`plumbline.server.errors.ErrorBody`). The document is
completed here, from the routes themselves:

- ``400`` (request validation, and the store's ``InvalidArgumentError``) on every operation that
  takes parameters or a body, in place of FastAPI's 422;
- ``401`` and ``403`` and the ``bearerAuth`` security scheme on every operation that needs a token,
  when the server runs with ``--auth required``;
- ``404`` on operations that name something (a path parameter, ``nodeId``, ``runId``);
- ``500`` everywhere: an unexpected error, answered in the same shape;
- no NUL in path and query text (a ``pattern`` on each text parameter that has none; enforced by
  :class:`plumbline.server.nul_guard.NulGuard`).

``tests/server/test_contract.py`` fuzzes the document with schemathesis (all checks) to keep it true.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fastapi import FastAPI, params
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import get_flat_params
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from plumbline.server import auth
from plumbline.server.errors import ErrorBody
from plumbline.server.nul_guard import NO_NUL_PATTERN

ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}
# query parameters that name something that may not exist (404), as path parameters do
NAMING_QUERY_PARAMETERS = frozenset({"nodeId", "runId"})
_FASTAPI_VALIDATION = "#/components/schemas/HTTPValidationError"


def install_openapi(app: FastAPI) -> None:
    """Make ``app.openapi()`` (what ``/openapi.json`` serves) the completed document."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            auth_required = app.state.settings.auth == "required"
            app.openapi_schema = complete(document, app.routes, auth_required=auth_required)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def complete(document: dict[str, Any], routes: list[Any], *, auth_required: bool) -> dict[str, Any]:
    """``document`` with the error answers of every operation of ``routes`` (see the module)."""
    components = document.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    error_schema = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(error_schema.pop("$defs", {}))
    schemas["ErrorBody"] = error_schema
    if auth_required:
        components["securitySchemes"] = {"bearerAuth": {"type": "http", "scheme": "bearer"}}
    for route, operation in _operations(document, routes):
        for parameter in operation.get("parameters", []):
            _forbid_nul(parameter.get("schema", {}))
        responses = operation.setdefault("responses", {})
        if _refers_to(responses.get("422"), _FASTAPI_VALIDATION):
            del responses["422"]
        fields = get_flat_params(route.dependant)
        if fields or route.body_field is not None:
            _document(responses, 400, "invalid request: a parameter or the body breaks its schema")
        if auth_required and _needs_token(route.dependant):
            operation["security"] = [{"bearerAuth": []}]
            _document(responses, 401, "no token, or an unknown or revoked one")
            _document(responses, 403, "the token's scope or namespaces do not cover the request")
        if any(_names_something(field.field_info, field.alias) for field in fields):
            _document(responses, 404, "what the request names does not exist (or is not visible)")
        _document(responses, 500, "unexpected server error (logged by the server)")
    for name in ("HTTPValidationError", "ValidationError"):
        if name in schemas and f"#/components/schemas/{name}" not in repr(document["paths"]):
            del schemas[name]  # HTTPValidationError first: it refers to ValidationError
    return document


def _operations(
    document: dict[str, Any], routes: list[Any]
) -> Iterator[tuple[APIRoute, dict[str, Any]]]:
    for route in _api_routes(routes):
        if not route.include_in_schema:
            continue
        path = document["paths"].get(route.path_format, {})
        for method in route.methods or ():
            if method.lower() in path:
                yield route, path[method.lower()]


def _api_routes(routes: list[Any]) -> Iterator[APIRoute]:
    """Every APIRoute of ``routes``, descending into included routers."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):
            yield from _api_routes(route.original_router.routes)


def _document(responses: dict[str, Any], status: int, description: str) -> None:
    responses.setdefault(
        str(status),
        {"description": description, "content": {"application/json": {"schema": ERROR_REF}}},
    )


def _names_something(info: Any, name: str) -> bool:
    return isinstance(info, params.Path) or (
        isinstance(info, params.Query) and name in NAMING_QUERY_PARAMETERS
    )


def _forbid_nul(schema: dict[str, Any]) -> None:
    """Add :data:`NO_NUL_PATTERN` to the free text of a parameter's schema."""
    for alternative in schema.get("anyOf", []):
        _forbid_nul(alternative)
    if isinstance(schema.get("items"), dict):
        _forbid_nul(schema["items"])
    free_text = not {"pattern", "enum", "format", "$ref", "const"} & schema.keys()
    if schema.get("type") == "string" and free_text:
        schema["pattern"] = NO_NUL_PATTERN


def _refers_to(response: dict[str, Any] | None, ref: str) -> bool:
    return response is not None and ref in repr(response)


def _needs_token(dependant: Dependant) -> bool:
    """True when ``dependant`` (or one of its dependencies) is ``auth.require(scope)``."""
    call: Callable[..., Any] | None = dependant.call
    if call is not None and getattr(call, "__module__", None) == auth.__name__:
        if getattr(call, "__qualname__", "").startswith("require."):
            return True
    return any(_needs_token(sub) for sub in dependant.dependencies)
