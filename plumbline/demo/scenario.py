"""The demo scenario: two business days of the pipeline, with a code change and a failed run.

Day 1 runs the first revisions of every job. Day 2 first runs `clean_orders` as it was, which
fails on the store's decimal-comma prices; the fixed job runs next, and `build_order_facts` runs
with its new `discount` and `net_amount` columns. The store ends up holding dataset versions, a
schema change, and failed and successful runs of the same job.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from pyspark.sql import SparkSession

from plumbline.demo.jobs import (
    build_order_facts,
    clean_customers,
    clean_orders,
    clean_products,
    clean_returns,
    country_report,
    customer_ltv,
    daily_revenue,
    previous,
    product_return_rates,
)
from plumbline.demo.paths import DAY_1, DAY_2, DemoPaths

Job = Callable[[SparkSession, DemoPaths, date], None]


@dataclass(frozen=True)
class Step:
    """One job run of the scenario."""

    day: date
    name: str
    job: Job
    note: str = ""
    expect_failure: bool = False

    @property
    def label(self) -> str:
        return f"{self.day.isoformat()} {self.name}" + (f" ({self.note})" if self.note else "")


def _marts(day: date) -> list[Step]:
    return [
        Step(day, "daily_revenue", daily_revenue.run),
        Step(day, "customer_ltv", customer_ltv.run),
        Step(day, "product_return_rates", product_return_rates.run),
        Step(day, "country_report", country_report.run),
    ]


def steps() -> list[Step]:
    """Every job run of the scenario, in order."""
    return [
        Step(DAY_1, "clean_orders", previous.clean_orders_strict_cast, "strict price cast"),
        Step(DAY_1, "clean_customers", clean_customers.run),
        Step(DAY_1, "clean_products", clean_products.run),
        Step(DAY_1, "clean_returns", clean_returns.run),
        Step(
            DAY_1,
            "build_order_facts",
            previous.build_order_facts_without_discount,
            "before discounts",
        ),
        *_marts(DAY_1),
        Step(DAY_2, "clean_customers", clean_customers.run),
        Step(DAY_2, "clean_products", clean_products.run),
        Step(DAY_2, "clean_returns", clean_returns.run),
        Step(
            DAY_2,
            "clean_orders",
            previous.clean_orders_strict_cast,
            "fails: decimal-comma prices",
            expect_failure=True,
        ),
        Step(DAY_2, "clean_orders", clean_orders.run, "fixed"),
        Step(DAY_2, "build_order_facts", build_order_facts.run, "adds discount, net_amount"),
        *_marts(DAY_2),
    ]
