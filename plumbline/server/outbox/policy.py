"""Retry settings of the outbox worker."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta

from plumbline.server.typed_table import BadValue, UnknownKeys, read_table

# environment variable -> OutboxPolicy field (read by `plumbline serve`'s settings builder)
ENV_VARS = {
    "PLUMBLINE_OUTBOX_MAX_ATTEMPTS": "max_attempts",
    "PLUMBLINE_OUTBOX_BASE_DELAY": "base_delay_s",
    "PLUMBLINE_OUTBOX_MAX_DELAY": "max_delay_s",
    "PLUMBLINE_OUTBOX_BATCH_SIZE": "batch_size",
    "PLUMBLINE_OUTBOX_POLL_INTERVAL": "poll_interval_s",
    "PLUMBLINE_OUTBOX_TIMEOUT": "request_timeout_s",
    "PLUMBLINE_OUTBOX_CONCURRENCY": "concurrency",
    "PLUMBLINE_OUTBOX_DELIVERED_RETENTION": "delivered_retention_s",
}


@dataclass(frozen=True)
class OutboxPolicy:
    """How the worker retries: exponential backoff with jitter, dead after ``max_attempts``."""

    max_attempts: int = 10
    base_delay_s: float = 1.0
    max_delay_s: float = 300.0
    batch_size: int = 100
    poll_interval_s: float = 0.5
    request_timeout_s: float = 10.0
    # posts in flight at once per target (events of one run are still sent one after the other)
    concurrency: int = 4
    # delivered rows are deleted after this long (their counts leave GET /api/v1/forwarding too)
    delivered_retention_s: float = 7 * 24 * 3600.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.base_delay_s < 0 or self.max_delay_s < self.base_delay_s:
            raise ValueError("need 0 <= base_delay_s <= max_delay_s")
        if (
            min(self.batch_size, self.concurrency) < 1
            or min(self.poll_interval_s, self.request_timeout_s) <= 0
        ):
            raise ValueError(
                "batch_size, concurrency, poll_interval_s and request_timeout_s must be positive"
            )

    def backoff(self, attempts: int) -> timedelta:
        """Delay before the next try after ``attempts`` failed ones (full jitter on the upper half)."""
        ceiling = min(self.max_delay_s, self.base_delay_s * 2 ** max(attempts - 1, 0))
        return timedelta(seconds=ceiling * random.uniform(0.5, 1.0))

    @classmethod
    def from_dict(cls, values: Mapping[str, object]) -> OutboxPolicy:
        """From a config table (``[outbox]`` in the TOML file) or variables' text; unknown keys
        are an error."""
        try:
            converted = read_table(cls, values, text=True)
        except UnknownKeys as exc:
            raise ValueError(f"unknown [outbox] settings: {', '.join(exc.keys)}") from None
        except BadValue as exc:
            raise ValueError(f"[outbox] {exc.key} must be a number, not {exc.value!r}") from None
        return cls(**converted)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> OutboxPolicy:
        """Defaults overridden by ``PLUMBLINE_OUTBOX_*`` variables of ``environ`` (see ``ENV_VARS``)."""
        return cls.from_dict(
            {field: environ[var] for var, field in ENV_VARS.items() if var in environ}
        )
