"""The table-level lineage of `plumbline demo` (as its capture records it), as events for the UI tests.

Thirteen jobs over fourteen datasets, nine layers from the raw files to ``country_report``: four
clean jobs, the fact table (with the DDL jobs of its table), three marts and the report. Job and
dataset names are the demo's (``plumbline_demo.execute_…`` over ``/demo/work/…``).
"""

from __future__ import annotations

from typing import Any

from .lineage_events import PRODUCER, SCHEMA_URL

ROOT = "/demo/work"
NS = "plumbline_demo"
REPORT = f"dataset:file:{ROOT}/warehouse/country_report"

#: job (after ``plumbline_demo.``) -> (inputs, outputs), paths under ROOT
JOBS: dict[str, tuple[list[str], list[str]]] = {
    "execute_insert_into_hadoop_fs_relation_command.orders": (
        ["/raw/orders_store.csv", "/raw/orders_web.csv"], ["/clean/orders"]),
    "execute_insert_into_hadoop_fs_relation_command.customers": (
        ["/raw/customers.jsonl"], ["/clean/customers"]),
    "execute_insert_into_hadoop_fs_relation_command.products": (
        ["/raw/products.csv"], ["/clean/products"]),
    "execute_insert_into_hadoop_fs_relation_command.returns": (
        ["/raw/returns.json"], ["/clean/returns"]),
    "execute_create_data_source_table_command.default_fact_orders": (
        [], ["/warehouse/fact_orders"]),
    "execute_alter_table_add_columns_command.default_fact_orders": (
        [], ["/warehouse/fact_orders"]),
    "execute_insert_into_hadoop_fs_relation_command.default_fact_orders": (
        ["/clean/customers", "/clean/orders", "/clean/products", "/clean/returns"],
        ["/warehouse/fact_orders"]),
    "execute_create_data_source_table_command.default_daily_revenue": (
        [], ["/warehouse/daily_revenue"]),
    "execute_insert_into_hadoop_fs_relation_command.default_daily_revenue": (
        ["/warehouse/fact_orders"], ["/warehouse/daily_revenue"]),
    "execute_insert_into_hadoop_fs_relation_command.customer_ltv": (
        ["/warehouse/fact_orders"], ["/marts/customer_ltv"]),
    "execute_drop_table.default_product_return_rates": (
        [], ["/warehouse/product_return_rates"]),
    "execute_create_data_source_table_as_select_command.default_product_return_rates": (
        ["/warehouse/fact_orders"], ["/warehouse/product_return_rates"]),
    "execute_create_data_source_table_as_select_command.default_country_report": (
        ["/marts/customer_ltv", "/warehouse/daily_revenue"], ["/warehouse/country_report"]),
}  # fmt: skip


def _dataset(path: str) -> dict[str, Any]:
    return {"namespace": "file", "name": ROOT + path}


def events() -> list[dict[str, Any]]:
    """One completed run per job, in the pipeline's order."""
    out = []
    for i, (job, (inputs, outputs)) in enumerate(JOBS.items()):
        run_id = f"0194d000-0000-7000-8000-{i:012d}"
        for event_type, second in (("START", 0), ("COMPLETE", 30)):
            out.append(
                {
                    "eventType": event_type,
                    "eventTime": f"2026-03-01T08:{i:02d}:{second:02d}.000Z",
                    "producer": PRODUCER,
                    "schemaURL": SCHEMA_URL,
                    "run": {"runId": run_id, "facets": {}},
                    "job": {"namespace": NS, "name": f"{NS}.{job}", "facets": {}},
                    "inputs": [_dataset(p) for p in inputs],
                    "outputs": [_dataset(p) for p in outputs],
                }
            )
    return out
