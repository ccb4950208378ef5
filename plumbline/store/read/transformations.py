"""One transformation type and description for a field with several inputs (the field-level
``transformationType`` / ``transformationDescription`` Marquez's documents still carry, now that
the spec puts transformations on each input)."""

from __future__ import annotations

from collections.abc import Iterable


def field_summary(inputs: Iterable[tuple[str | None, str | None]]) -> tuple[str | None, str | None]:
    """(type, description) of a field from its inputs' (type, description): DIRECT when any input
    is DIRECT (its value comes from somewhere), else INDIRECT when any is, else None; the
    description when the inputs of that type agree on one, else None. Not the first input's:
    which input sorts first says nothing about the field."""
    pairs = [(kind or None, description) for kind, description in inputs]
    kinds = {kind for kind, _ in pairs if kind}
    if not kinds:
        return None, None
    kind = "DIRECT" if "DIRECT" in kinds else "INDIRECT" if "INDIRECT" in kinds else min(kinds)
    descriptions = {description for k, description in pairs if k == kind and description}
    return kind, descriptions.pop() if len(descriptions) == 1 else None
