"""A tiny pipeline over two days, ingested as real OpenLineage events, and what each lineage
table holds for it (the shared helper of the SQL table tests: views on both backends, export,
Spark SQL, recipes).

    extract (run 1, day 1)  writes  file:/data/raw (a snapshot id, 2 rows)
    clean   (run 2, day 1)  reads raw, writes file:/warehouse/clean (catalog table db.clean),
                            column lineage: id <- raw.id (IDENTITY), total <- raw.amount
                            (AGGREGATION), raw.country shapes the whole output (FILTER)
    report  (run 3, day 2)  reads clean and the database table shop.public.customers (no known
                            producer), writes nothing; FAILs
    clean   (run 4, day 2)  reads raw, writes clean again, the same column lineage
    audit   (run 5, day 2)  reads clean, writes file:/audit (two hops from raw)

and, for the tests of ``stream_batch_lineage`` (:func:`stream_events`, ingested after the above):

    ingest  (run 16, day 2) a stream: Kafka topic orders (partitions 0 and 3) into the Delta
                            table file:/lake/orders, micro-batches 0-2 committing versions 56-58
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy.engine import Engine
from store_summary import column_lineage, dataset, facet, ingest, run_event

JOBS = "pipeline"
RAW = ("file", "/data/raw")
CLEAN = ("file", "/warehouse/clean")
CUSTOMERS = ("postgres://db:5432", "shop.public.customers")
AUDIT = ("file", "/audit")
KAFKA = ("kafka://broker:9092", "orders")
LAKE = ("file", "/lake/orders")
DAY1, DAY2 = date(2024, 1, 1), date(2024, 1, 2)
# micro-batches of the stream: (batch id, partition 0 offsets, partition 3 offsets, version)
BATCHES = ((0, (0, 500), (0, 900), "56"), (1, (500, 1200), (900, 1600), "57"),
           (2, (1200, 1500), (1600, 2400), "58"))  # fmt: skip


def run_uuid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def _stats(rows: int) -> dict[str, Any]:
    return {"outputStatistics": facet(rowCount=rows, size=rows * 100)}


def _raw(**extra: Any) -> dict[str, Any]:
    return {**dataset(*RAW, **extra)}


def _clean_out(rows: int) -> dict[str, Any]:
    lineage = column_lineage(
        {
            "id": [(*RAW, "id", "DIRECT", "IDENTITY")],
            "total": [(*RAW, "amount", "DIRECT", "AGGREGATION")],
        },
        [(*RAW, "country", "INDIRECT", "FILTER")],
    )
    symlinks = facet(
        identifiers=[{"namespace": "hive://meta", "name": "db.clean", "type": "TABLE"}]
    )
    out = dataset(*CLEAN, columnLineage=lineage, symlinks=symlinks)
    return {**out, "outputFacets": _stats(rows)}


def events() -> list[dict[str, Any]]:
    """The pipeline's events, in order."""
    raw_out = {
        **_raw(
            version=facet(datasetVersion="snap-11"),
            schema=facet(
                fields=[{"name": "id", "type": "long"}, {"name": "amount", "type": "double"}]
            ),
        ),
        "outputFacets": _stats(2),
    }
    t1, t2 = "2024-01-01T10:00:", "2024-01-02T10:00:"
    return [
        run_event(run_uuid(1), "START", t1 + "00Z", job="extract", namespace=JOBS, outputs=[raw_out]),
        run_event(run_uuid(1), "COMPLETE", t1 + "05Z", job="extract", namespace=JOBS, outputs=[raw_out]),
        run_event(run_uuid(2), "START", t1 + "10Z", job="clean", namespace=JOBS, inputs=[_raw()], outputs=[_clean_out(2)]),
        run_event(run_uuid(2), "COMPLETE", t1 + "20Z", job="clean", namespace=JOBS, inputs=[_raw()], outputs=[_clean_out(2)]),
        run_event(run_uuid(3), "START", t2 + "00Z", job="report", namespace=JOBS, inputs=[dataset(*CLEAN), dataset(*CUSTOMERS)]),
        run_event(run_uuid(3), "FAIL", t2 + "03Z", job="report", namespace=JOBS, inputs=[dataset(*CLEAN), dataset(*CUSTOMERS)]),
        run_event(run_uuid(4), "START", t2 + "10Z", job="clean", namespace=JOBS, inputs=[_raw()], outputs=[_clean_out(3)]),
        run_event(run_uuid(4), "COMPLETE", t2 + "12Z", job="clean", namespace=JOBS, inputs=[_raw()], outputs=[_clean_out(3)]),
        run_event(run_uuid(5), "START", t2 + "20Z", job="audit", namespace=JOBS, inputs=[dataset(*CLEAN)], outputs=[dataset(*AUDIT)]),
        run_event(run_uuid(5), "COMPLETE", t2 + "21Z", job="audit", namespace=JOBS, inputs=[dataset(*CLEAN)], outputs=[dataset(*AUDIT)]),
    ]  # fmt: skip


