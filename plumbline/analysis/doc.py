"""Typed results whose JSON document is their fields: one place for the rule the API follows."""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from typing import Any

from plumbline.store import iso


def camel(name: str) -> str:
    """``started_at`` -> ``startedAt``."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


_KEYS: dict[type, tuple[tuple[str, str], ...]] = {}


def _keys(cls: type) -> tuple[tuple[str, str], ...]:
    """Each field's name and its JSON key, once per class."""
    keys = _KEYS.get(cls)
    if keys is None:
        keys = _KEYS[cls] = tuple((f.name, camel(f.name)) for f in fields(cls))
    return keys


def json_value(value: Any) -> Any:
    """A field's JSON: a datetime as ISO-8601, a result as its document, a tuple as a list."""
    to_json = getattr(value, "to_json", None)
    if to_json is not None:  # first: a named tuple is a result too
        return to_json()
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, tuple):
        return [json_value(v) for v in value]
    return value


class JsonDoc:
    """A dataclass whose document is every field by its camelCase name, in field order."""

    def to_json(self) -> dict[str, Any]:
        return {key: json_value(getattr(self, name)) for name, key in _keys(type(self))}
