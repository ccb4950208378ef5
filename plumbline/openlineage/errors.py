"""Errors of the OpenLineage wire model."""

from __future__ import annotations

from dataclasses import dataclass

from plumbline.errors import PlumblineError


class OpenLineageError(PlumblineError):
    """Base class of the wire model's errors."""


@dataclass(frozen=True)
class Violation:
    """One way an event breaks the specification: a field path (``run.runId``) and a message."""

    field: str | None
    message: str


class EventValidationError(OpenLineageError):
    """An event that breaks the OpenLineage specification; ``violations`` names each field."""

    def __init__(self, violations: list[Violation]) -> None:
        self.violations = violations
        first = violations[0] if violations else Violation(None, "invalid event")
        where = f"{first.field}: " if first.field else ""
        super().__init__(f"{where}{first.message}")
