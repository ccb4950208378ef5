"""Test helpers for the write path: ingest events straight into a store, and read back a summary
of every lineage table with natural keys instead of ids (the same on SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from plumbline.openlineage import parse_event
from plumbline.store.write import WriteResult, writer_for

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden" / "events"
TABLES = [
    "namespaces",
    "sources",
    "datasets",
    "dataset_symlinks",
    "dataset_fields",
    "schema_versions",
    "dataset_versions",
    "jobs",
    "job_versions",
    "runs",
    "run_states",
    "run_io",
    "job_dataset_edges",
    "column_lineage_edges",
    "column_dataset_edges",
    "lineage_events",
]
EDGE_TABLES = ["job_dataset_edges", "column_lineage_edges", "column_dataset_edges"]


def load_golden(name: str) -> list[dict[str, Any]]:
    return json.loads((GOLDEN_DIR / name).read_text())


def ingest(
    engine: Engine, documents: list[dict[str, Any]], token_name: str | None = None
) -> WriteResult:
    """Validate and store ``documents`` as one request would."""
    return writer_for(engine).write([parse_event(d) for d in documents], token_name=token_name)


def counts(engine: Engine) -> dict[str, int]:
    with engine.connect() as connection:
        return {
            table: connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()  # noqa: S608
            for table in TABLES
        }


def _time(value: datetime | str | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):  # SQLite hands back text for raw SQL
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _facet_names(value: Any) -> list[str]:
    if isinstance(value, str):
        value = json.loads(value)
    return sorted(value or {})


def summary(engine: Engine) -> dict[str, Any]:
    """Every lineage table, by natural keys."""
    with engine.connect() as c:

        def rows(sql: str, **params: Any) -> list[Any]:
            return list(c.execute(sa.text(sql), params).all())

        datasets_by_id = {
            r.id: [r.ns, r.name]
            for r in rows(
                "SELECT d.id, n.name AS ns, d.name FROM datasets d JOIN namespaces n ON n.id = d.namespace_id"
            )
        }
        jobs_by_id = {
            r.id: f"{r.ns}:{r.name}"
            for r in rows(
                "SELECT j.id, n.name AS ns, j.name FROM jobs j JOIN namespaces n ON n.id = j.namespace_id"
            )
        }
        fields_by_id = {
            r.id: [*datasets_by_id[r.dataset_id], r.name]
            for r in rows("SELECT id, dataset_id, name FROM dataset_fields")
        }
        versions_by_id = {r.id: r.version for r in rows("SELECT id, version FROM dataset_versions")}
        runs_by_id = {r.id: r.uuid for r in rows("SELECT id, uuid FROM runs")}
        sources_by_id = {r.id: r.name for r in rows("SELECT id, name FROM sources")}
        schema_sizes = {
            r.id: len(json.loads(r.fields) if isinstance(r.fields, str) else r.fields)
            for r in rows("SELECT id, fields FROM schema_versions")
        }

        datasets = []
        for r in rows("SELECT * FROM datasets"):
            datasets.append(
                {
                    "dataset": datasets_by_id[r.id],
                    "source": sources_by_id.get(r.source_id),
                    "description": r.description,
                    "facets": _facet_names(r.facets),
                    "fields": sorted(
                        [f.name, f.type, f.description]
                        for f in rows(
                            "SELECT name, type, description FROM dataset_fields WHERE dataset_id = :id",
                            id=r.id,
                        )
                    ),
                    "symlinks": sorted(
                        [s.namespace, s.name, s.type]
                        for s in rows(
                            "SELECT namespace, name, type FROM dataset_symlinks WHERE dataset_id = :id",
                            id=r.id,
                        )
                    ),
                    "versions": sorted(
                        [
                            v.version,
                            v.run_uuid,
                            v.lifecycle_state,
                            schema_sizes.get(v.schema_version_id),
                        ]
                        for v in rows(
                            "SELECT * FROM dataset_versions WHERE dataset_id = :id", id=r.id
                        )
                    ),
                    "current_version": versions_by_id.get(r.current_version_id),
                    "current_schema_fields": schema_sizes.get(r.current_schema_version_id),
                    "last_modified_at": _time(r.last_modified_at),
                }
            )
        jobs = []
        for r in rows("SELECT * FROM jobs"):
            jobs.append(
                {
                    "job": jobs_by_id[r.id],
                    "type": r.type,
                    "location": r.location,
                    "description": r.description,
                    "parent": jobs_by_id.get(r.parent_job_id),
                    "facets": _facet_names(r.facets),
                    "latest_run": r.latest_run_uuid,
                    "versions": sorted(
                        (
                            [_json(v.inputs), _json(v.outputs)]
                            for v in rows(
                                "SELECT inputs, outputs FROM job_versions WHERE job_id = :id",
                                id=r.id,
                            )
                        ),
                        key=json.dumps,
                    ),
                    "has_current_version": r.current_version_id is not None,
                }
            )
        runs = []
        for r in rows("SELECT * FROM runs"):
            runs.append(
                {
                    "run": r.uuid,
                    "job": jobs_by_id[r.job_id],
                    "state": r.current_state,
                    "started_at": _time(r.started_at),
                    "ended_at": _time(r.ended_at),
                    "parent": r.parent_run_uuid,
                    "nominal": [_time(r.nominal_start_time), _time(r.nominal_end_time)],
                    "error": [r.error_message, r.error_language],
                    "facets": _facet_names(r.facets),
                    "job_facets": _facet_names(r.job_facets),
                    "has_job_version": r.job_version_id is not None,
                    "states": sorted(
                        [s.state, _time(s.transitioned_at)]
                        for s in rows(
                            "SELECT state, transitioned_at FROM run_states WHERE run_id = :id",
                            id=r.id,
                        )
                    ),
                }
            )
        return {
            "namespaces": sorted(r.name for r in rows("SELECT name FROM namespaces")),
            "sources": sorted(
                [r.name, r.type, r.connection_url] for r in rows("SELECT * FROM sources")
            ),
            "datasets": sorted(datasets, key=lambda d: d["dataset"]),
            "jobs": sorted(jobs, key=lambda j: j["job"]),
            "runs": sorted(runs, key=lambda r: r["run"]),
            "run_io": sorted(
                [
                    runs_by_id[r.run_id],
                    datasets_by_id[r.dataset_id],
                    r.direction,
                    versions_by_id.get(r.dataset_version_id),
                    [r.row_count, r.byte_count, r.file_count],
                    _facet_names(r.facets),
                ]
                for r in rows("SELECT * FROM run_io")
            ),
            "job_edges": sorted(
                [
                    jobs_by_id[r.job_id],
                    datasets_by_id[r.dataset_id],
                    r.direction,
                    _time(r.first_seen),
                    _time(r.last_seen),
                    r.run_count,
                ]
                for r in rows("SELECT * FROM job_dataset_edges")
            ),
            "column_edges": sorted(
                [
                    fields_by_id[r.output_field_id],
                    fields_by_id[r.input_field_id],
                    r.transformation_type,
                    r.transformation_subtype,
                    r.description,
                    bool(r.masking),
                    _time(r.first_seen),
                    _time(r.last_seen),
                ]
                for r in rows("SELECT * FROM column_lineage_edges")
            ),
            "column_dataset_edges": sorted(
                [
                    datasets_by_id[r.output_dataset_id],
                    fields_by_id[r.input_field_id],
                    r.transformation_type,
                    r.transformation_subtype,
                    _time(r.first_seen),
                    _time(r.last_seen),
                ]
                for r in rows("SELECT * FROM column_dataset_edges")
            ),
            "counts": counts(engine),
        }


def official_check(spec_dir: Path, events: list[dict[str, Any]]) -> list[str]:
    """Problems the official JSON Schemas find in ``events``, each facet against its own schema."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "openlineage"))
    from openlineage_spec_examples import official_errors

    facet_files = sorted((spec_dir / "facets").glob("*.json"))
    problems = []
    for index, event in enumerate(events):
        problems += [f"event {index}: {p}" for p in official_errors(spec_dir, event, facet_files)]
    return problems


