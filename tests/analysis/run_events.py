"""OpenLineage events of a small pipeline for the run diff, root cause and version lineage tests:
``load`` writes ``orders`` from ``raw``; ``report`` reads ``orders`` (and later ``fx``) and writes
``report``. Each helper gives a run's START and terminal event."""

from __future__ import annotations

from typing import Any

from store_summary import column_lineage, dataset, facet, run_event

NS = "shop"
DS = "warehouse"


def run_id(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def at(minute: int) -> str:
    return f"2024-05-01T{minute // 60:02d}:{minute % 60:02d}:00Z"


def schema(**fields: str) -> dict[str, Any]:
    return facet(fields=[{"name": k, "type": v} for k, v in fields.items()])


def stats(rows: int, size: int, kind: str = "input") -> dict[str, Any]:
    name = "inputStatistics" if kind == "input" else "outputStatistics"
    return {name: facet(rowCount=rows, size=size, fileCount=1)}


def run(
    n: int,
    job: str,
    start: int,
    *,
    inputs: list[dict[str, Any]] = (),  # type: ignore[assignment]
    outputs: list[dict[str, Any]] = (),  # type: ignore[assignment]
    state: str = "COMPLETE",
    minutes: int = 5,
    job_facets: dict[str, Any] | None = None,
    spark: str = "3.5.1",
    properties: dict[str, str] | None = None,
    error: str | None = None,
) -> list[dict[str, Any]]:
    """START and a terminal event of run ``n`` of ``job``."""
    run_facets: dict[str, Any] = {
        "processing_engine": facet(name="spark", version=spark),
        "spark_properties": facet(properties=properties or {"spark.master": "local[2]"}),
    }
    events = []
    for event_type, minute in (("START", start), (state, start + minutes)):
        facets = dict(run_facets)
        if event_type == "FAIL" and error:
            facets["errorMessage"] = facet(message=error, programmingLanguage="python")
        event = run_event(
            run_id(n), event_type, at(minute), job=job, namespace=NS,
            inputs=inputs, outputs=outputs, **facets,
        )  # fmt: skip
        if job_facets:
            event["job"]["facets"] = job_facets
        events.append(event)
    return events


def raw(rows: int = 10, size: int = 100, **fields: str) -> dict[str, Any]:
    ds = dataset(DS, "raw", schema=schema(**(fields or {"id": "string", "price": "string"})))
    return {**ds, "inputFacets": stats(rows, size)}


def orders_out(rows: int = 10, **fields: str) -> dict[str, Any]:
    columns = fields or {"id": "string", "price": "decimal(10,2)"}
    lineage = column_lineage({name: [(DS, "raw", name, "DIRECT", "IDENTITY")] for name in columns})
    ds = dataset(DS, "orders", schema=schema(**columns), columnLineage=lineage)
    return {**ds, "outputFacets": stats(rows, rows * 10, "output")}


def sql(query: str) -> dict[str, Any]:
    return {"sql": facet(query=query, dialect="spark")}
