"""Canonical JSON (sorted keys, no spaces, UTF-8): what an event's digest is taken of.

The bytes must stay those of ``json.dumps(sort_keys=True, separators=(",", ":"),
ensure_ascii=False)``, because digests already stored identify re-posted events. orjson writes the
same bytes about ten times faster for every document without floats (it spells some floats
differently, e.g. ``0.00001`` for ``1e-05``, and refuses integers beyond 64 bits): those go through
:mod:`json`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_SORTED = orjson.OPT_SORT_KEYS
# a digit then '.', 'e' or 'E' then a digit or sign: every float token matches (so do some strings,
# which only costs a closer look)
_FLOAT_LIKE = re.compile(rb"[0-9][.eE][-+0-9]")


def stdlib_canonical_json(document: Any) -> bytes:
    """The reference encoding; raises :class:`UnicodeEncodeError` on a lone surrogate."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def canonical_json(document: Any) -> bytes:
    """The canonical JSON of any decoded document."""
    try:
        encoded = orjson.dumps(document, option=_SORTED)
    except TypeError:  # integers beyond 64 bits, lone surrogates, nesting deeper than 255
        return stdlib_canonical_json(document)
    if _FLOAT_LIKE.search(encoded) and holds_float(document):
        return stdlib_canonical_json(document)
    return encoded


def canonical_json_of_floatless(document: Any) -> bytes:
    """:func:`canonical_json` of a document its caller knows holds no float (skips the check)."""
    try:
        return orjson.dumps(document, option=_SORTED)
    except TypeError:
        return stdlib_canonical_json(document)


def holds_float(document: Any) -> bool:
    """Whether a float is anywhere in ``document``."""
    stack = [document]
    while stack:
        value = stack.pop()
        if isinstance(value, float):
            return True
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def unencodable_path(document: Any) -> tuple[int | str, ...] | None:
    """Where the first string that UTF-8 cannot encode (a lone surrogate) is, else None."""

    def bad(text: str) -> bool:
        try:
            text.encode()
        except UnicodeEncodeError:
            return True
        return False

    stack: list[tuple[tuple[int | str, ...], Any]] = [((), document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str) and bad(value):
            return path
        if isinstance(value, dict):
            for key, item in reversed(value.items()):
                if bad(key):
                    return (*path, key)
                stack.append(((*path, key), item))
        elif isinstance(value, list):
            stack.extend(((*path, i), item) for i, item in reversed(list(enumerate(value))))
    return None
