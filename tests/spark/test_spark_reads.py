"""Reads beyond one table or path: several paths, JDBC queries, DataFrames made from RDDs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

pytestmark = pytest.mark.spark

PG_URL = "jdbc:postgresql://127.0.0.1:5432/test"
PG = "postgres://127.0.0.1:5432"


def _complete(captured: Any) -> dict[str, Any]:
    events = captured.actions()
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"]
    return events[1]


def _names(datasets: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(d["namespace"], d["name"]) for d in datasets]


def _lineage(event: dict[str, Any]) -> dict[str, list[tuple[str, str, str]]]:
    fields = event["outputs"][0]["facets"]["columnLineage"]["fields"]
    return {
        column: sorted(
            (f["name"], f["field"], f["transformations"][0]["subtype"])
            for f in entry["inputFields"]
        )
        for column, entry in fields.items()
    }


def test_every_path_of_a_read_is_an_input(spark: Any, captured: Any, workdir: Path) -> None:
    first, second, out = str(workdir / "p1"), str(workdir / "p2"), str(workdir / "out")
    for path in (first, second):
        spark.range(3).selectExpr("id", "id * 2 AS v").write.parquet(path)
    captured.mark()
    spark.read.parquet(first, second).selectExpr("id", "v + 1 AS w").write.parquet(out)
    end = _complete(captured)
    assert _names(end["inputs"]) == [("file", first), ("file", second)]
    assert _lineage(end) == {
        "id": [(first, "id", "IDENTITY"), (second, "id", "IDENTITY")],
        "w": [(first, "v", "TRANSFORMATION"), (second, "v", "TRANSFORMATION")],
    }


def test_a_dataframe_through_an_rdd_keeps_its_inputs(
    spark: Any, captured: Any, workdir: Path
) -> None:
    """`df.rdd.map(...)` back to a DataFrame: the files its RDD scans are the inputs."""
    first, second, out = str(workdir / "a"), str(workdir / "b"), str(workdir / "c")
    spark.createDataFrame([("x", "z"), ("y", "z")], "a string, b string").write.parquet(first)
    spark.createDataFrame([("u", "w")], "a string, b string").write.partitionBy("b").parquet(second)
    captured.mark()
    rows = spark.read.parquet(first).rdd.union(spark.read.parquet(second).rdd)
    spark.createDataFrame(rows.map(lambda r: (r["a"] + "!",)), "a string").write.parquet(out)
    end = _complete(captured)
    assert _names(end["inputs"]) == [("file", first), ("file", second)]
    assert _names(end["outputs"]) == [("file", out)]
    assert "columnLineage" not in end["outputs"][0]["facets"]  # Python code: no column lineage


# -- JDBC reads with the `query` option ------------------------------------------------------


ORDERS, CUSTOMERS = "plumbline_q_orders", "plumbline_q_customers"
_SETUP = (
    "CREATE TABLE plumbline_q_customers (id int, name text)",
    "CREATE TABLE plumbline_q_orders (id int, cid int, amount float)",
    "INSERT INTO plumbline_q_customers VALUES (1, 'ann'), (2, 'bob')",
    "INSERT INTO plumbline_q_orders VALUES (1, 1, 2.5), (2, 2, 3.5)",
)


@pytest.fixture
def pg_tables() -> Iterator[tuple[str, str]]:
    """Two tables in the shared `test` database, dropped afterwards."""
    engine = sa.create_engine("postgresql+psycopg://postgres@127.0.0.1:5432/test")
    drop = sa.text("DROP TABLE IF EXISTS plumbline_q_orders, plumbline_q_customers")
    with engine.begin() as connection:
        connection.execute(drop)
        for statement in _SETUP:
            connection.execute(sa.text(statement))
    yield ORDERS, CUSTOMERS
    with engine.begin() as connection:
        connection.execute(drop)
    engine.dispose()


def _jdbc(spark: Any, **options: str) -> Any:
    reader = spark.read.format("jdbc").option("url", PG_URL).option("user", "postgres")
    for key, value in {"driver": "org.postgresql.Driver", **options}.items():
        reader = reader.option(key, value)
    return reader.load()


@pytest.mark.postgres
def test_a_jdbc_query_reads_its_tables(
    spark: Any, captured: Any, workdir: Path, pg_tables: tuple[str, str]
) -> None:
    orders, customers = pg_tables
    query = (
        "SELECT o.id, o.amount * 2 AS doubled, c.name FROM plumbline_q_orders o "
        "JOIN public.plumbline_q_customers c ON o.cid = c.id"
    )
    out = str(workdir / "joined")
    _jdbc(spark, query=query).write.parquet(out)
    end = _complete(captured)
    assert query not in str(end["inputs"])
    assert sorted(_names(end["inputs"])) == [
        (PG, f"test.public.{customers}"),
        (PG, f"test.public.{orders}"),
    ]
    assert _lineage(end) == {
        "id": [(f"test.public.{orders}", "id", "IDENTITY")],
        "doubled": [(f"test.public.{orders}", "amount", "TRANSFORMATION")],
        "name": [(f"test.public.{customers}", "name", "IDENTITY")],
    }


@pytest.mark.postgres
def test_a_jdbc_dbtable_subquery_and_a_star_query(
    spark: Any, captured: Any, workdir: Path, pg_tables: tuple[str, str]
) -> None:
    orders, _ = pg_tables
    _jdbc(
        spark, dbtable="(SELECT id, amount FROM plumbline_q_orders WHERE amount > 3) AS big"
    ).write.parquet(str(workdir / "big"))
    end = _complete(captured)
    assert _names(end["inputs"]) == [(PG, f"test.public.{orders}")]
    captured.mark()
    _jdbc(spark, query="select * from plumbline_q_orders").write.parquet(str(workdir / "all"))
    end = _complete(captured)
    assert _names(end["inputs"]) == [(PG, f"test.public.{orders}")]
    assert _lineage(end)["amount"] == [(f"test.public.{orders}", "amount", "IDENTITY")]


@pytest.mark.postgres
def test_a_jdbc_query_that_cannot_be_parsed_names_no_dataset(
    spark: Any, captured: Any, workdir: Path, pg_tables: tuple[str, str]
) -> None:
    """A query the parser cannot read gives no input, never one named after its text."""
    _jdbc(spark, query="SELECT 1 AS one").write.parquet(str(workdir / "one"))
    end = _complete(captured)
    assert end["inputs"] == []
