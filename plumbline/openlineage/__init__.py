"""The OpenLineage wire model: parse and validate events (spec 2-0-2, 1.x accepted structurally)."""

from plumbline.openlineage.body import ParsedBody, parse_body
from plumbline.openlineage.canonical import canonical_json
from plumbline.openlineage.errors import EventValidationError, OpenLineageError, Violation
from plumbline.openlineage.model import (
    TERMINAL_STATES,
    DatasetEvent,
    Event,
    InputDataset,
    Job,
    JobEvent,
    OutputDataset,
    Run,
    RunEvent,
    StaticDataset,
)
from plumbline.openlineage.parse import (
    ParsedEvent,
    event_digest,
    event_kind,
    parse_event,
)

__all__ = [
    "TERMINAL_STATES",
    "DatasetEvent",
    "Event",
    "EventValidationError",
    "InputDataset",
    "Job",
    "JobEvent",
    "OpenLineageError",
    "OutputDataset",
    "ParsedBody",
    "ParsedEvent",
    "Run",
    "RunEvent",
    "StaticDataset",
    "Violation",
    "canonical_json",
    "event_digest",
    "event_kind",
    "parse_body",
    "parse_event",
]
