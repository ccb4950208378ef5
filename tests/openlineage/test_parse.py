"""Parsing events: kinds by schemaURL, unknown facets kept, errors that name the field."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from openlineage_spec_examples import minimal_run_event

from plumbline.openlineage import (
    DatasetEvent,
    EventValidationError,
    JobEvent,
    RunEvent,
    event_digest,
    event_kind,
    parse_event,
)
from plumbline.openlineage.parse import field_path

BASE = "https://openlineage.io/spec/2-0-2/OpenLineage.json"
FACET = {"_producer": "https://example.com/p", "_schemaURL": "https://example.com/s.json"}


def _violations(document: Any) -> list[tuple[str | None, str]]:
    with pytest.raises(EventValidationError) as raised:
        parse_event(document)
    return [(v.field, v.message) for v in raised.value.violations]


@pytest.mark.parametrize(
    ("schema_url", "kind"),
    [
        (f"{BASE}#/$defs/RunEvent", "RunEvent"),
        (f"{BASE}#/$defs/JobEvent", "JobEvent"),
        (f"{BASE}#/$defs/DatasetEvent", "DatasetEvent"),
        ("https://openlineage.io/spec/1-0-5/OpenLineage.json#/definitions/RunEvent", "RunEvent"),
        ("https://openlineage.io/spec/1-0-5/OpenLineage.json#/definitions/JobEvent", "JobEvent"),
        (
            "https://openlineage.io/spec/1-0-5/OpenLineage.json#/definitions/DatasetEvent",
            "DatasetEvent",
        ),
    ],
)
def test_kind_comes_from_the_schema_url_suffix(schema_url: str, kind: str) -> None:
    assert event_kind({"schemaURL": schema_url}) == kind


def test_kind_without_a_suffix_comes_from_the_shape() -> None:
    assert event_kind({"run": {}, "job": {}}) == "RunEvent"
    assert event_kind({"dataset": {}}) == "DatasetEvent"
    assert event_kind({"job": {}, "schemaURL": BASE}) == "JobEvent"


def test_unknown_kind_suffix_is_rejected() -> None:
    event = minimal_run_event()
    event["schemaURL"] = f"{BASE}#/$defs/BaseEvent"
    [(field, message)] = _violations(event)
    assert field == "schemaURL"
    assert "RunEvent" in message


def test_run_event_is_parsed_with_typed_standard_facets_and_unknown_ones_kept() -> None:
    event = minimal_run_event()
    event["run"]["facets"] = {
        "nominalTime": {**FACET, "nominalStartTime": "2024-05-01T00:00:00Z"},
        "spark_properties": {**FACET, "properties": {"spark.master": "local[2]"}},
    }
    event["outputs"][0]["facets"] = {
        "schema": {**FACET, "fields": [{"name": "id", "type": "long", "x-extra": 1}]}
    }
    event["customTopLevel"] = {"kept": True}
    parsed = parse_event(copy.deepcopy(event))
    assert isinstance(parsed.event, RunEvent)
    facets = parsed.event.run.facets
    assert facets is not None and facets.nominal_time is not None
    assert facets.nominal_time.nominal_start_time == "2024-05-01T00:00:00Z"
    assert facets.model_extra is not None
    assert facets.model_extra["spark_properties"].model_extra == {
        "properties": {"spark.master": "local[2]"}
    }
    assert parsed.raw == event  # what is stored is exactly what was sent
    assert parsed.event_time.isoformat() == "2024-05-01T10:00:00+00:00"


def test_run_ids_are_compared_lower_case() -> None:
    event = minimal_run_event("3F5E83FA-3480-44FF-99C5-FF943904E5E8")
    assert parse_event(event).run_id == "3f5e83fa-3480-44ff-99c5-ff943904e5e8"


def test_event_type_is_optional_as_in_the_spec() -> None:
    event = minimal_run_event()
    del event["eventType"]
    parsed = parse_event(event)
    assert isinstance(parsed.event, RunEvent) and parsed.event.event_type is None


def test_dataset_event() -> None:
    event = {
        "eventTime": "2024-05-01T10:00:00+02:00",
        "producer": "https://example.com/p",
        "schemaURL": f"{BASE}#/$defs/DatasetEvent",
        "dataset": {
            "namespace": "s3://bucket",
            "name": "sales",
            "facets": {"symlinks": {**FACET, "identifiers": []}},
        },
    }
    parsed = parse_event(event)
    assert isinstance(parsed.event, DatasetEvent)
    assert parsed.namespace == "s3://bucket"
    assert parsed.run_id is None
    assert parsed.event_time.isoformat() == "2024-05-01T10:00:00+02:00"


def test_dataset_event_with_job_and_run_is_rejected() -> None:
    event = minimal_run_event()
    event["schemaURL"] = f"{BASE}#/$defs/DatasetEvent"
    event["dataset"] = {"namespace": "a", "name": "b"}
    [(field, message)] = _violations(event)
    assert (field, message) == (None, "a DatasetEvent must not carry both job and run")


def test_job_event_without_run() -> None:
    event = minimal_run_event()
    del event["run"], event["eventType"]
    event["schemaURL"] = f"{BASE}#/$defs/JobEvent"
    parsed = parse_event(event)
    assert isinstance(parsed.event, JobEvent)
    assert parsed.namespace == "spec-examples"


def test_job_event_with_run_is_rejected() -> None:
    event = minimal_run_event()
    event["schemaURL"] = f"{BASE}#/$defs/JobEvent"
    assert _violations(event) == [(None, "a JobEvent must not carry a run")]


def test_every_problem_is_named_with_its_path() -> None:
    event = minimal_run_event()
    event["eventType"] = "DONE"
    event["outputs"][0]["facets"] = {
        "schema": {**FACET, "fields": [{"name": "a"}, {"name": "b"}, {"name": 3}]},
        "my.vendor": {"no": "base"},
    }
    assert _violations(event) == [
        ("eventType", "Input should be 'START', 'RUNNING', 'COMPLETE', 'ABORT', 'FAIL' or 'OTHER'"),
        ("outputs[0].facets.schema.fields[2].name", "Input should be a valid string"),
        ('outputs[0].facets["my.vendor"]._producer', "is required"),
        ('outputs[0].facets["my.vendor"]._schemaURL', "is required"),
    ]


def test_time_without_zone_is_rejected() -> None:
    event = minimal_run_event()
    event["eventTime"] = "2024-05-01T10:00:00"
    [(field, message)] = _violations(event)
    assert field == "eventTime" and "time zone" in message


def test_not_an_object() -> None:
    assert _violations([1]) == [(None, "an event must be a JSON object")]


def test_digest_ignores_key_order_only() -> None:
    event = minimal_run_event()
    reordered = dict(reversed(list(event.items())))
    assert event_digest(event) == event_digest(reordered)
    changed = copy.deepcopy(event)
    changed["eventTime"] = "2024-05-01T10:00:01.000Z"
    assert event_digest(event) != event_digest(changed)


def test_field_path() -> None:
    assert field_path(("outputs", 0, "facets", "schema", "fields", 2, "name")) == (
        "outputs[0].facets.schema.fields[2].name"
    )
    assert field_path(("run", "facets", "spark.logicalPlan")) == 'run.facets["spark.logicalPlan"]'
    assert field_path(()) is None
