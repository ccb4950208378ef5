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
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import Request

from plumbline.server.errors import APIError
from plumbline.server.tokens import find_active_token, touch_token
from plumbline.store import Store

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

    def screened(
        self, event: Mapping[str, Any], known_fields: Collection[FieldRef] = ()
    ) -> Mapping[str, Any]:
        """``event`` without what a limited token may not write of another namespace's datasets
        (the same object when there is none of that): the dataset facets of its foreign inputs,
        and the ``columnLineage`` inputs naming a foreign field not in ``known_fields`` (that
        would create the field). It records that its job read a foreign dataset (an edge, also
        from a field the dataset has); it does not change that dataset's fields, schema,
        description or versions."""
        if self.namespaces is None:
            return event
        screened = dict(event)
        inputs = event.get("inputs")
        if isinstance(inputs, list) and any(self._foreign_with_facets(i) for i in inputs):
            screened["inputs"] = [
                {k: v for k, v in i.items() if k != "facets"} if self._foreign_with_facets(i) else i
                for i in inputs
            ]
        for key, items, rebuild in _with_facets(screened):
            kept = [self._lineage_screened(item, known_fields) for item in items]
            if any(a is not b for a, b in zip(kept, items, strict=True)):
                screened[key] = rebuild(kept)
        if all(screened[k] is event[k] for k in screened):
            return event
        return screened

    def foreign_input_fields(self, event: Mapping[str, Any]) -> set[FieldRef]:
        """The (namespace, dataset, field) of another namespace that the ``columnLineage``
        facets of ``event`` name as inputs (none for an unlimited token)."""
        if self.namespaces is None:
            return set()
        return {
            ref
            for _, items, _ in _with_facets(event)
            for item in items
            for ref in _lineage_refs(item)
            if ref[0] not in self.namespaces
        }

    def _foreign_with_facets(self, item: Any) -> bool:
        return (
            isinstance(item, dict)
            and "facets" in item
            and self.namespaces is not None
            and str(item.get("namespace", "")) not in self.namespaces
        )

    def _lineage_screened(self, item: Any, known: Collection[FieldRef]) -> Any:
        """``item`` (a dataset) with its columnLineage inputs naming an unknown foreign field
        dropped (outputs left without inputs go too); the same object when none is."""
        facets = item.get("facets") if isinstance(item, Mapping) else None
        facet = facets.get("columnLineage") if isinstance(facets, Mapping) else None
        if not isinstance(facet, Mapping) or not isinstance(facets, Mapping):
            return item
        assert self.namespaces is not None
        mine = self.namespaces

        def keep(field: Any) -> bool:
            ref = _field_ref(field)
            return ref is None or ref[0] in mine or ref in known

        changed = dict(facet)
        if isinstance(facet.get("dataset"), list):
            changed["dataset"] = [f for f in facet["dataset"] if keep(f)]
        outputs = facet.get("fields")
        if isinstance(outputs, Mapping):
            kept_outputs: dict[str, Any] = {}
            for name, output in outputs.items():
                given = output.get("inputFields") if isinstance(output, Mapping) else None
                if not isinstance(given, list):
                    kept_outputs[name] = output
                    continue
                inputs = [f for f in given if keep(f)]
                if inputs or not given:
                    kept_outputs[name] = (
                        output
                        if len(inputs) == len(given)
                        else {
                            **output,
                            "inputFields": inputs,
                        }
                    )
            changed["fields"] = kept_outputs
        if changed.get("dataset") == facet.get("dataset") and changed.get("fields") == outputs:
            return item
        return {**item, "facets": {**facets, "columnLineage": changed}}


FieldRef = tuple[str, str, str]  # (namespace, dataset name, field)


def _field_ref(field: Any) -> FieldRef | None:
    if not isinstance(field, Mapping):
        return None
    return (
        str(field.get("namespace", "")),
        str(field.get("name", "")),
        str(field.get("field", "")),
    )


def _lineage_refs(item: Any) -> list[FieldRef]:
    """The input fields a dataset's columnLineage facet names."""
    facets = item.get("facets") if isinstance(item, Mapping) else None
    facet = facets.get("columnLineage") if isinstance(facets, Mapping) else None
    if not isinstance(facet, Mapping):
        return []
    named: list[Any] = (
        list(facet.get("dataset") or []) if isinstance(facet.get("dataset"), list) else []
    )
    outputs = facet.get("fields")
    for output in outputs.values() if isinstance(outputs, Mapping) else []:
        given = output.get("inputFields") if isinstance(output, Mapping) else None
        named += given if isinstance(given, list) else []
    return [ref for f in named if (ref := _field_ref(f)) is not None]


def _with_facets(
    event: Mapping[str, Any],
) -> list[tuple[str, list[Any], Callable[[list[Any]], Any]]]:
    """(key, the datasets under it, how to put them back) for ``dataset``, ``inputs``, ``outputs``."""
    found: list[tuple[str, list[Any], Callable[[list[Any]], Any]]] = []
    for key in ("dataset", "inputs", "outputs"):
        value = event.get(key)
        if isinstance(value, Mapping):
            found.append((key, [value], lambda items: items[0]))
        elif isinstance(value, list):
            found.append((key, value, lambda items: items))
    return found


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
    store: Store = request.app.state.store
    with store.connection() as connection:
        info = find_active_token(connection, token)
    if info is None:
        raise APIError(401, "invalid or revoked token")
    _touch_now_and_then(store, info.name)
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


def _touch_now_and_then(store: Store, name: str) -> None:
    now = time.monotonic()
    key = (id(store.engine), name)
    with _touched_lock:
        if key in _touched and now - _touched[key] < _TOUCH_INTERVAL_S:
            return
        _touched[key] = now
    try:
        touch_token(store.engine, name)
    except Exception:  # bookkeeping only: never fail a request for it
        logger.warning("could not record the use of token %r", name, exc_info=True)
