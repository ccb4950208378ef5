"""OpenLineage 2-0-2 RunEvents (plain JSON-ready dicts) from `ActionFacts`."""

from __future__ import annotations

import re
import traceback
import uuid
from datetime import UTC, datetime
from typing import Any

from plumbline import __version__
from plumbline.openlineage import confidence, deviations
from plumbline.openlineage.schema_urls import (
    COMPLETENESS_FACET_SCHEMA_URL,
    DEVIATIONS_FACET_SCHEMA_URL,
    RUN_EVENT_SCHEMA_URL,
    RUN_FACET_SCHEMA_URL,
    facet_schema_url,
)
from plumbline.spark.datasets import DatasetId, redact_text
from plumbline.spark.extract import ActionFacts, DatasetFacts
from plumbline.spark.lineage import Deps

PRODUCER = f"https://github.com/plumbline/plumbline/tree/{__version__}/plumbline/spark"


def facet(kind: str, **fields: Any) -> dict[str, Any]:
    """A facet with `_producer` and the `_schemaURL` of its official schema."""
    return {
        "_producer": PRODUCER,
        "_schemaURL": facet_schema_url(kind),
        **fields,
    }


def iso_time(epoch_ms: float) -> str:
    """An event time in ISO 8601 UTC with milliseconds."""
    moment = datetime.fromtimestamp(epoch_ms / 1000.0, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_run_id() -> str:
    """A fresh run id (UUID)."""
    return str(uuid.uuid4())


# the namespace of the name-based (version 5) UUIDs of Spark applications' and actions' runs
_RUN_IDS = uuid.UUID("0b5e6f3c-8d7a-5c1e-9f42-6a1d2c3b4e5f")


def app_run_id(app_id: str, attempt: str | None = None) -> str:
    """The run id of a Spark application (attempt): the same for live capture and extraction."""
    return str(uuid.uuid5(_RUN_IDS, f"app/{app_id}/{attempt or ''}"))


def execution_run_id(app_id: str, attempt: str | None, execution_id: int) -> str:
    """The run id of the action whose root SQL execution is `execution_id` in an application:
    the same whether captured live or extracted from the event log, so both make one run."""
    return str(uuid.uuid5(_RUN_IDS, f"execution/{app_id}/{attempt or ''}/{execution_id}"))


def normalize_name(name: str) -> str:
    """OpenLineage Spark job-name normalization: split camelCase, lower, non-alphanumerics to `_`."""
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def action_job_name(app_job: str, facts: ActionFacts) -> str:
    """`<app>.execute_<command>.<output>`, stable across runs of the same action."""
    output = facts.outputs[0] if facts.outputs else None
    suffix = ""
    if output is not None:
        if output.table is not None:
            suffix = normalize_name(f"{output.table.database or 'default'}_{output.table.table}")
        elif (
            output.id.namespace == "file" or "://" in output.id.namespace and "/" in output.id.name
        ):
            suffix = normalize_name(output.id.name.rstrip("/").rsplit("/", 1)[-1])
        else:
            suffix = normalize_name(output.id.name)
    command = f"execute_{normalize_name(facts.command)}"
    return ".".join(p for p in (app_job, command, suffix) if p)


def _schema(fields: list[dict[str, Any]]) -> dict[str, Any]:
    return facet("SchemaDatasetFacet", fields=[_field(f) for f in fields])


def _field(spark_field: dict[str, Any]) -> dict[str, Any]:
    kind = spark_field.get("type")
    result: dict[str, Any] = {"name": str(spark_field.get("name"))}
    if kind is not None:  # unknown (a column an event log does not type)
        result["type"] = _type_name(kind)
    if isinstance(kind, dict) and kind.get("type") == "struct":
        result["fields"] = [_field(f) for f in kind.get("fields", [])]
    return result


def _type_name(kind: Any) -> str:
    if isinstance(kind, str):
        return kind
    if isinstance(kind, dict):
        name = kind.get("type")
        if name == "array":
            return f"array<{_type_name(kind.get('elementType'))}>"
        if name == "map":
            return f"map<{_type_name(kind.get('keyType'))},{_type_name(kind.get('valueType'))}>"
        return str(name)
    return str(kind)


def _input_fields(deps: Deps, names: dict[str, DatasetId]) -> list[dict[str, Any]]:
    fields = []
    for (key, column), transformations in sorted(deps.items()):
        dataset = names.get(key)
        if dataset is None:
            continue
        fields.append(
            {
                "namespace": dataset.namespace,
                "name": dataset.name,
                "field": column,
                "transformations": [{"type": t, "subtype": s} for t, s in sorted(transformations)],
            }
        )
    return fields


def _column_lineage(output: DatasetFacts, names: dict[str, DatasetId]) -> dict[str, Any] | None:
    lineage = output.lineage
    if lineage is None or not (lineage.columns or lineage.dataset):
        return None
    fields = {
        column: {"inputFields": _input_fields(deps, names)}
        for column, deps in lineage.columns.items()
    }
    return facet(
        "ColumnLineageDatasetFacet",
        fields={k: v for k, v in fields.items() if v["inputFields"]},
        dataset=_input_fields(lineage.dataset, names),
    )


def _common_facets(dataset: DatasetFacts) -> dict[str, Any]:
    facets: dict[str, Any] = {}
    if dataset.schema:
        facets["schema"] = _schema(dataset.schema)
    namespace = dataset.id.namespace
    uri = namespace if "://" in namespace else f"{namespace}:///"
    facets["dataSource"] = facet("DatasourceDatasetFacet", name=namespace, uri=uri)
    if dataset.file_format:
        facets["storage"] = facet(
            "StorageDatasetFacet", storageLayer="default", fileFormat=dataset.file_format
        )
    if dataset.table is not None:
        warehouse = dataset.table.warehouse or "spark_catalog"
        facets["symlinks"] = facet(
            "SymlinksDatasetFacet",
            identifiers=[
                {
                    "namespace": warehouse,
                    "name": f"{dataset.table.database or 'default'}.{dataset.table.table}",
                    "type": "TABLE",
                }
            ],
        )
    return facets


def datasets(
    facts: ActionFacts, *, with_stats: bool, versions: dict[str, str] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The event's `inputs` and `outputs`."""
    names = {d.id.key: d.id for d in facts.inputs}
    inputs = []
    for dataset in facts.inputs:
        entry: dict[str, Any] = {
            "namespace": dataset.id.namespace,
            "name": dataset.id.name,
            "facets": _common_facets(dataset),
        }
        if dataset.version:  # the table format's version the read scanned
            entry["facets"]["version"] = facet(
                "DatasetVersionDatasetFacet", datasetVersion=dataset.version
            )
        if with_stats and dataset.stats:
            entry["inputFacets"] = {
                "inputStatistics": facet("InputStatisticsInputDatasetFacet", **dataset.stats)
            }
        inputs.append(entry)
    outputs = []
    for dataset in facts.outputs:
        facets = _common_facets(dataset)
        lineage = _column_lineage(dataset, names)
        if lineage is not None:
            facets["columnLineage"] = lineage
        if dataset.lifecycle:
            change: dict[str, Any] = {"lifecycleStateChange": dataset.lifecycle}
            if dataset.previous is not None:
                change["previousIdentifier"] = {
                    "namespace": dataset.previous.namespace,
                    "name": dataset.previous.name,
                }
            facets["lifecycleStateChange"] = facet("LifecycleStateChangeDatasetFacet", **change)
        version = (versions or {}).get(dataset.id.key) or dataset.version
        if version:
            facets["version"] = facet("DatasetVersionDatasetFacet", datasetVersion=version)
        entry = {"namespace": dataset.id.namespace, "name": dataset.id.name, "facets": facets}
        if with_stats and dataset.stats:
            entry["outputFacets"] = {
                "outputStatistics": facet("OutputStatisticsOutputDatasetFacet", **dataset.stats)
            }
        outputs.append(entry)
    return inputs, outputs


def completeness(facts: ActionFacts, truncated: int = 0) -> dict[str, Any]:
    """The `plumbline_completeness` run facet (issue 31 §2): `complete`, or `partial` with the
    reasons the lineage walk of each output met (an RDD action's columns come from code;
    `truncated`: plan nodes an event log cut short)."""
    reasons: dict[str, None] = {}
    if facts.job_type == "RDD_JOB":
        reasons[f"{confidence.RDD}: an RDD action (its records come from code)"] = None
    for output in facts.outputs:
        for reason in output.lineage.reasons if output.lineage is not None else ():
            reasons[reason] = None
    if truncated:
        reasons[f"{confidence.TRUNCATED_PLAN}: {truncated} plan node(s) cut short in the log"] = (
            None
        )
    kept = list(reasons)[: confidence.MAX_REASONS]
    return {
        "_producer": PRODUCER,
        "_schemaURL": COMPLETENESS_FACET_SCHEMA_URL,
        "completeness": confidence.PARTIAL if kept else confidence.COMPLETE,
        "reasons": kept,
    }


def completeness_facets(facts: ActionFacts, truncated: int = 0) -> dict[str, Any]:
    """The run facets :func:`completeness` makes, by name (to merge into an event's)."""
    return {confidence.FACET: completeness(facts, truncated)}


def observed_deviations(facts: ActionFacts) -> list[dict[str, Any]]:
    """Where an action's plan and its execution metrics disagree (issue 31 §3): inputs the plan
    names that the scans read 0 rows or files of, outputs written with 0 rows, written columns
    null in every row by the format's statistics. Only from metrics the capture read: an input or
    output without them is not judged."""
    found: list[dict[str, Any]] = []

    def add(kind: str, dataset: DatasetFacts, detail: str, **more: str) -> None:
        found.append(
            {"kind": kind, "namespace": dataset.id.namespace, "name": dataset.id.name}
            | more
            | {"detail": detail}
        )

    for dataset in facts.inputs:
        stats = dataset.stats
        if stats.get("rowCount") == 0 or stats.get("fileCount") == 0:
            read = ", ".join(
                f"{stats[k]} {k[:-5]}s" for k in ("rowCount", "fileCount") if k in stats
            )
            add(deviations.UNREAD_INPUT, dataset, f"the plan reads it; the run read {read}")
    for dataset in facts.outputs:
        if dataset.stats.get("rowCount") == 0 and not dataset.ignore_mode:
            add(deviations.EMPTY_OUTPUT, dataset, "the run wrote 0 rows")
        for column in dataset.null_columns or ():
            add(
                deviations.ALL_NULL_COLUMN,
                dataset,
                f"null in every row written ({dataset.table_format} statistics)",
                field=column,
            )
    return found[: deviations.MAX_DEVIATIONS]


def deviation_facets(facts: ActionFacts) -> dict[str, Any]:
    """The ``plumbline_observedDeviations`` run facet by name, or nothing when plan and
    execution agree."""
    found = observed_deviations(facts)
    if not found:
        return {}
    return {
        deviations.FACET: {
            "_producer": PRODUCER,
            "_schemaURL": DEVIATIONS_FACET_SCHEMA_URL,
            "deviations": found,
        }
    }


def job_type(kind: str, processing: str = "BATCH") -> dict[str, Any]:
    """The jobType facet (`APPLICATION` for the Spark application, `SQL_JOB` or `RDD_JOB` for an
    action; `processing` is BATCH or STREAMING)."""
    return facet("JobTypeJobFacet", processingType=processing, integration="SPARK", jobType=kind)


def processing_engine(spark_version: str) -> dict[str, Any]:
    """The processing_engine run facet."""
    return facet(
        "ProcessingEngineRunFacet",
        version=spark_version,
        name="spark",
        openlineageAdapterVersion=__version__,
    )


def spark_properties(properties: dict[str, str]) -> dict[str, Any]:
    """The `spark_properties` run facet, named and shaped as the JVM OpenLineage agent's.

    It has no schema of its own in the spec; like the agent's custom facets it points at the
    generic RunFacet definition.
    """
    return {"_producer": PRODUCER, "_schemaURL": RUN_FACET_SCHEMA_URL, "properties": properties}


def parent(namespace: str, job: str, run_id: str) -> dict[str, Any]:
    """A parent facet pointing at the application run (which is also the root)."""
    ref = {"run": {"runId": run_id}, "job": {"namespace": namespace, "name": job}}
    return facet("ParentRunFacet", **ref, root=ref)


def error_message(message: str, stack: str, language: str = "JAVA") -> dict[str, Any]:
    """The errorMessage run facet of a failed action (JAVA) or application (PYTHON)."""
    return facet(
        "ErrorMessageRunFacet", message=message, programmingLanguage=language, stackTrace=stack
    )


def application_error(error: BaseException | str | None) -> dict[str, Any]:
    """The errorMessage facet of a failed application run: the exception that ended it (with
    its Python traceback), a reason in words, or a generic one when none is known."""
    if isinstance(error, BaseException):
        message = f"{type(error).__name__}: {error}".rstrip(": ")
        stack = "".join(traceback.format_exception(error))
        return error_message(redact_text(message), redact_text(stack), "PYTHON")
    return error_message(redact_text(error or "the Spark application failed"), "", "PYTHON")


def run_event(
    event_type: str,
    event_time_ms: float,
    run_id: str,
    job_namespace: str,
    job_name: str,
    *,
    run_facets: dict[str, Any] | None = None,
    job_facets: dict[str, Any] | None = None,
    inputs: list[dict[str, Any]] | None = None,
    outputs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One RunEvent."""
    return {
        "eventType": event_type,
        "eventTime": iso_time(event_time_ms),
        "run": {"runId": run_id, "facets": run_facets or {}},
        "job": {"namespace": job_namespace, "name": job_name, "facets": job_facets or {}},
        "inputs": inputs or [],
        "outputs": outputs or [],
        "producer": PRODUCER,
        "schemaURL": RUN_EVENT_SCHEMA_URL,
    }


def action_job_facets(facts: ActionFacts) -> dict[str, Any]:
    """Job facets of an action: jobType, and sql when it came from `spark.sql`."""
    facets = {"jobType": job_type(facts.job_type, facts.processing_type)}
    if facts.sql:
        facets["sql"] = facet("SQLJobFacet", query=facts.sql, dialect="spark")
    return facets
