"""plumbline's validation agrees with the official OpenLineage JSON Schemas (2-0-2): on every example
document of the spec (wrapped in a minimal event at its place) and on a set of broken events."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from broken_events import BROKEN, get_path
from openlineage_spec_examples import examples, minimal_run_event, official_errors
from spec_files import SPEC_DIR

from plumbline.openlineage import EventValidationError, parse_event


@pytest.mark.parametrize("example", examples(SPEC_DIR), ids=lambda e: e.id)
def test_spec_example_is_valid_for_both(spec_dir: Path, example: Any) -> None:
    event = example.wrapped()
    assert official_errors(spec_dir, event, [example.facet_file]) == []
    parsed = parse_event(event)
    assert parsed.kind == "RunEvent"
    # the facet is kept exactly as sent
    (name,) = example.document
    assert get_path(parsed.raw, example.place)[name] == example.document[name]


def test_full_event_example_is_valid_for_both(spec_dir: Path) -> None:
    event = json.loads((spec_dir / "tests" / "example_full_event.json").read_text())
    assert official_errors(spec_dir, event) == []
    parsed = parse_event(event)
    assert (parsed.kind, parsed.event.job.name, parsed.run_id) == (
        "RunEvent",
        "dbt",
        "f69a6e9b-9bac-3c9a-9cf6-eacb70ecc9a9",
    )


@pytest.mark.parametrize(
    ("mutate", "facet_file", "field"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN]
)
def test_broken_event_is_rejected_by_both(
    spec_dir: Path, mutate: Callable[[dict[str, Any]], None], facet_file: str | None, field: str
) -> None:
    event = minimal_run_event()
    mutate(event)
    files = [spec_dir / "facets" / f"{facet_file}.json"] if facet_file else []
    assert official_errors(spec_dir, event, files) != []
    with pytest.raises(EventValidationError) as raised:
        parse_event(copy.deepcopy(event))
    assert field in [v.field for v in raised.value.violations]


def test_known_deviations_from_the_schema(spec_dir: Path) -> None:
    """Where plumbline deliberately differs: a missing schemaURL is tolerated (as Marquez does),
    and eventTime must be a real RFC 3339 date-time (the schema's `format` is only an annotation)."""
    without_url = minimal_run_event()
    del without_url["schemaURL"]
    assert official_errors(spec_dir, without_url) != []
    assert parse_event(without_url).kind == "RunEvent"

    bad_time = minimal_run_event()
    bad_time["eventTime"] = "yesterday"
    assert official_errors(spec_dir, bad_time) == []
    with pytest.raises(EventValidationError) as raised:
        parse_event(bad_time)
    assert [v.field for v in raised.value.violations] == ["eventTime"]
