"""The HTTP transport: POST each event as JSON to an OpenLineage endpoint."""

from __future__ import annotations

import gzip
import json
import logging
from collections.abc import Mapping
from typing import Any

import httpx

from plumbline import __version__
from plumbline.openlineage.urls import lineage_endpoint, redact_url
from plumbline.transports.config import TransportConfig
from plumbline.transports.errors import TransportConfigError, TransportError
from plumbline.transports.serialize import dumps_event

logger = logging.getLogger(__name__)

# 4xx answers that say "later", not "never".
_RETRYABLE_4XX = frozenset({408, 429})
_MAX_MESSAGE = 500


class HttpTransport:
    """Posts JSON to `lineage_endpoint(config.url)` with one reused httpx client.

    Any 2xx is success. A 4xx raises a final TransportError carrying the server's message;
    connection errors, timeouts, 5xx (and 408/429) raise a retryable one.
    """

    def __init__(self, config: TransportConfig) -> None:
        if config.type != "http" or not config.url:
            raise TransportConfigError("HttpTransport needs an http TransportConfig with a url")
        self.endpoint = lineage_endpoint(config.url)
        self._where = redact_url(self.endpoint)
        self._gzip = config.compression == "gzip"
        headers = {"User-Agent": f"plumbline/{__version__}", **config.headers}
        headers["Content-Type"] = "application/json"
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        if self._gzip:
            headers["Content-Encoding"] = "gzip"
        self._client = httpx.Client(headers=headers, timeout=config.timeout, follow_redirects=False)

    def emit(self, event: Mapping[str, Any]) -> None:
        self.post(event)

    def post(self, payload: Any) -> httpx.Response:
        """POST one event (or, for servers that accept it, a list of events); returns the 2xx response."""
        body = dumps_event(payload).encode("utf-8")
        if self._gzip:
            body = gzip.compress(body)
        try:
            response = self._client.post(self.endpoint, content=body)
        except httpx.TimeoutException as exc:
            raise TransportError(
                f"timed out posting to {self._where}: {type(exc).__name__}", retryable=True
            ) from exc
        except httpx.HTTPError as exc:
            raise TransportError(
                f"cannot reach {self._where}: {str(exc) or type(exc).__name__}", retryable=True
            ) from exc
        if response.is_success:
            return response
        status = response.status_code
        retryable = status >= 500 or status in _RETRYABLE_4XX
        parsed, message = _server_message(response)
        raise TransportError(
            f"HTTP {status} from {self._where}: {message}",
            retryable=retryable,
            status_code=status,
            body=parsed,
        )

    def close(self, timeout: float | None = None) -> bool:
        try:
            self._client.close()
        except Exception:  # closing must not raise into shutdown paths
            logger.debug("error closing the HTTP client", exc_info=True)
            return False
        return True


def _server_message(response: httpx.Response) -> tuple[Any, str]:
    """The parsed JSON body (or None) and a short human message from it."""
    text = response.text
    try:
        parsed = json.loads(text) if text else None
    except ValueError:
        parsed = None
    if isinstance(parsed, Mapping):
        message = str(parsed.get("message") or parsed.get("detail") or text)
        errors = parsed.get("errors")
        if isinstance(errors, list) and errors:
            details = "; ".join(_format_error(e) for e in errors[:5])
            message = f"{message} ({details})"
    else:
        message = text.strip() or response.reason_phrase
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE] + "…"
    return parsed, message


def _format_error(error: Any) -> str:
    if not isinstance(error, Mapping):
        return str(error)
    where = ".".join(
        str(p) for p in (error.get("index"), error.get("field")) if p not in (None, "")
    )
    return f"{where}: {error.get('message')}" if where else str(error.get("message"))
