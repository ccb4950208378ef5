"""A settings table (a TOML table, or environment variables) read for a dataclass of settings:
its keys checked against the fields, each value against its field's type. One reader for the
``[outbox]`` table (:class:`~plumbline.server.outbox.policy.OutboxPolicy`) and the ``[alerts]``
table (:class:`~plumbline.store.write.alert_rules.AlertRules`); callers word the errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from plumbline.errors import PlumblineError


class UnknownKeys(PlumblineError, ValueError):
    """Keys that name no field: ``keys`` (sorted), ``known`` (the field names, sorted)."""

    def __init__(self, keys: list[str], known: list[str]) -> None:
        super().__init__(f"unknown settings: {', '.join(keys)}")
        self.keys, self.known = keys, known


class BadValue(PlumblineError, ValueError):
    """A value that is not of its field's type: ``key``, ``kind`` (the type's name), ``value``."""

    def __init__(self, key: str, kind: str, value: object) -> None:
        super().__init__(f"{key} must be a {kind}, not {value!r}")
        self.key, self.kind, self.value = key, kind, value


def field_kinds(settings: type[Any]) -> dict[str, str]:
    """Each field of the dataclass ``settings`` and the name of its type ('int', 'float', …)."""
    return {f.name: str(f.type) for f in fields(settings)}


def typed(kind: str, value: object, *, text: bool = False) -> object:
    """``value`` as a ``kind`` setting ('bool', or a number: 'int', 'float', …): as it is when
    its type fits (a bool for 'bool', a number that is not a bool otherwise); with ``text``, an
    'int' or any other number parsed from its text (environment variables). ValueError if not."""
    if text:
        return int(str(value)) if kind == "int" else float(str(value))
    expected: type | tuple[type, ...] = bool if kind == "bool" else (int, float)
    if isinstance(value, bool) != (expected is bool) or not isinstance(value, expected):
        raise ValueError(f"not a {kind}: {value!r}")
    return value


def read_table(
    settings: type[Any],
    table: Mapping[str, object],
    *,
    text: bool = False,
    extra: Mapping[str, str] | None = None,
) -> dict[str, object]:
    """``table``'s values for the fields of the dataclass ``settings`` (and the ``extra`` keys,
    name -> kind), each :func:`typed`: :class:`UnknownKeys` for keys that are neither, else
    :class:`BadValue` for the first value that does not fit."""
    kinds = {**field_kinds(settings), **(extra or {})}
    unknown = sorted(set(table) - set(kinds))
    if unknown:
        raise UnknownKeys(unknown, sorted(field_kinds(settings)))
    values: dict[str, object] = {}
    for key, value in table.items():
        try:
            values[key] = typed(kinds[key], value, text=text)
        except (TypeError, ValueError):
            raise BadValue(key, kinds[key], value) from None
    return values