def _batch(batch_id: int, p0: tuple[int, int], p3: tuple[int, int], version: str) -> dict[str, Any]:
    partitions = [
        {"topic": KAFKA[1], "partition": n, "startOffset": start, "endOffset": end}
        for n, (start, end) in ((0, p0), (3, p3))
    ]
    return {
        "batchId": batch_id,
        "timestamp": f"2024-01-02T12:00:{batch_id:02d}.000Z",
        "numInputRows": p0[1] - p0[0] + p3[1] - p3[0],
        "sources": [{"description": "KafkaV2[Subscribe[orders]]", "namespace": KAFKA[0],
                     "failOnDataLoss": "true", "partitions": partitions, "partitionCount": 2}],
        "sinks": [{"namespace": LAKE[0], "name": LAKE[1], "version": version}],
    }  # fmt: skip


def stream_events() -> list[dict[str, Any]]:
    """The stream's run: batch 0 with its START, batches 1 and 2 with a RUNNING event. Its
    datasets are named by its micro-batches only (not as the run's inputs and outputs), so that
    the other tables' answers on the pipeline stay as they are."""
    return [
        run_event(run_uuid(16), event, f"2024-01-02T12:00:{second:02d}Z", job="ingest",
                  namespace=JOBS, streamBatches=facet(batches=[_batch(*b) for b in part]))
        for event, second, part in (("START", 0, BATCHES[:1]), ("RUNNING", 30, BATCHES[1:]))
    ]  # fmt: skip


def later_events() -> list[dict[str, Any]]:
    """Events after the pipeline's (for incremental exports): clean runs again on day 2 with
    its column lineage (a new version of clean; its job row and edges change), a new job on a
    new day writes a new dataset."""
    late, again = run_uuid(8), run_uuid(9)
    return [
        run_event(again, "START", "2024-01-02T11:00:00Z", job="clean", namespace=JOBS,
                  inputs=[_raw()], outputs=[_clean_out(4)]),
        run_event(again, "COMPLETE", "2024-01-02T11:00:05Z", job="clean", namespace=JOBS,
                  inputs=[_raw()], outputs=[_clean_out(4)]),
        run_event(late, "START", "2024-01-03T09:00:00Z", job="late", namespace=JOBS,
                  inputs=[dataset(*CLEAN)], outputs=[dataset("file", "/late")]),
        run_event(late, "COMPLETE", "2024-01-03T09:00:01Z", job="late", namespace=JOBS,
                  inputs=[dataset(*CLEAN)], outputs=[dataset("file", "/late")]),
    ]  # fmt: skip


def build(engine: Engine) -> None:
    """Ingest the pipeline into a migrated store."""
    ingest(engine, events())


def pick(rows: list[dict[str, Any]], *columns: str) -> list[tuple[Any, ...]]:
    """The rows cut to ``columns``, sorted (None first)."""
    return sorted(
        (tuple(row[c] for c in columns) for row in rows),
        key=lambda t: tuple((v is not None, str(v)) for v in t),
    )
