"""Facet maps merged by facet name: a newer facet replaces the older one; ``_deleted`` removes it."""

from __future__ import annotations

from typing import Any


def merge_facets(current: dict[str, Any] | None, sent: dict[str, Any] | None) -> dict[str, Any]:
    """``current`` updated with the facets in ``sent`` (a new dict; neither argument changes)."""
    merged = dict(current or {})
    for name, facet in (sent or {}).items():
        if isinstance(facet, dict) and facet.get("_deleted") is True:
            merged.pop(name, None)
        else:
            merged[name] = facet
    return merged
