"""The console transport: each event as one JSON line on a logger."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from plumbline.transports.serialize import dumps_event

LOGGER_NAME = "plumbline.transports.console"


class ConsoleTransport:
    """Logs each event as one compact JSON line at INFO on `plumbline.transports.console`."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self._logger = logger or logging.getLogger(LOGGER_NAME)

    def emit(self, event: Mapping[str, Any]) -> None:
        self._logger.info("%s", dumps_event(event))

    def close(self, timeout: float | None = None) -> bool:
        return True
