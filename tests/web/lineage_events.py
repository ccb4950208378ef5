"""A small, hand-written OpenLineage event set with known lineage for the UI tests.

Two jobs of the app ``shop_etl`` over four file datasets:

    /data/raw/orders ──► shop_etl.clean_orders ──► /data/clean/orders ──┐
                                                                       ├─► shop_etl.revenue_by_country ──► /data/marts/revenue_by_country
    /data/raw/customers ───────────────────────────────────────────────┘

clean_orders runs twice (100 then 120 rows; the second run changes ``amount`` from int to double and
adds ``currency``); revenue_by_country completes once, then fails with an error and stack trace.
Every action run has a ``parent`` facet pointing at the day's ``shop_etl`` application run.
"""

from __future__ import annotations

from typing import Any

PRODUCER = "https://github.com/plumbline/tests/web"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
FACET = "https://openlineage.io/spec/facets/{version}/{name}.json"
JOB_NS = "shop"
DS_NS = "file"
RAW_ORDERS = "/data/raw/orders"
RAW_CUSTOMERS = "/data/raw/customers"
CLEAN_ORDERS = "/data/clean/orders"
REVENUE = "/data/marts/revenue_by_country"
APP = "shop_etl"
CLEAN_JOB = "shop_etl.clean_orders"
REVENUE_JOB = "shop_etl.revenue_by_country"

APP_RUNS = [
    "0194a000-0000-7000-8000-00000000a001",
    "0194a000-0000-7000-8000-00000000a002",
    "0194a000-0000-7000-8000-00000000a003",
]
CLEAN_RUNS = ["0194a000-0000-7000-8000-00000000c001", "0194a000-0000-7000-8000-00000000c002"]
REVENUE_RUNS = ["0194a000-0000-7000-8000-00000000e001", "0194a000-0000-7000-8000-00000000e002"]
FAILED_RUN = REVENUE_RUNS[1]
ERROR_MESSAGE = (
    "AnalysisException: [UNRESOLVED_COLUMN] A column `currency_rate` cannot be resolved."
)
STACK_TRACE = (
    "Traceback (most recent call last):\n"
    '  File "/jobs/revenue.py", line 42, in <module>\n'
    '    df.withColumn("total_eur", F.col("amount") * F.col("currency_rate"))\n'
    "pyspark.errors.exceptions.captured.AnalysisException: [UNRESOLVED_COLUMN] "
    "A column `currency_rate` cannot be resolved."
)

RAW_ORDERS_FIELDS = [("order_id", "long"), ("customer_id", "long"), ("amount", "int")]
RAW_CUSTOMERS_FIELDS = [("customer_id", "long"), ("country", "string")]
CLEAN_V1 = [("order_id", "long"), ("customer_id", "long"), ("amount", "int")]
CLEAN_V2 = [
    ("order_id", "long"),
    ("customer_id", "long"),
    ("amount", "double"),
    ("currency", "string"),
]
REVENUE_FIELDS = [("country", "string"), ("total", "double")]


def facet(name: str, version: str, **body: Any) -> dict[str, Any]:
    return {"_producer": PRODUCER, "_schemaURL": FACET.format(version=version, name=name), **body}


def schema(fields: list[tuple[str, str]]) -> dict[str, Any]:
    return facet("SchemaDatasetFacet", "1-2-0", fields=[{"name": n, "type": t} for n, t in fields])


def field_input(ds: str, field: str, ttype: str, subtype: str) -> dict[str, Any]:
    return {
        "namespace": DS_NS,
        "name": ds,
        "field": field,
        "transformations": [{"type": ttype, "subtype": subtype}],
    }


def dataset(name: str, fields: list[tuple[str, str]], **facets: Any) -> dict[str, Any]:
    return {"namespace": DS_NS, "name": name, "facets": {"schema": schema(fields), **facets}}


