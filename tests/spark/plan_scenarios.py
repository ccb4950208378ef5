"""The Spark jobs whose plans are recorded under tests/golden/plans/ (scripts/record_plans.py).

Each scenario is one write over three small parquet sources (`orders`, `customers`, `people`),
also registered as temporary views of the same names. One scenario exercises one plan node or
expression kind of the lineage walker; tests/spark/test_column_lineage.py states the lineage
each one must give, from its recorded plan, without Spark.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SOURCES = ("orders", "customers", "people")


@dataclass(frozen=True)
class Scenario:
    """One write: `run(spark, out)` writes to the path `out` (or a table named after the scenario)."""

    name: str
    description: str
    run: Callable[[Any, str], None]


def make_sources(spark: Any, workdir: Path) -> dict[str, str]:
    """Write the three sources under `workdir` and register them as temporary views."""
    rows = {
        "orders": (
            [(1, 10, 5.0, "a,b"), (2, 10, 7.0, "c"), (3, 20, 1.0, "d")],
            "order_id long, customer_id long, amount double, tags string",
        ),
        "customers": ([(10, "ann"), (20, "bob")], "customer_id long, name string"),
        "people": (
            [(1, "ann", 10.0), (2, "bob", 20.0), (3, "ann", 30.0)],
            "id long, name string, amount double",
        ),
    }
    paths = {}
    for name, (data, schema) in rows.items():
        path = str(workdir / name)
        spark.createDataFrame(data, schema).coalesce(1).write.mode("overwrite").parquet(path)
        spark.read.parquet(path).createOrReplaceTempView(name)
        paths[name] = path
    return paths


def _sql(query: str) -> Callable[[Any, str], None]:
    def run(spark: Any, out: str) -> None:
        spark.sql(query).write.mode("overwrite").parquet(out)

    return run


def _df(build: Callable[[Any, Any], Any]) -> Callable[[Any, str], None]:
    def run(spark: Any, out: str) -> None:
        from pyspark.sql import functions

        build(spark, functions).write.mode("overwrite").parquet(out)

    return run


def _statement(template: str) -> Callable[[Any, str], None]:
    """A SQL statement that writes by itself; `{out}` is the output path's last part."""

    def run(spark: Any, out: str) -> None:
        table = Path(out).name
        spark.sql(f"DROP TABLE IF EXISTS {table}")
        spark.sql(template.format(out=table))

    return run


def _window(spark: Any, f: Any) -> Any:
    from pyspark.sql import Window

    window = Window.partitionBy("customer_id").orderBy("order_id")
    return spark.table("orders").select("order_id", f.sum("amount").over(window).alias("running"))


def _udf(spark: Any, f: Any) -> Any:
    double = f.udf(lambda v: v * 2.0, "double")
    return spark.table("orders").select(double("amount").alias("twice"))


def _cached(spark: Any, out: str) -> None:
    cached = spark.table("customers").cache()
    cached.count()
    try:
        cached.select("name").write.mode("overwrite").parquet(out)
    finally:
        cached.unpersist()


def _insert_into(spark: Any, out: str) -> None:
    table = Path(out).name
    spark.sql(f"DROP TABLE IF EXISTS {table}")
    spark.sql(f"CREATE TABLE {table} (id long, label string) USING parquet")
    spark.sql(f"INSERT INTO {table} SELECT order_id, upper(tags) FROM orders")  # noqa: S608


