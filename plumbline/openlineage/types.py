"""Constrained string types of the spec: RFC 3339 date-times and UUIDs, checked but kept as sent."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator

_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def parse_datetime(value: str) -> datetime:
    """An RFC 3339 date-time with its offset (a time without a zone is ambiguous: refused)."""
    if not _RFC3339.match(value):
        raise ValueError(
            "must be an RFC 3339 date-time with a time zone, e.g. 2024-01-01T00:00:00Z"
        )
    try:
        return datetime.fromisoformat(value.replace("z", "Z").replace(" ", "T"))
    except ValueError as exc:
        raise ValueError(f"not a valid date-time: {exc}") from None


def _check_datetime(value: str) -> str:
    parse_datetime(value)
    return value


_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _check_uuid(value: str) -> str:
    if not _UUID.match(value):
        raise ValueError("must be a UUID (8-4-4-4-12 hexadecimal digits)")
    return value


DateTimeStr = Annotated[str, AfterValidator(_check_datetime)]
UuidStr = Annotated[str, AfterValidator(_check_uuid)]
