"""The OpenLineage URL rule, and URL redaction for logs."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

LINEAGE_PATH = "/api/v1/lineage"

# Query parameter names whose values must never reach a log.
_SECRET_PARAM = re.compile(r"key|token|secret|pass|pwd|auth|sig|credential|session", re.IGNORECASE)


def lineage_endpoint(url: str) -> str:
    """A base URL (empty path or '/') gets '/api/v1/lineage' appended; a URL with a path is used as given.

    Raises ValueError for a non-http(s) URL.
    """
    text = url.strip() if isinstance(url, str) else ""
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError as exc:
        raise ValueError(f"not a valid URL: {redact_url(text)!r}") from exc
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {redact_url(text)!r}")
    if parts.path in ("", "/"):
        parts = parts._replace(path=LINEAGE_PATH)
    return urlunsplit(parts)


def target_key(url: str) -> str:
    """The outbox's name of a forward target: its lineage endpoint without credentials
    (:func:`redact_url`), so that no outbox row holds a password or a token; the full URL stays in
    the server's settings only. Raises ValueError as :func:`lineage_endpoint` does."""
    return redact_url(lineage_endpoint(url))


def redact_url(url: str) -> str:
    """The URL without `user:password@` and with secret-looking query values replaced by `***`."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            query = urlencode(
                [(k, "***" if _SECRET_PARAM.search(k) else v) for k, v in pairs], safe="*"
            )
        return urlunsplit(parts._replace(netloc=netloc, query=query))
    except ValueError:
        return "<invalid url>"
