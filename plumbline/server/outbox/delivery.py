"""Post one stored event body, byte for byte, to one forward target."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from plumbline import __version__
from plumbline.openlineage.urls import redact_url
from plumbline.server.settings import ForwardTarget, NotifyTarget

# 4xx answers that mean "later", not "never"
_RETRYABLE_4XX = frozenset({408, 425, 429})


@dataclass(frozen=True)
class DeliveryResult:
    """The outcome of one attempt: delivered, or an error that is retryable or final."""

    delivered: bool
    retryable: bool = True
    error: str | None = None


class TargetClient:
    """An HTTP client for one target: its endpoint, bearer key and extra headers."""

    def __init__(self, target: ForwardTarget | NotifyTarget, timeout: float) -> None:
        self.endpoint = target.endpoint
        self.shown = redact_url(self.endpoint)
        headers = {"User-Agent": f"plumbline-forwarder/{__version__}", **target.headers}
        headers["Content-Type"] = "application/json"
        if target.api_key:
            headers["Authorization"] = f"Bearer {target.api_key}"
        self._client = httpx.Client(headers=headers, timeout=timeout, follow_redirects=False)

    def deliver(self, body: bytes) -> DeliveryResult:
        """POST ``body`` as received; any 2xx is delivered, 4xx (but 408/425/429) is final."""
        try:
            response = self._client.post(self.endpoint, content=body)
        except httpx.HTTPError as exc:
            return DeliveryResult(False, True, f"{type(exc).__name__}: {exc}"[:500])
        if response.is_success:
            return DeliveryResult(True)
        status = response.status_code
        retryable = status >= 500 or status in _RETRYABLE_4XX
        return DeliveryResult(False, retryable, f"HTTP {status}: {response.text[:400]}")

    def close(self) -> None:
        self._client.close()