def event(
    event_type: str,
    time: str,
    job: str,
    run_id: str,
    *,
    inputs: list | None = None,
    outputs: list | None = None,
    run_facets: dict | None = None,
) -> dict[str, Any]:
    return {
        "eventType": event_type,
        "eventTime": time,
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
        "run": {"runId": run_id, "facets": run_facets or {}},
        "job": {
            "namespace": JOB_NS,
            "name": job,
            "facets": {
                "jobType": facet(
                    "JobTypeJobFacet",
                    "2-0-4",
                    processingType="BATCH",
                    integration="SPARK",
                    jobType="JOB" if job != APP else "APPLICATION",
                ),
            },
        },
        "inputs": inputs or [],
        "outputs": outputs or [],
    }


def parent(app_run: str) -> dict[str, Any]:
    return {
        "parent": facet(
            "ParentRunFacet",
            "1-2-0",
            run={"runId": app_run},
            job={"namespace": JOB_NS, "name": APP},
        )
    }


def clean_output(fields: list[tuple[str, str]], rows: int) -> dict[str, Any]:
    lineage = {
        "order_id": {"inputFields": [field_input(RAW_ORDERS, "order_id", "DIRECT", "IDENTITY")]},
        "customer_id": {
            "inputFields": [field_input(RAW_ORDERS, "customer_id", "DIRECT", "IDENTITY")]
        },
        "amount": {"inputFields": [field_input(RAW_ORDERS, "amount", "DIRECT", "TRANSFORMATION")]},
    }
    out = dataset(
        CLEAN_ORDERS,
        fields,
        columnLineage=facet("ColumnLineageDatasetFacet", "1-2-0", fields=lineage),
    )
    out["outputFacets"] = {
        "outputStatistics": facet(
            "OutputStatisticsOutputDatasetFacet", "1-0-2", rowCount=rows, size=rows * 64
        )
    }
    return out


def revenue_output(rows: int | None) -> dict[str, Any]:
    lineage = facet(
        "ColumnLineageDatasetFacet",
        "1-2-0",
        fields={
            "country": {
                "inputFields": [field_input(RAW_CUSTOMERS, "country", "DIRECT", "IDENTITY")]
            },
            "total": {
                "inputFields": [field_input(CLEAN_ORDERS, "amount", "DIRECT", "AGGREGATION")]
            },
        },
        dataset=[
            field_input(CLEAN_ORDERS, "customer_id", "INDIRECT", "JOIN"),
            field_input(RAW_CUSTOMERS, "customer_id", "INDIRECT", "JOIN"),
            field_input(RAW_CUSTOMERS, "country", "INDIRECT", "GROUP_BY"),
        ],
    )
    out = dataset(REVENUE, REVENUE_FIELDS, columnLineage=lineage)
    if rows is not None:
        out["outputFacets"] = {
            "outputStatistics": facet(
                "OutputStatisticsOutputDatasetFacet", "1-0-2", rowCount=rows, size=rows * 32
            )
        }
    return out


