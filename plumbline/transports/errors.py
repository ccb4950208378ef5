"""The exceptions of plumbline.transports."""

from __future__ import annotations

from typing import Any

from plumbline.errors import PlumblineError


class TransportError(PlumblineError):
    """An event could not be delivered.

    `retryable` is True for failures worth another attempt (connection errors, timeouts, 5xx);
    `status_code` and `body` carry the server's answer when there was one.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status_code: int | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.status_code = status_code
        self.body = body


class TransportConfigError(TransportError, ValueError):
    """A transport configuration is invalid."""
