"""Turn decoded JSON into validated events: event kind by ``schemaURL``, field paths in errors."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from plumbline.openlineage import limits
from plumbline.openlineage.canonical import canonical_json, unencodable_path
from plumbline.openlineage.errors import EventValidationError, Violation
from plumbline.openlineage.model import DatasetEvent, Event, JobEvent, RunEvent
from plumbline.openlineage.types import parse_datetime

KINDS: dict[str, type[RunEvent] | type[DatasetEvent] | type[JobEvent]] = {
    "RunEvent": RunEvent,
    "DatasetEvent": DatasetEvent,
    "JobEvent": JobEvent,
}
# '…/OpenLineage.json#/$defs/RunEvent' (2.x) or '…#/definitions/RunEvent' (1.x)
_KIND_FRAGMENT = re.compile(r"#/(?:\$defs|definitions)/(\w+)$")
_PLAIN_KEY = re.compile(r"^[A-Za-z_$][\w$-]*$")


@dataclass(frozen=True)
class ParsedEvent:
    """A valid event: its kind, typed model, the JSON as sent, and the digest that identifies it."""

    kind: str
    event: Event
    raw: dict[str, Any]
    canonical: bytes  # the canonical JSON of ``raw`` (what is stored, and what the digest is of)
    digest: str
    event_time: datetime

    @property
    def namespace(self) -> str:
        """The namespace the event writes to: its job's, or a DatasetEvent's dataset's."""
        if isinstance(self.event, DatasetEvent):
            return self.event.dataset.namespace
        return self.event.job.namespace

    @functools.cached_property
    def run_id(self) -> str | None:
        """The run's id in lower case (a RunEvent's), else None; the write path asks often."""
        return self.event.run.run_id.lower() if isinstance(self.event, RunEvent) else None


def event_digest(document: Any) -> str:
    """sha256 of the canonical JSON: the same event always has the same digest."""
    return hashlib.sha256(canonical_json(document)).hexdigest()


def event_kind(document: dict[str, Any]) -> str:
    """'RunEvent', 'DatasetEvent' or 'JobEvent', by the ``schemaURL`` suffix as Marquez does.

    Without a recognizable suffix the shape decides: a run makes a RunEvent, a lone dataset a
    DatasetEvent, a lone job a JobEvent.
    """
    schema_url = document.get("schemaURL")
    if schema_url is not None and not isinstance(schema_url, str):
        raise EventValidationError([Violation("schemaURL", "Input should be a valid string")])
    if isinstance(schema_url, str) and "#" in schema_url:
        match = _KIND_FRAGMENT.search(schema_url)
        if not match or match.group(1) not in KINDS:
            raise EventValidationError(
                [
                    Violation(
                        "schemaURL",
                        "must point at #/$defs/RunEvent, #/$defs/DatasetEvent or #/$defs/JobEvent "
                        f"(or #/definitions/…), not {schema_url!r}",
                    )
                ]
            )
        return match.group(1)
    if "run" in document:
        return "RunEvent"
    if "dataset" in document and "job" not in document:
        return "DatasetEvent"
    if "job" in document:
        return "JobEvent"
    return "RunEvent"


def field_path(loc: tuple[int | str, ...]) -> str | None:
    """('outputs', 0, 'facets', 'schema') -> 'outputs[0].facets.schema'."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _PLAIN_KEY.match(part):
            path += f".{part}" if path else part
        else:
            path += f"[{json.dumps(part)}]"
    return path or None


def _violations(error: ValidationError) -> list[Violation]:
    violations = []
    for detail in error.errors(include_url=False):
        message = "is required" if detail["type"] == "missing" else detail["msg"]
        message = message.removeprefix("Value error, ")
        violations.append(Violation(field_path(tuple(detail["loc"])), message))
    return violations


def parse_event(document: Any, sent: bytes | None = None) -> ParsedEvent:
    """Validate one decoded event against the spec; raise :class:`EventValidationError` if it
    breaks it. ``sent``, the JSON it was decoded from, lets a check of its bytes
    (:func:`limits.surely_within`) spare the walk of the whole document for the nesting, NUL and
    string-size limits when they surely hold."""
    if not isinstance(document, dict):
        raise EventValidationError([Violation(None, "an event must be a JSON object")])
    kind = event_kind(document)
    if sent is not None and limits.surely_within(sent):
        deep = []
    else:
        deep = [(path, why) for path, why in limits.document_violations(document)]
    if deep:  # past the nesting or string limits: said before anything walks the document
        raise EventValidationError([Violation(field_path(p), why) for p, why in deep])
    try:
        event = KINDS[kind].model_validate(document)
    except ValidationError as exc:
        raise EventValidationError(_violations(exc)) from None
    event_time = parse_datetime(event.event_time)
    named = limits.event_violations(document, event_time, generic=False)
    if named:
        raise EventValidationError([Violation(field_path(p), why) for p, why in named])
    try:
        canonical = canonical_json(document)
    except UnicodeEncodeError:
        raise unencodable_error(document) from None
    return ParsedEvent(
        kind=kind,
        event=event,
        raw=document,
        canonical=canonical,
        digest=hashlib.sha256(canonical).hexdigest(),
        event_time=event_time,
    )


def unencodable_error(document: Any) -> EventValidationError:
    """The error for a document holding a string UTF-8 cannot encode (``"\\ud800"`` in JSON)."""
    path = unencodable_path(document)
    message = "is not valid Unicode: it holds a lone surrogate (an unpaired \\ud800-\\udfff escape)"
    return EventValidationError([Violation(field_path(path or ()), message)])
