"""``--since``: an ISO-8601 time, or a span back from now (``30m``, ``24h``, ``7d``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_SPAN = re.compile(r"^(\d{1,6})([smhd])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def parse_since(value: str | None) -> str | None:
    """The ISO-8601 UTC time ``value`` names, or None; ValueError with the reason."""
    if value is None:
        return None
    text = value.strip()
    span = _SPAN.match(text)
    if span:
        when = datetime.now(UTC) - timedelta(**{_UNITS[span.group(2)]: int(span.group(1))})
    else:
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(
                f"not an ISO-8601 time or a span like 30m, 24h, 7d: {value!r}"
            ) from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")
