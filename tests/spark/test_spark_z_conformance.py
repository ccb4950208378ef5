"""Every event the capture emitted in this test session validates against the official
OpenLineage 2-0-2 JSON Schemas, each facet against its own schema.

The file name sorts last so that, in a full run, the events of every other scenario of the
session are in the events file when this test validates it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

import plumbline

pytestmark = pytest.mark.spark

RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


def _registry(spec_dir: Path) -> Registry:
    files = [spec_dir / "OpenLineage.json", *sorted((spec_dir / "facets").glob("*.json"))]
    # plumbline's own facets, checked against the schemas it ships (CompletenessRunFacet...)
    files += sorted((Path(plumbline.__file__).parent / "spark").glob("*.json"))
    resources = []
    for path in files:
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


def _facets(event: dict[str, Any]) -> list[dict[str, Any]]:
    found = [*event["run"]["facets"].values(), *event["job"]["facets"].values()]
    for dataset in event["inputs"] + event["outputs"]:
        for key in ("facets", "inputFacets", "outputFacets"):
            found.extend(dataset.get(key, {}).values())
    return found


def test_every_emitted_event_is_valid_openlineage(
    spark: Any, captured: Any, events_file: Path, workdir: Path, spec_dir: Path
) -> None:
    # a scenario of its own, so that the test also stands alone: file writes, a lazy spark.sql
    # write (sql facet), DDL (lifecycle changes) and every run's spark_properties facet
    spark.createDataFrame([(1, "a")], "id long, v string").write.parquet(str(workdir / "a"))
    spark.read.parquet(str(workdir / "a")).groupBy("v").count().write.json(str(workdir / "b"))
    spark.read.parquet(str(workdir / "a")).createOrReplaceTempView("plumbline_conformance")
    spark.sql("SELECT v, id * 2 AS twice FROM plumbline_conformance").write.orc(str(workdir / "c"))
    spark.sql("CREATE TABLE IF NOT EXISTS plumbline_t_conf (a INT) USING parquet")
    spark.sql("ALTER TABLE plumbline_t_conf RENAME TO plumbline_t_conf2")
    spark.sql("DROP TABLE IF EXISTS plumbline_t_conf2")
    captured.events()  # flush
    events = [json.loads(line) for line in events_file.read_text().splitlines() if line]
    assert len(events) >= 5  # this test's own: application START and two runs
    registry = _registry(spec_dir)
    validator = Draft202012Validator(
        {"$ref": RUN_EVENT}, registry=registry, format_checker=FormatChecker()
    )
    checked_facets = 0
    kinds_checked: set[str] = set()
    for event in events:
        errors = [e.message for e in validator.iter_errors(event)]
        assert errors == [], (event["eventType"], event["job"]["name"], errors)
        for facet in _facets(event):
            facet_validator = Draft202012Validator(
                {"$ref": facet["_schemaURL"]}, registry=registry, format_checker=FormatChecker()
            )
            facet_errors = [e.message for e in facet_validator.iter_errors(facet)]
            assert facet_errors == [], (facet["_schemaURL"], facet_errors)
            checked_facets += 1
            kinds_checked.add(facet["_schemaURL"].rsplit("/", 1)[-1])
    assert checked_facets > len(events)
    assert {
        "RunFacet",  # spark_properties
        "SQLJobFacet",
        "LifecycleStateChangeDatasetFacet",
        "ColumnLineageDatasetFacet",
        "SchemaDatasetFacet",
    } <= kinds_checked
    kinds = {event["eventType"] for event in events}
    assert {"START", "COMPLETE"} <= kinds
