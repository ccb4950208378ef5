"""The one rule for what changed between two schemas (the OpenLineage `schema` facet's fields).

Schema-drift alerts, run diff and the dataset page's version history all ask this module, so a
change they report is the same change everywhere:

- Fields are compared by name, nested fields included as ``parent.child`` (a field's first
  occurrence wins when a name repeats).
- Types are compared without case and without whitespace: ``INT`` and ``int``, or
  ``decimal(10, 2)`` and ``decimal(10,2)``, are one type. A type declared on one side only is a
  change (``None`` -> ``int``); descriptions and field order are not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Retyped", "SchemaDiff", "diff_schemas", "flatten_fields", "same_type"]


@dataclass(frozen=True)
class Retyped:
    """A field present on both sides whose type changed."""

    name: str
    before: str | None
    after: str | None


@dataclass(frozen=True)
class SchemaDiff:
    """Fields added (in the new schema's order), removed (in the old one's) and retyped."""

    added: tuple[tuple[str, str | None], ...]
    removed: tuple[tuple[str, str | None], ...]
    retyped: tuple[Retyped, ...]

    @property
    def same(self) -> bool:
        return not (self.added or self.removed or self.retyped)

    def to_json(self) -> dict[str, Any]:
        """``{"added": [{name, type}], "removed": [{name, type}], "retyped": [{name, before, after}]}``."""
        return {
            "added": [{"name": n, "type": t} for n, t in self.added],
            "removed": [{"name": n, "type": t} for n, t in self.removed],
            "retyped": [
                {"name": r.name, "before": r.before, "after": r.after} for r in self.retyped
            ],
        }


def flatten_fields(fields: Any, prefix: str = "") -> dict[str, str | None]:
    """Every field of a schema facet's `fields` by dotted name, with its declared type."""
    flat: dict[str, str | None] = {}
    for item in fields if isinstance(fields, list) else ():
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        name = prefix + item["name"]
        kind = item.get("type")
        flat.setdefault(name, kind if isinstance(kind, str) else None)
        for child, child_type in flatten_fields(item.get("fields"), name + ".").items():
            flat.setdefault(child, child_type)
    return flat


def _normal(kind: str | None) -> str | None:
    return None if kind is None else "".join(kind.split()).lower()


def same_type(before: str | None, after: str | None) -> bool:
    """Whether two declared types are the same type under this module's rule."""
    return _normal(before) == _normal(after)


def diff_schemas(before: Any, after: Any) -> SchemaDiff:
    """What changed going from the `before` fields to the `after` fields."""
    old, new = flatten_fields(before), flatten_fields(after)
    return SchemaDiff(
        added=tuple((n, t) for n, t in new.items() if n not in old),
        removed=tuple((n, t) for n, t in old.items() if n not in new),
        retyped=tuple(
            Retyped(n, old[n], t) for n, t in new.items() if n in old and not same_type(old[n], t)
        ),
    )
