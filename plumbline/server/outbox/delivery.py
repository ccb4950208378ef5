"""Post one stored event body, byte for byte, to one forward target."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from plumbline import __version__
from plumbline.openlineage.urls import redact_url
from plumbline.server.outbox.addresses import CheckedTransport, RefusedAddress, check_resolved
from plumbline.server.settings import ForwardTarget, NotifyTarget

# 4xx answers that mean "later", not "never"
_RETRYABLE_4XX = frozenset({408, 425, 429})
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5  # a webhook's redirects followed per post, each target checked; more: retried


@dataclass(frozen=True)
class DeliveryResult:
    """The outcome of one attempt: delivered, or an error that is retryable or final."""

    delivered: bool
    retryable: bool = True
    error: str | None = None


class TargetClient:
    """An HTTP client for one target: its endpoint, bearer key and extra headers.

    A webhook (:class:`NotifyTarget`) is posted only to addresses its settings allow (checked on
    the resolved addresses before every post: :mod:`plumbline.server.outbox.addresses`), follows
    redirects (the same body POSTed again, up to :data:`MAX_REDIRECTS`, each new target checked
    the same way; its key only to the configured origin), and never sends the URL's user info
    when it has an ``api_key``.
    """

    def __init__(self, target: ForwardTarget | NotifyTarget, timeout: float) -> None:
        self.endpoint = target.endpoint
        if target.api_key:  # the key authenticates, never user info in the URL
            self.endpoint = _without_user_info(self.endpoint)
        self.shown = redact_url(self.endpoint)
        self._webhook = isinstance(target, NotifyTarget)
        self._allow_private = isinstance(target, NotifyTarget) and target.allow_private
        headers = {"User-Agent": f"plumbline-forwarder/{__version__}", **target.headers}
        headers["Content-Type"] = "application/json"
        self._key_headers = {"Authorization": f"Bearer {target.api_key}"} if target.api_key else {}
        self._client = httpx.Client(
            headers=headers,
            timeout=timeout,
            follow_redirects=False,
            transport=CheckedTransport(self._allow_private) if self._webhook else None,
        )

    def deliver(self, body: bytes) -> DeliveryResult:
        """POST ``body`` as received; any 2xx is delivered, 4xx (but 408/425/429) is final."""
        url = self.endpoint
        for _hop in range(MAX_REDIRECTS + 1):
            if self._webhook:
                try:
                    check_resolved(url, self._allow_private)
                except RefusedAddress as exc:
                    return DeliveryResult(False, False, f"refused {redact_url(url)}: {exc}")
                except OSError as exc:  # does not resolve now: try again later
                    return DeliveryResult(False, True, f"{redact_url(url)}: {exc}"[:500])
            same_origin = _origin(url) == _origin(self.endpoint)
            try:
                response = self._client.post(
                    url, content=body, headers=self._key_headers if same_origin else None
                )
            except RefusedAddress as exc:  # resolved differently when connecting (DNS rebinding)
                return DeliveryResult(False, False, f"refused {redact_url(url)}: {exc}")
            except httpx.HTTPError as exc:
                return DeliveryResult(False, True, f"{type(exc).__name__}: {exc}"[:500])
            if response.is_success:
                return DeliveryResult(True)
            status = response.status_code
            location = response.headers.get("location")
            if self._webhook and status in _REDIRECTS and location:
                url = _without_user_info(urljoin(url, location))
                if urlsplit(url).scheme.lower() not in ("http", "https"):
                    return DeliveryResult(False, False, f"HTTP {status} to a non-http(s) URL")
                continue
            retryable = status >= 500 or status in _RETRYABLE_4XX
            return DeliveryResult(False, retryable, f"HTTP {status}: {response.text[:400]}")
        return DeliveryResult(False, True, f"more than {MAX_REDIRECTS} redirects")

    def close(self) -> None:
        self._client.close()


def _without_user_info(url: str) -> str:
    parts = urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port
