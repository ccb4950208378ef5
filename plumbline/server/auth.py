"""Central auth: who is calling, and may they do this.

Routes declare what they need with ``Depends(require("read"|"write"|"admin"))`` and receive the
:class:`Principal`; write routes scoped to a namespace call ``principal.check_namespace(ns)`` (403),
ingestion calls ``principal.check_event(event)``, and read routes pass ``principal.namespaces`` to the
store's read queries, which filter in SQL (:mod:`plumbline.store.read.visibility`). A
namespace-limited token reads its namespaces' jobs, runs and events and the datasets those jobs touch;
anything else it addresses by name or id answers 404, as if missing.

With ``--auth open`` every caller is the anonymous admin. With ``--auth required`` a request needs
``Authorization: Bearer <token>`` (the OpenLineage client's ``api_key`` auth): 401 without a token or
with an unknown or revoked one, 403 when the token's scope or namespaces do not cover the request.
Scopes nest: admin ⊃ write ⊃ read.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from sqlalchemy.engine import Engine

from plumbline.server.errors import APIError
from plumbline.server.tokens import find_active_token, touch_token

logger = logging.getLogger(__name__)

SCOPES = ("read", "write", "admin")
_RANK = {scope: rank for rank, scope in enumerate(SCOPES)}
# last_used_at is written at most this often per token, not on every request
_TOUCH_INTERVAL_S = 60.0


@dataclass(frozen=True)
class Principal:
    """The caller: a token's name and scope, and the namespaces it is limited to (None = all)."""

    name: str | None
    scope: str
    namespaces: frozenset[str] | None = None

    def has_scope(self, scope: str) -> bool:
        """True when this principal's scope includes ``scope`` (admin ⊃ write ⊃ read)."""
        return _RANK[self.scope] >= _RANK[scope]

    def allows_namespace(self, namespace: str) -> bool:
        return self.namespaces is None or namespace in self.namespaces

    def check_namespace(self, namespace: str) -> None:
        """Raise 403 when the caller may not touch ``namespace``."""
        if not self.allows_namespace(namespace):
            raise APIError(403, f"this token may not access namespace {namespace!r}")

    def check_event(self, event: Mapping[str, Any]) -> None:
        """Raise 403 when the caller may not write ``event``.

        A namespace-limited token writes only events whose job namespace it covers; an event
        without a job (a DatasetEvent) needs every dataset's namespace covered instead.
        """
        if self.namespaces is None:
            return
        for namespace in event_namespaces(event):
            self.check_namespace(namespace)


ANONYMOUS_ADMIN = Principal(name=None, scope="admin")


def event_namespaces(event: Mapping[str, Any]) -> list[str]:
    """The namespaces an event writes to: its job's, or for a job-less event its datasets'."""
    job = event.get("job")
    if isinstance(job, Mapping):
        return [str(job.get("namespace", ""))]
    found: list[str] = []
    for key in ("dataset", "inputs", "outputs"):
        value = event.get(key)
        items = [value] if isinstance(value, Mapping) else value if isinstance(value, list) else []
        found += [str(d.get("namespace", "")) for d in items if isinstance(d, Mapping)]
    return found or [""]


def require(scope: str) -> Callable[[Request], Principal]:
    """A FastAPI dependency that authenticates the request and checks it has ``scope``."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}")

    def dependency(request: Request) -> Principal:
        principal = authenticate(request)
        if not principal.has_scope(scope):
            raise APIError(
                403, f"this token has scope {principal.scope!r}; this request needs {scope!r}"
            )
        request.state.principal = principal
        return principal

    return dependency


def authenticate(request: Request) -> Principal:
    """The principal of ``request`` (401 when auth is required and the token is missing or bad)."""
    if request.app.state.settings.auth != "required":
        return ANONYMOUS_ADMIN
    token = bearer_token(request.headers.get("authorization"))
    if token is None:
        raise APIError(401, "authentication required: send Authorization: Bearer <token>")
    engine = request.app.state.engine
    with engine.connect() as connection:
        info = find_active_token(connection, token)
    if info is None:
        raise APIError(401, "invalid or revoked token")
    _touch_now_and_then(engine, info.name)
    limited = frozenset(info.namespaces) if info.namespaces is not None else None
    return Principal(name=info.name, scope=info.scope, namespaces=limited)


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header value, else None."""
    if not header:
        return None
    kind, _, value = header.strip().partition(" ")
    value = value.strip()
    if kind.lower() != "bearer" or not value:
        return None
    return value


_touched: dict[tuple[int, str], float] = {}
_touched_lock = threading.Lock()


def _touch_now_and_then(engine: Engine, name: str) -> None:
    now = time.monotonic()
    key = (id(engine), name)
    with _touched_lock:
        if key in _touched and now - _touched[key] < _TOUCH_INTERVAL_S:
            return
        _touched[key] = now
    try:
        touch_token(engine, name)
    except Exception:  # bookkeeping only: never fail a request for it
        logger.warning("could not record the use of token %r", name, exc_info=True)
