"""Event serialization shared by every transport and the spill file."""

from __future__ import annotations

import datetime as dt
import enum
import json
import uuid
from collections.abc import Mapping
from pathlib import PurePath
from typing import Any

from plumbline.transports.errors import TransportError


def _default(value: Any) -> Any:
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, uuid.UUID | PurePath):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


def dumps_event(event: Mapping[str, Any] | Any) -> str:
    """One compact JSON document (no newline). Raises TransportError if it cannot be serialized."""
    try:
        return json.dumps(event, separators=(",", ":"), ensure_ascii=False, default=_default)
    except (TypeError, ValueError) as exc:
        raise TransportError(f"event is not JSON-serializable: {exc}") from exc
