"""Rate-limited logging, so a dead server does not flood the application's log."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any


class ThrottledLog:
    """Logs a message of a given key at most once per `interval` seconds, counting the rest."""

    def __init__(self, logger: logging.Logger, interval: float = 30.0) -> None:
        self._logger = logger
        self._interval = interval
        self._lock = threading.Lock()
        self._last: dict[str, float] = {}
        self._suppressed: dict[str, int] = {}

    def log(self, key: str, level: int, msg: str, *args: Any) -> None:
        now = time.monotonic()
        with self._lock:
            last = self._last.get(key)
            if last is not None and now - last < self._interval:
                self._suppressed[key] = self._suppressed.get(key, 0) + 1
                return
            self._last[key] = now
            suppressed = self._suppressed.pop(key, 0)
        if suppressed:
            msg += " (%d similar message(s) suppressed)"
            args = (*args, suppressed)
        self._logger.log(level, msg, *args)
