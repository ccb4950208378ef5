"""The demo pipeline on a real local SparkSession: its tables hold exactly what the raw data implies.

The expected values are computed here in plain Python from the generator's rows, independently of
the Spark jobs.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from plumbline.demo import data
from plumbline.demo.paths import DAY_2, DAYS, DemoPaths
from plumbline.demo.runner import DemoRun, run_scenario

pytestmark = [pytest.mark.spark, pytest.mark.slow]

SCALE = 0.05


@dataclass(frozen=True)
class Fact:
    order_id: str
    day: date
    channel: str
    customer_id: str
    product_id: str
    quantity: int
    amount: Decimal
    discount: Decimal


def _money(text: str) -> Decimal:
    return Decimal(text.replace(",", "."))


def _facts() -> list[Fact]:
    facts: dict[str, Fact] = {}
    for day in DAYS:
        for channel, rows in data.orders(day, SCALE).items():
            for row in rows:
                quantity = int(row["quantity"])
                if quantity > 0:
                    facts[row["order_id"]] = Fact(
                        row["order_id"],
                        day,
                        channel,
                        row["customer_id"],
                        row["product_id"],
                        quantity,
                        quantity * _money(row["unit_price"]),
                        _money(row["discount"]),
                    )
    return sorted(facts.values(), key=lambda f: f.order_id)


def _customers(day: date) -> dict[str, dict[str, str]]:
    latest: dict[str, dict[str, str]] = {}
    for row in sorted(data.customers(day, SCALE), key=lambda r: r["updated_at"]):
        latest[row["customer_id"]] = row
    return latest


def _returned(through: date) -> dict[str, int]:
    returned: dict[str, int] = defaultdict(int)
    for day in DAYS[: DAYS.index(through) + 1]:
        for row in data.returns(day, SCALE):
            returned[row["order_id"]] += row["quantity"]
    return returned


def _expected_daily_revenue() -> dict[tuple[date, str, str], tuple[int, int, Decimal, int]]:
    expected: dict[tuple[date, str, str], list[Any]] = {}
    for day in DAYS:  # each day's rows are aggregated from the facts as built that day
        customers, returned = _customers(day), _returned(day)
        for fact in _facts():
            if fact.day != day:
                continue
            key = (day, customers[fact.customer_id]["country"], fact.channel)
            row = expected.setdefault(key, [0, 0, Decimal("0"), 0])
            row[0] += 1
            row[1] += fact.quantity
            row[2] += fact.amount
            row[3] += returned.get(fact.order_id, 0)
    return {key: tuple(value) for key, value in expected.items()}  # type: ignore[misc]


@pytest.fixture(scope="module")
def demo_run(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    paths = DemoPaths.under(tmp_path_factory.mktemp("demo"))
    return run_scenario(spark, paths, SCALE)


def test_only_the_planned_run_fails_with_the_spark_cast_error(demo_run: DemoRun) -> None:
    failed = [o for o in demo_run.outcomes if o.failed]
    assert [(o.step.day, o.step.name) for o in failed] == [(DAY_2, "clean_orders")]
    bad_prices = {
        r["unit_price"] for r in data.orders(DAY_2, SCALE)["store"] if "," in r["unit_price"]
    }
    error = failed[0].error or ""
    prefix = "[CAST_INVALID_INPUT] The value '"
    assert error.startswith(prefix)
    value, rest = error.removeprefix(prefix).split("'", 1)
    assert value in bad_prices
    assert rest.startswith(' of the type "STRING" cannot be cast to "DECIMAL(10,2)"')
    assert len(demo_run.outcomes) == 19


def test_clean_orders_hold_both_days_after_the_fix(spark: Any, demo_run: DemoRun) -> None:
    rows = spark.read.parquet(str(demo_run.paths.clean_orders)).collect()
    expected = _facts()
    assert sorted(r.order_id for r in rows) == [f.order_id for f in expected]
    prices = {r.order_id: r.unit_price * r.quantity for r in rows}
    assert prices == {f.order_id: f.amount for f in expected}


def test_clean_customers_keep_the_latest_record(spark: Any, demo_run: DemoRun) -> None:
    rows = spark.read.parquet(str(demo_run.paths.clean_customers)).collect()
    latest = _customers(DAY_2)
    assert {r.customer_id: r.country for r in rows} == {k: v["country"] for k, v in latest.items()}
    assert {r.email for r in rows} == {v["email"].strip().lower() for v in latest.values()}


def test_fact_orders_gained_discount_and_net_amount(spark: Any, demo_run: DemoRun) -> None:
    facts = spark.table("fact_orders")
    assert facts.columns == [
        "order_id",
        "order_date",
        "channel",
        "customer_id",
        "customer_name",
        "country",
        "product_id",
        "product_name",
        "category",
        "quantity",
        "unit_price",
        "amount",
        "returned_quantity",
        "discount",
        "net_amount",
    ]
    rows = {r.order_id: r for r in facts.collect()}
    expected = _facts()
    assert len(rows) == len(expected)
    assert {k: r.net_amount for k, r in rows.items()} == {
        f.order_id: f.amount - f.discount for f in expected
    }
    returned = _returned(DAY_2)
    assert {k: r.returned_quantity for k, r in rows.items()} == {
        f.order_id: returned.get(f.order_id, 0) for f in expected
    }


def test_daily_revenue_has_one_insert_per_day(spark: Any, demo_run: DemoRun) -> None:
    actual = {
        (r.order_date, r.country, r.channel): (r.orders, r.units, r.revenue, r.returned_units)
        for r in spark.table("daily_revenue").collect()
    }
    assert actual == _expected_daily_revenue()
    assert spark.table("daily_revenue").count() == len(actual)


def test_customer_ltv_ranks_within_country(spark: Any, demo_run: DemoRun) -> None:
    rows = spark.read.parquet(str(demo_run.paths.customer_ltv)).collect()
    customers = _customers(DAY_2)
    value: dict[str, Decimal] = defaultdict(Decimal)
    for fact in _facts():
        value[fact.customer_id] += fact.amount
    assert {r.customer_id: r.lifetime_value for r in rows} == dict(value)
    for row in rows:
        peers = [v for c, v in value.items() if customers[c]["country"] == row.country]
        assert row.value_rank == 1 + sum(v > row.lifetime_value for v in peers)


def test_product_return_rates(spark: Any, demo_run: DemoRun) -> None:
    returned = _returned(DAY_2)
    sold: dict[str, int] = defaultdict(int)
    back: dict[str, int] = defaultdict(int)
    for fact in _facts():
        sold[fact.product_id] += fact.quantity
        back[fact.product_id] += returned.get(fact.order_id, 0)
    rows = spark.table("product_return_rates").collect()
    assert {r.product_id: (r.units_sold, r.units_returned) for r in rows} == {
        p: (sold[p], back[p]) for p in sold
    }
    assert {r.product_id: r.return_rate for r in rows} == {
        p: round(back[p] / sold[p], 4) for p in sold
    }


def test_country_report_for_day_two(spark: Any, demo_run: DemoRun) -> None:
    customers = _customers(DAY_2)
    value: dict[str, Decimal] = defaultdict(Decimal)
    for fact in _facts():
        value[fact.customer_id] += fact.amount
    revenue: dict[str, Decimal] = defaultdict(Decimal)
    for (day, country, _), (_, _, amount, _) in _expected_daily_revenue().items():
        if day == DAY_2:
            revenue[country] += amount
    by_country: dict[str, list[str]] = defaultdict(list)
    for customer in value:
        by_country[customers[customer]["country"]].append(customer)
    expected = {}
    for country, members in by_country.items():
        top = max(value[c] for c in members)
        expected[country] = (
            DAY_2,
            revenue.get(country),
            len(members),
            sum(value[c] for c in members),
            min(customers[c]["name"] for c in members if value[c] == top),
            top,
        )
    rows = spark.table("country_report").collect()
    assert {
        r.country: (
            r.report_date,
            r.revenue,
            r.customers,
            r.lifetime_value,
            r.top_customer,
            r.top_customer_value,
        )
        for r in rows
    } == expected


def test_report_table_lives_in_the_warehouse(spark: Any, demo_run: DemoRun) -> None:
    location = spark.sql("DESCRIBE TABLE EXTENDED country_report").where("col_name = 'Location'")
    uri = location.collect()[0].data_type
    assert uri.startswith("file:") and Path(uri.removeprefix("file:")).name == "country_report"
