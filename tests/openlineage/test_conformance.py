"""plumbline's validation agrees with the official OpenLineage JSON Schemas (2-0-2): on every example
document of the spec (wrapped in a minimal event at its place) and on a set of broken events."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
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
    assert _get(parsed.raw, example.place)[name] == example.document[name]


def test_full_event_example_is_valid_for_both(spec_dir: Path) -> None:
    event = json.loads((spec_dir / "tests" / "example_full_event.json").read_text())
    assert official_errors(spec_dir, event) == []
    parsed = parse_event(event)
    assert (parsed.kind, parsed.event.job.name, parsed.run_id) == (
        "RunEvent",
        "dbt",
        "f69a6e9b-9bac-3c9a-9cf6-eacb70ecc9a9",
    )


def _get(document: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        document = document[part]
    return document


def _facet(**fields: Any) -> dict[str, Any]:
    return {
        "_producer": "https://example.com/p",
        "_schemaURL": "https://example.com/s.json",
        **fields,
    }


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(event: dict[str, Any]) -> None:
        target = event
        for part in path[:-1]:
            target = target.setdefault(part, {}) if isinstance(target, dict) else target[part]
        target[path[-1]] = value

    return mutate


def _delete(path: tuple[Any, ...]) -> Callable[[dict[str, Any]], None]:
    def mutate(event: dict[str, Any]) -> None:
        del _get(event, path[:-1])[path[-1]]

    return mutate


# (id, change to a valid event, facet schema file to check it against, field plumbline names)
BROKEN: list[tuple[str, Callable[[dict[str, Any]], None], str | None, str]] = [
    ("missing runId", _delete(("run", "runId")), None, "run.runId"),
    ("runId not a uuid", _set(("run", "runId"), "run-42"), None, "run.runId"),
    ("runId a number", _set(("run", "runId"), 42), None, "run.runId"),
    ("unknown eventType", _set(("eventType",), "FINISHED"), None, "eventType"),
    ("eventTime a number", _set(("eventTime",), 1714557600), None, "eventTime"),
    ("missing eventTime", _delete(("eventTime",)), None, "eventTime"),
    ("missing producer", _delete(("producer",)), None, "producer"),
    ("missing job name", _delete(("job", "name")), None, "job.name"),
    ("job namespace a number", _set(("job", "namespace"), 7), None, "job.namespace"),
    ("inputs not an array", _set(("inputs",), {"namespace": "a", "name": "b"}), None, "inputs"),
    (
        "output without namespace",
        _delete(("outputs", 0, "namespace")),
        None,
        "outputs[0].namespace",
    ),
    ("run facet not an object", _set(("run", "facets", "custom"), "x"), None, "run.facets.custom"),
    (
        "facet without _producer",
        _set(("job", "facets", "custom"), {"_schemaURL": "https://example.com/s.json"}),
        None,
        "job.facets.custom._producer",
    ),
    (
        "schema field name a number",
        _set(("outputs", 0, "facets", "schema"), _facet(fields=[{"name": "a"}, {"name": 3}])),
        "SchemaDatasetFacet",
        "outputs[0].facets.schema.fields[1].name",
    ),
    (
        "column lineage without inputFields",
        _set(("outputs", 0, "facets", "columnLineage"), _facet(fields={"a": {}})),
        "ColumnLineageDatasetFacet",
        "outputs[0].facets.columnLineage.fields.a.inputFields",
    ),
    (
        "column lineage input without field",
        _set(
            ("outputs", 0, "facets", "columnLineage"),
            _facet(fields={"a": {"inputFields": [{"namespace": "n", "name": "t"}]}}),
        ),
        "ColumnLineageDatasetFacet",
        "outputs[0].facets.columnLineage.fields.a.inputFields[0].field",
    ),
    (
        "symlink without type",
        _set(
            ("outputs", 0, "facets", "symlinks"),
            _facet(identifiers=[{"namespace": "n", "name": "t"}]),
        ),
        "SymlinksDatasetFacet",
        "outputs[0].facets.symlinks.identifiers[0].type",
    ),
    (
        "datasetVersion a number",
        _set(("outputs", 0, "facets", "version"), _facet(datasetVersion=2)),
        "DatasetVersionDatasetFacet",
        "outputs[0].facets.version.datasetVersion",
    ),
    (
        "unknown lifecycle state",
        _set(("outputs", 0, "facets", "lifecycleStateChange"), _facet(lifecycleStateChange="MOVE")),
        "LifecycleStateChangeDatasetFacet",
        "outputs[0].facets.lifecycleStateChange.lifecycleStateChange",
    ),
    (
        "errorMessage without message",
        _set(("run", "facets", "errorMessage"), _facet(programmingLanguage="python")),
        "ErrorMessageRunFacet",
        "run.facets.errorMessage.message",
    ),
    (
        "parent run id not a uuid",
        _set(
            ("run", "facets", "parent"),
            _facet(run={"runId": "nope"}, job={"namespace": "n", "name": "p"}),
        ),
        "ParentRunFacet",
        "run.facets.parent.run.runId",
    ),
    (
        "parent without job",
        _set(
            ("run", "facets", "parent"),
            _facet(run={"runId": "3f5e83fa-3480-44ff-99c5-ff943904e5e9"}),
        ),
        "ParentRunFacet",
        "run.facets.parent.job",
    ),
    (
        "nominalTime without start",
        _set(("run", "facets", "nominalTime"), _facet(nominalEndTime="2024-01-01T00:00:00Z")),
        "NominalTimeRunFacet",
        "run.facets.nominalTime.nominalStartTime",
    ),
    (
        "inputStatistics rowCount a string",
        _set(("inputs", 0, "inputFacets", "inputStatistics"), _facet(rowCount="10")),
        "InputStatisticsInputDatasetFacet",
        "inputs[0].inputFacets.inputStatistics.rowCount",
    ),
    (
        "outputStatistics size a float",
        _set(("outputs", 0, "outputFacets", "outputStatistics"), _facet(size=1.5)),
        "OutputStatisticsOutputDatasetFacet",
        "outputs[0].outputFacets.outputStatistics.size",
    ),
    (
        "sql without query",
        _set(("job", "facets", "sql"), _facet(dialect="spark")),
        "SQLJobFacet",
        "job.facets.sql.query",
    ),
    (
        "jobType without integration",
        _set(("job", "facets", "jobType"), _facet(processingType="BATCH")),
        "JobTypeJobFacet",
        "job.facets.jobType.integration",
    ),
    (
        "dataSource name a number",
        _set(("outputs", 0, "facets", "dataSource"), _facet(name=5)),
        "DatasourceDatasetFacet",
        "outputs[0].facets.dataSource.name",
    ),
]


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
