"""``--since``: an ISO-8601 date or time, or a span back from now (``30m``, ``24h``, ``7d``,
``2w``), for every command that takes it; the CLI sends the server RFC 3339 (UTC, ``Z``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import click

_SPAN = re.compile(r"^(\d{1,6})([smhdw])$", re.IGNORECASE)
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
FORMS = "an ISO-8601 date or time (2024-01-01, 2024-01-01T12:00:00Z) or a span (30m, 24h, 7d, 2w)"

F = TypeVar("F", bound=Callable[..., Any])


def parse_since(value: str | None) -> str | None:
    """The RFC 3339 UTC time ``value`` names, or None; ValueError with the reason."""
    if value is None:
        return None
    text = value.strip()
    span = _SPAN.match(text)
    if span:
        unit = _UNITS[span.group(2).lower()]
        when = datetime.now(UTC) - timedelta(**{unit: int(span.group(1))})
    else:
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise ValueError(f"expected {FORMS}, got {value!r}") from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _convert(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    try:
        return parse_since(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def since_option(help_text: str, name: str = "since") -> Callable[[F], F]:
    """``--since`` as every command takes it: the command receives RFC 3339 (UTC), or None; a
    value that is neither a time nor a span is a usage error (exit 2)."""
    return click.option(
        "--since",
        name,
        callback=_convert,
        help=f"{help_text}: an ISO-8601 date or time, or a span back from now (30m, 24h, 7d, 2w).",
    )