def events() -> list[dict[str, Any]]:
    """The whole set, in the order a producer would send it."""
    raw_orders = dataset(RAW_ORDERS, RAW_ORDERS_FIELDS)
    raw_orders["inputFacets"] = {
        "inputStatistics": facet(
            "InputStatisticsInputDatasetFacet", "1-0-0", rowCount=100, size=4096
        )
    }
    raw_customers = dataset(RAW_CUSTOMERS, RAW_CUSTOMERS_FIELDS)
    clean_v2_in = dataset(CLEAN_ORDERS, CLEAN_V2)
    error = {
        "errorMessage": facet(
            "ErrorMessageRunFacet",
            "1-0-1",
            message=ERROR_MESSAGE,
            programmingLanguage="python",
            stackTrace=STACK_TRACE,
        )
    }
    return [
        # Day 1: clean_orders writes version 1 (100 rows).
        event("START", "2026-01-10T08:00:00.000Z", APP, APP_RUNS[0]),
        event(
            "START",
            "2026-01-10T08:00:01.000Z",
            CLEAN_JOB,
            CLEAN_RUNS[0],
            inputs=[raw_orders],
            outputs=[dataset(CLEAN_ORDERS, CLEAN_V1)],
            run_facets=parent(APP_RUNS[0]),
        ),
        event(
            "COMPLETE",
            "2026-01-10T08:00:13.000Z",
            CLEAN_JOB,
            CLEAN_RUNS[0],
            inputs=[raw_orders],
            outputs=[clean_output(CLEAN_V1, 100)],
            run_facets=parent(APP_RUNS[0]),
        ),
        event("COMPLETE", "2026-01-10T08:00:14.000Z", APP, APP_RUNS[0]),
        # Day 2: clean_orders writes version 2 (new schema, 120 rows); revenue completes.
        event("START", "2026-01-11T08:00:00.000Z", APP, APP_RUNS[1]),
        event(
            "START",
            "2026-01-11T08:00:01.000Z",
            CLEAN_JOB,
            CLEAN_RUNS[1],
            inputs=[raw_orders],
            outputs=[dataset(CLEAN_ORDERS, CLEAN_V2)],
            run_facets=parent(APP_RUNS[1]),
        ),
        event(
            "COMPLETE",
            "2026-01-11T08:00:21.000Z",
            CLEAN_JOB,
            CLEAN_RUNS[1],
            inputs=[raw_orders],
            outputs=[clean_output(CLEAN_V2, 120)],
            run_facets=parent(APP_RUNS[1]),
        ),
        event(
            "START",
            "2026-01-11T08:00:22.000Z",
            REVENUE_JOB,
            REVENUE_RUNS[0],
            inputs=[clean_v2_in, raw_customers],
            outputs=[dataset(REVENUE, REVENUE_FIELDS)],
            run_facets=parent(APP_RUNS[1]),
        ),
        event(
            "COMPLETE",
            "2026-01-11T08:00:52.000Z",
            REVENUE_JOB,
            REVENUE_RUNS[0],
            inputs=[clean_v2_in, raw_customers],
            outputs=[revenue_output(5)],
            run_facets=parent(APP_RUNS[1]),
        ),
        event("COMPLETE", "2026-01-11T08:00:53.000Z", APP, APP_RUNS[1]),
        # Day 3: revenue fails.
        event("START", "2026-01-12T08:00:00.000Z", APP, APP_RUNS[2]),
        event(
            "START",
            "2026-01-12T08:00:01.000Z",
            REVENUE_JOB,
            REVENUE_RUNS[1],
            inputs=[clean_v2_in, raw_customers],
            outputs=[dataset(REVENUE, REVENUE_FIELDS)],
            run_facets=parent(APP_RUNS[2]),
        ),
        event(
            "FAIL",
            "2026-01-12T08:00:05.000Z",
            REVENUE_JOB,
            REVENUE_RUNS[1],
            inputs=[clean_v2_in, raw_customers],
            outputs=[revenue_output(None)],
            run_facets={**parent(APP_RUNS[2]), **error},
        ),
        event("COMPLETE", "2026-01-12T08:00:06.000Z", APP, APP_RUNS[2]),
    ]


def big_graph_events(levels: int = 5, width: int = 100) -> list[dict[str, Any]]:
    """A generated lineage of 1 + levels*width datasets and levels*width jobs (1,001 nodes with
    the defaults): each job reads one or two datasets of the level before and writes one."""
    out = []
    prev = ["/big/source"]
    n = 0
    for level in range(levels):
        cur = []
        for i in range(width):
            name = f"/big/l{level}/d{i:03d}"
            reads = {prev[(i * 7) % len(prev)], prev[(i * 13 + 5) % len(prev)]}
            n += 1
            run_id = f"0194b000-0000-7000-8000-{n:012d}"
            out.append(
                event(
                    "COMPLETE",
                    f"2026-02-01T{level:02d}:{i // 60:02d}:{i % 60:02d}.000Z",
                    f"big.l{level}.j{i:03d}",
                    run_id,
                    inputs=[dataset(r, [("id", "long")]) for r in sorted(reads)],
                    outputs=[dataset(name, [("id", "long")])],
                )
            )
            cur.append(name)
        prev = cur
    return out