SCENARIOS = [
    Scenario(
        "local_relation",
        "in-memory rows (LocalRelation): columns of no dataset",
        lambda spark, out: (
            spark.createDataFrame([(1, "a")], "id long, name string")
            .write.mode("overwrite")
            .parquet(out)
        ),
    ),
    Scenario("range", "spark.range (Range): no dataset", _df(lambda s, f: s.range(3).select("id"))),
    Scenario(
        "values",
        "inline VALUES (LocalRelation): no dataset",
        _sql("SELECT id, upper(name) AS name FROM VALUES (1, 'a'), (2, 'b') AS t(id, name)"),
    ),
    Scenario(
        "cache",
        "cached data: the analyzed plan reads the dataset, the optimized one an InMemoryRelation",
        _cached,
    ),
    Scenario(
        "project",
        "Project with identity, renamed and computed columns",
        _sql("SELECT order_id, customer_id AS cid, amount * 2 AS doubled FROM orders"),
    ),
    Scenario(
        "cast",
        "Cast: to another type a TRANSFORMATION, to the type the column has an IDENTITY",
        _sql(
            "SELECT CAST(order_id AS string) AS id_text, CAST(amount AS int) AS whole,"
            " CAST(customer_id AS bigint) AS cid FROM orders"
        ),
    ),
    Scenario(
        "literal",
        "a column of literals only has no lineage",
        _sql("SELECT order_id, 'x' AS constant, current_date() AS today FROM orders"),
    ),
    Scenario(
        "filter",
        "Filter: its condition is a dataset-wide FILTER dependency",
        _sql("SELECT order_id FROM orders WHERE amount > 2 AND tags IS NOT NULL"),
    ),
    Scenario(
        "aggregate",
        "Aggregate and AggregateExpression: GROUP_BY and AGGREGATION",
        _sql(
            "SELECT name, sum(amount) AS total, count(id) AS n, max(amount) + 1 AS top "
            "FROM people GROUP BY name"
        ),
    ),
    Scenario(
        "global_aggregate",
        "Aggregate without grouping",
        _sql("SELECT count(*) AS n, avg(amount) AS mean FROM orders"),
    ),
    Scenario(
        "sort",
        "Sort: its order is a dataset-wide SORT dependency",
        _sql("SELECT order_id FROM orders ORDER BY amount DESC"),
    ),
    Scenario(
        "join",
        "inner Join: the condition is a dataset-wide JOIN dependency",
        _sql(
            "SELECT o.order_id, c.name FROM orders o JOIN customers c "
            "ON o.customer_id = c.customer_id"
        ),
    ),
    Scenario(
        "self_join",
        "a self Join: both sides are the same dataset",
        _sql(
            "SELECT a.order_id AS x, b.amount AS y FROM orders a JOIN orders b "
            "ON a.order_id = b.order_id"
        ),
    ),
    Scenario(
        "left_semi_join",
        "a LeftSemi Join outputs its left side only",
        _sql("SELECT * FROM orders o LEFT SEMI JOIN customers c ON o.customer_id = c.customer_id"),
    ),
    Scenario(
        "left_anti_join",
        "a LeftAnti Join outputs its left side only",
        _sql(
            "SELECT order_id FROM orders o LEFT ANTI JOIN customers c "
            "ON o.customer_id = c.customer_id"
        ),
    ),
    Scenario(
        "union",
        "Union: column i comes from column i of every child",
        _sql("SELECT customer_id AS cid FROM orders UNION ALL SELECT customer_id FROM customers"),
    ),
    Scenario(
        "intersect",
        "Intersect: the left side's columns",
        _sql("SELECT customer_id FROM orders INTERSECT SELECT customer_id FROM customers"),
    ),
    Scenario(
        "except",
        "Except: the left side's columns",
        _sql("SELECT customer_id FROM orders EXCEPT SELECT customer_id FROM customers"),
    ),
    Scenario(
        "scalar_subquery",
        "ScalarSubquery: the subquery's value",
        _sql("SELECT order_id, (SELECT max(name) FROM customers) AS top FROM orders"),
    ),
    Scenario(
        "in_subquery",
        "IN (subquery) in a filter (ListQuery)",
        _sql(
            "SELECT order_id FROM orders WHERE customer_id IN (SELECT customer_id FROM customers)"
        ),
    ),
    Scenario(
        "exists_subquery",
        "a correlated EXISTS (Exists, OuterReference)",
        _sql(
            "SELECT order_id FROM orders o WHERE EXISTS "
            "(SELECT 1 FROM customers c WHERE c.customer_id = o.customer_id)"
        ),
    ),
    Scenario(
        "correlated_scalar_subquery",
        "a correlated scalar subquery in the select list",
        _sql(
            "SELECT order_id, (SELECT max(c.name) FROM customers c "
            "WHERE c.customer_id = o.customer_id) AS who FROM orders o"
        ),
    ),
    Scenario(
        "lateral_subquery",
        "a LATERAL subquery (LateralSubquery)",
        _sql("SELECT o.order_id, l.twice FROM orders o, LATERAL (SELECT o.amount * 2 AS twice) l"),
    ),
    Scenario(
        "cte",
        "WITH: a common table expression used twice (WithCTE, CTERelationDef, CTERelationRef)",
        _sql(
            "WITH big AS (SELECT order_id, amount FROM orders WHERE amount > 2) "
            "SELECT a.order_id, b.amount FROM big a JOIN big b ON a.order_id = b.order_id"
        ),
    ),
    Scenario(
        "case_when",
        "CaseWhen: conditions are CONDITIONAL, values TRANSFORMATION",
        _sql(
            "SELECT order_id, CASE WHEN amount > 6 THEN 'high' WHEN amount > 2 THEN tags "
            "ELSE 'low' END AS band FROM orders"
        ),
    ),
    Scenario(
        "if",
        "If: the predicate is CONDITIONAL, the values TRANSFORMATION",
        _sql("SELECT if(amount > 2, order_id, customer_id) AS pick FROM orders"),
    ),
    Scenario("window", "Window and WindowExpression: partition and order are WINDOW", _df(_window)),
    Scenario("udf", "a Python UDF is a TRANSFORMATION", _df(_udf)),
    Scenario(
        "explode",
        "Generate: explode's output comes from its argument",
        _sql("SELECT order_id, tag FROM orders LATERAL VIEW explode(split(tags, ',')) t AS tag"),
    ),
    Scenario(
        "rollup",
        "ROLLUP (Expand): grouping columns through the expansion",
        _sql("SELECT customer_id, sum(amount) AS total FROM orders GROUP BY ROLLUP(customer_id)"),
    ),
    Scenario(
        "ctas",
        "CREATE TABLE ... AS SELECT: the query is a field of the command",
        _statement("CREATE TABLE {out} USING parquet AS SELECT order_id, amount FROM orders"),
    ),
    Scenario(
        "insert_into",
        "INSERT INTO a table: the table's column names, not the query's",
        _insert_into,
    ),
]
