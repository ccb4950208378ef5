"""Broken OpenLineage events: each a change to a valid minimal event that both the official JSON
Schemas and plumbline's validation must reject (used by test_conformance and test_parse_body)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def get_path(document: Any, path: tuple[Any, ...]) -> Any:
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
        del get_path(event, path[:-1])[path[-1]]

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
