"""Cross-site protection, before any route runs (issue 15 item 4).

Three checks, each answered in the common error shape (a request with more than one ``Host`` or
``Origin`` header is 400 first: only one of them would be checked):

- **Host** (every request): on a loopback bind only loopback names are served (``localhost``,
  ``*.localhost``, ``127.0.0.0/8``, ``[::1]``) plus the ``--allowed-host`` names; on any other bind
  the check is by ``--allowed-host`` when given, else off. A DNS-rebinding page (its own name
  resolving to 127.0.0.1) gets 421 and reads nothing.
- **Origin** (writes: POST, PUT, PATCH, DELETE): a request that carries ``Origin`` must come from
  this server's own origin (the Origin's scheme is the request's, its host and port the ``Host``
  header) or from an ``--allowed-host`` name; else 403. ``Origin: null`` (sandboxed pages, file://) is refused.
- **Content type** (writes): a write that has a body or declares a content type must declare a
  JSON media type (``application/json``, ``application/*+json``, parameters allowed); else 415.
  A web page cannot send that cross-site without a CORS preflight, which this server never
  grants. A body-less write without a content type (``marquez-python`` tags that way) passes:
  a browser sends ``Origin`` with it, which the Origin check judges.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from plumbline.server.errors import error_response
from plumbline.server.middleware import HttpMiddleware

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def host_name(host: str) -> str:
    """The name part of a ``Host`` value or URL netloc, lower-cased: no port, no brackets."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:5000
        return host[1 : host.find("]")] if "]" in host else host[1:]
    if host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def is_loopback_name(name: str) -> bool:
    """True for ``localhost``, ``*.localhost`` (RFC 6761) and loopback IP literals."""
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_json_media_type(value: str | None) -> bool:
    """True for ``application/json`` and ``application/<anything>+json``, parameters allowed."""
    if not value:
        return False
    media = value.split(";", 1)[0].strip().lower()
    kind, _, subtype = media.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


class HostPolicy:
    """Which ``Host`` names this server answers: see the module's docstring."""

    def __init__(self, bind_host: str, allowed: Iterable[str]) -> None:
        self.allowed = frozenset(host_name(name) for name in allowed)
        self.loopback = is_loopback_name(host_name(bind_host))
        self.checked = self.loopback or bool(self.allowed)

    def accepts(self, name: str) -> bool:
        """True when a request for host ``name`` (as :func:`host_name` gives it) is served."""
        if not self.checked or name in self.allowed:
            return True
        return self.loopback and is_loopback_name(name)


class RequestGuard(HttpMiddleware):
    """ASGI middleware applying the Host, Origin and content-type checks."""

    def __init__(self, app: ASGIApp, bind_host: str, allowed_hosts: Iterable[str]) -> None:
        super().__init__(app)
        self.policy = HostPolicy(bind_host, allowed_hosts)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        await error_response(status, message)(scope, receive, send)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, message) when the request is refused, else None."""
        headers = _headers(scope)
        repeated = _repeated(scope, ("host", "origin"))
        if repeated is not None:
            return 400, f"the request has more than one {repeated.title()} header"
        host = headers.get("host")
        if host is not None and not self.policy.accepts(host_name(host)):
            return 421, (
                f"this server does not answer for host {host_name(host)!r}: "
                "add it with --allowed-host"
            )
        method = scope["method"]
        if method not in WRITE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None and not self._same_origin(origin, host, scope.get("scheme", "http")):
            return 403, (
                f"cross-origin write refused: Origin {origin[:200]!r} is not this server "
                "(--allowed-host adds names)"
            )
        declared = headers.get("content-type")
        if (declared is not None or _has_body(headers)) and not is_json_media_type(declared):
            return 415, (
                f"{method} needs Content-Type: application/json, "
                f"not {headers.get('content-type', 'none')!r}"[:300]
            )
        return None

    def _same_origin(self, origin: str, host: str | None, own_scheme: str) -> bool:
        scheme, sep, netloc = origin.strip().lower().partition("://")
        if not sep or scheme not in ("http", "https") or not netloc:
            return False  # 'null' and anything that is not a web origin
        if host is not None and netloc == host.strip().lower() and scheme == own_scheme:
            return True  # the same scheme, host and port: this server's origin
        return host_name(netloc) in self.policy.allowed


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the first of repeated ones)."""
    found: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        found.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
    return found


def _repeated(scope: Scope, names: tuple[str, ...]) -> str | None:
    """The first of ``names`` (lower-case) the request carries more than once, else None."""
    seen: set[str] = set()
    for key, _ in scope.get("headers", []):
        name: str = key.decode("latin-1").lower()
        if name in names:
            if name in seen:
                return name
            seen.add(name)
    return None


def _has_body(headers: dict[str, str]) -> bool:
    length = headers.get("content-length", "").strip()
    return (length not in ("", "0")) or "transfer-encoding" in headers
