"""Inputs of every kind a plan can hold (temporary views, cached data, a dataset read twice,
subqueries) end to end, with their statistics. The column lineage of each plan node and
expression kind is tested without Spark on recorded plans (tests/spark/test_column_lineage.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import functions as F

pytestmark = pytest.mark.spark


@pytest.fixture()
def sources(spark: Any, workdir: Path) -> tuple[str, str]:
    orders, customers = str(workdir / "orders"), str(workdir / "customers")
    spark.createDataFrame(
        [(1, 10, 5.0, "a,b"), (2, 10, 7.0, "c"), (3, 20, 1.0, "d")],
        "order_id long, customer_id long, amount double, tags string",
    ).coalesce(1).write.parquet(orders)
    spark.createDataFrame([(10, "ann"), (20, "bob")], "customer_id long, name string").coalesce(
        1
    ).write.parquet(customers)
    return orders, customers


def _complete(captured: Any, write: Any) -> dict[str, Any]:
    captured.mark()
    write()
    events = captured.actions()
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"]
    return events[1]


def _fields(event: dict[str, Any]) -> dict[str, list[tuple[str, str, str, str]]]:
    fields = event["outputs"][0]["facets"]["columnLineage"]["fields"]
    return {
        column: [
            (Path(f["name"]).name, f["field"], t["type"], t["subtype"])
            for f in value["inputFields"]
            for t in f["transformations"]
        ]
        for column, value in fields.items()
    }


def _dataset(event: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (Path(f["name"]).name, f["field"], t["subtype"])
        for f in event["outputs"][0]["facets"]["columnLineage"]["dataset"]
        for t in f["transformations"]
    ]


def test_join_through_temp_view_and_cache(
    spark: Any, captured: Any, sources: tuple[str, str], workdir: Path
) -> None:
    orders, customers = sources
    spark.read.parquet(orders).createOrReplaceTempView("plumbline_orders")
    cached = spark.read.parquet(customers).cache()
    cached.count()
    out = str(workdir / "joined")
    joined = spark.table("plumbline_orders").join(cached, "customer_id")
    end = _complete(
        captured, lambda: joined.select("order_id", "name").write.mode("overwrite").parquet(out)
    )
    assert sorted(i["name"] for i in end["inputs"]) == sorted([orders, customers])
    assert _fields(end) == {
        "order_id": [("orders", "order_id", "DIRECT", "IDENTITY")],
        "name": [("customers", "name", "DIRECT", "IDENTITY")],
    }
    assert sorted(_dataset(end)) == [
        ("customers", "customer_id", "JOIN"),
        ("orders", "customer_id", "JOIN"),
    ]
    stats = {
        Path(i["name"]).name: i["inputFacets"]["inputStatistics"]["rowCount"] for i in end["inputs"]
    }
    assert stats == {"orders": 3, "customers": 2}
    cached.unpersist()


def test_self_join_and_subquery_inputs(
    spark: Any, captured: Any, sources: tuple[str, str], workdir: Path
) -> None:
    orders, customers = sources
    o = spark.read.parquet(orders)
    a, b = o.alias("a"), o.alias("b")
    self_join = a.join(b, F.col("a.order_id") == F.col("b.order_id")).select(
        F.col("a.order_id").alias("x"), F.col("b.amount").alias("y")
    )
    end = _complete(captured, lambda: self_join.write.mode("overwrite").parquet(str(workdir / "s")))
    assert [i["name"] for i in end["inputs"]] == [orders]
    assert _fields(end) == {
        "x": [("orders", "order_id", "DIRECT", "IDENTITY")],
        "y": [("orders", "amount", "DIRECT", "IDENTITY")],
    }
    assert _dataset(end) == [("orders", "order_id", "JOIN")]
    assert end["inputs"][0]["inputFacets"]["inputStatistics"]["rowCount"] == 6  # read twice

    spark.read.parquet(orders).createOrReplaceTempView("plumbline_o")
    spark.read.parquet(customers).createOrReplaceTempView("plumbline_c")
    query = spark.sql(
        "SELECT order_id, (SELECT max(name) FROM plumbline_c) AS top FROM plumbline_o "
        "WHERE customer_id IN (SELECT customer_id FROM plumbline_c)"
    )
    end = _complete(captured, lambda: query.write.mode("overwrite").parquet(str(workdir / "q")))
    assert sorted(i["name"] for i in end["inputs"]) == sorted([orders, customers])
    assert _fields(end) == {
        "order_id": [("orders", "order_id", "DIRECT", "IDENTITY")],
        "top": [("customers", "name", "DIRECT", "AGGREGATION")],
    }
    assert sorted(_dataset(end)) == [
        ("customers", "customer_id", "FILTER"),
        ("orders", "customer_id", "FILTER"),
    ]


def test_distinct_and_drop_duplicates_group_by_what_they_compare(
    spark: Any, sources: tuple[str, str], captured: Any, workdir: Path
) -> None:
    """Per the column lineage facet, DISTINCT groups the rows by every column and
    dropDuplicates(subset) by the subset: dataset-wide INDIRECT GROUP_BY (issue 31 §4, as
    INTERSECT and the event logs' aggregate have it); the columns stay IDENTITY."""
    customers = spark.read.parquet(sources[1])
    event = _complete(captured, lambda: customers.distinct().write.parquet(str(workdir / "d")))
    assert sorted(_dataset(event)) == [
        ("customers", "customer_id", "GROUP_BY"),
        ("customers", "name", "GROUP_BY"),
    ]
    assert _fields(event)["name"] == [("customers", "name", "DIRECT", "IDENTITY")]
    deduplicated = customers.dropDuplicates(["customer_id"])
    event = _complete(captured, lambda: deduplicated.write.parquet(str(workdir / "dd")))
    assert _dataset(event) == [("customers", "customer_id", "GROUP_BY")]