PRODUCER = "https://github.com/example/plumbline-tests"
RUN_EVENT = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"


def facet(**fields: Any) -> dict[str, Any]:
    """A facet with the base fields every facet needs."""
    return {
        "_producer": PRODUCER,
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/X.json",
        **fields,
    }


def dataset(namespace: str, name: str, **facets: Any) -> dict[str, Any]:
    return (
        {"namespace": namespace, "name": name, "facets": facets}
        if facets
        else {"namespace": namespace, "name": name}
    )


def run_event(
    run_id: str,
    event_type: str | None,
    time: str,
    job: str = "job",
    namespace: str = "tests",
    inputs: list[dict[str, Any]] = (),  # type: ignore[assignment]
    outputs: list[dict[str, Any]] = (),  # type: ignore[assignment]
    **run_facets: Any,
) -> dict[str, Any]:
    """A RunEvent; ``time`` like '2024-01-01T00:00:05Z'."""
    event: dict[str, Any] = {
        "eventTime": time,
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT,
        "run": {"runId": run_id, "facets": run_facets} if run_facets else {"runId": run_id},
        "job": {"namespace": namespace, "name": job},
        "inputs": list(inputs),
        "outputs": list(outputs),
    }
    if event_type is not None:
        event["eventType"] = event_type
    return event


def column_lineage(
    fields: dict[str, list[tuple[str, str, str, str, str]]],
    dataset_deps: list[tuple[str, str, str, str, str]] = (),
) -> dict[str, Any]:  # type: ignore[assignment]
    """A columnLineage facet from {output field: [(ns, name, field, type, subtype)]}."""

    def input_field(ns: str, name: str, field: str, kind: str, subtype: str) -> dict[str, Any]:
        return {
            "namespace": ns,
            "name": name,
            "field": field,
            "transformations": [{"type": kind, "subtype": subtype}],
        }

    return facet(
        fields={
            out: {"inputFields": [input_field(*i) for i in ins]} for out, ins in fields.items()
        },
        dataset=[input_field(*i) for i in dataset_deps],
    )
