"""Central auth: who is calling, and may they do this.

Routes declare what they need with ``Depends(require("read"|"write"|"admin"))`` and receive the
:class:`Principal`. The namespace rule, all of it here: a token limited to namespaces changes only
what is in those namespaces, and reads only what its namespaces' jobs touch.

- A route addressing a namespace calls ``principal.check_namespace(ns)`` (403).
- A route whose effect is global (the forwarding outbox, tag definitions) calls
  ``principal.check_global(what)``: 403 for a limited token.
- Ingestion calls :meth:`Principal.event_refusal` per event: the job's namespace, every output's
  (a DatasetEvent's dataset's) and every symlink those name must be the token's; a refused event is
  listed in ``rejected``, the others are stored. :meth:`Principal.screened` drops the dataset facets
  of inputs from other namespaces: the edge is recorded, the foreign dataset is left as it was.
- Read routes pass ``principal.namespaces`` to the store's read queries, which filter in SQL
  (:mod:`plumbline.store.read.visibility`): its namespaces' jobs, runs and events, the datasets those
  jobs touch and the datasets of its namespaces; anything else addressed by name or id is 404.

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

    def check_global(self, what: str) -> None:
        """Raise 403 when the caller is limited to namespaces: ``what`` belongs to none."""
        if self.namespaces is not None:
            raise APIError(
                403,
                f"{what} belongs to no namespace and needs a token not limited to namespaces "
                f"(this token is limited to {', '.join(sorted(self.namespaces))})",
            )

    def event_refusal(self, event: Mapping[str, Any]) -> tuple[str, str] | None:
        """(field, reason) when the caller may not write ``event``, else None.

        A limited token writes the events of its namespaces: the job's namespace, every output
        dataset's (a DatasetEvent's dataset's) and every namespace their symlinks name must be
        among its namespaces. Inputs may come from anywhere (see :meth:`screened`)."""
        if self.namespaces is None:
            return None
        for field, namespace in written_namespaces(self.screened(event)):
            if namespace not in self.namespaces:
                return field, f"this token may not access namespace {namespace!r}"
        return None

    def screened(self, event: Mapping[str, Any]) -> Mapping[str, Any]:
        """``event`` without the dataset facets of inputs outside the caller's namespaces (the
        same object when there are none): a limited token records that its job read a foreign
        dataset, it does not change that dataset's schema, description or versions."""
        if self.namespaces is None or not isinstance(event.get("inputs"), list):
            return event
        inputs = event["inputs"]
        foreign = [
            i
            for i, item in enumerate(inputs)
            if isinstance(item, dict)
            and "facets" in item
            and str(item.get("namespace", "")) not in self.namespaces
        ]
        if not foreign:
            return event
        kept: list[Any] = list(inputs)
        for i in foreign:
            kept[i] = {k: v for k, v in inputs[i].items() if k != "facets"}
        return {**event, "inputs": kept}


ANONYMOUS_ADMIN = Principal(name=None, scope="admin")


def written_namespaces(event: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(field, namespace) of what ``event`` writes: its job, its outputs (a DatasetEvent's
    dataset), and the namespaces the symlinks of any dataset it sends facets for name."""
    found: list[tuple[str, str]] = []
    job = event.get("job")
    if isinstance(job, Mapping):
        found.append(("job.namespace", str(job.get("namespace", ""))))
    for key in ("dataset", "outputs", "inputs"):
        value = event.get(key)
        items = [value] if isinstance(value, Mapping) else value if isinstance(value, list) else []
        for i, item in enumerate(items):
            if not isinstance(item, Mapping):
                continue
            at = key if key == "dataset" else f"{key}[{i}]"
            if key != "inputs":
                found.append((f"{at}.namespace", str(item.get("namespace", ""))))
            found += [(f"{at}.facets.symlinks", ns) for ns in _symlink_namespaces(item)]
    return found


def _symlink_namespaces(dataset: Mapping[str, Any]) -> list[str]:
    facets = dataset.get("facets")
    symlinks = facets.get("symlinks") if isinstance(facets, Mapping) else None
    ids = symlinks.get("identifiers") if isinstance(symlinks, Mapping) else None
    if not isinstance(ids, list):
        return []
    return [str(i.get("namespace", "")) for i in ids if isinstance(i, Mapping)]


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
