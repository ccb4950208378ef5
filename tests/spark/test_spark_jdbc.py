"""JDBC tables as outputs and inputs, against the local PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

pytestmark = [
    pytest.mark.spark,
    pytest.mark.postgres,
]

URL = "jdbc:postgresql://127.0.0.1:5432/test"
# The driver comes from Debian's libpostgresql-jdbc-java (scripts/setup.sh --test installs it) and is
# put on the shared session's classpath by tests/conftest.py; without it this test fails, never skips.


def _jdbc(io: Any) -> Any:
    return (
        io.format("jdbc")
        .option("url", URL)
        .option("driver", "org.postgresql.Driver")
        .option("dbtable", "plumbline_spark_orders")
        .option("user", "postgres")
        .option("password", "not-a-real-secret")
    )


@pytest.fixture
def orders_table() -> Iterator[None]:
    """The JDBC table the test writes is dropped afterwards: the shared database keeps nothing."""
    yield
    engine = sa.create_engine("postgresql+psycopg://postgres@127.0.0.1:5432/test")
    with engine.begin() as connection:
        connection.execute(sa.text("DROP TABLE IF EXISTS plumbline_spark_orders"))
    engine.dispose()


@pytest.mark.usefixtures("orders_table")
def test_jdbc_output_and_input(spark: Any, captured: Any, workdir: Path) -> None:
    df = spark.createDataFrame([(1, 2.5), (2, 3.5), (3, 4.5)], "id long, amount double")
    _jdbc(df.write.mode("overwrite")).save()
    out = str(workdir / "from_pg")
    _jdbc(spark.read).load().selectExpr("id", "amount * 2 AS doubled").write.parquet(out)
    events = captured.actions()
    assert "not-a-real-secret" not in json.dumps(events)
    write_end, read_end = [e for e in events if e["eventType"] == "COMPLETE"]
    (output,) = write_end["outputs"]
    assert (output["namespace"], output["name"]) == (
        "postgres://127.0.0.1:5432",
        "test.public.plumbline_spark_orders",
    )
    assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
    assert [f["name"] for f in output["facets"]["schema"]["fields"]] == ["id", "amount"]
    (source,) = read_end["inputs"]
    assert (source["namespace"], source["name"]) == (output["namespace"], output["name"])
    assert source["inputFacets"]["inputStatistics"]["rowCount"] == 3
    fields = read_end["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert fields["doubled"]["inputFields"] == [
        {
            "namespace": "postgres://127.0.0.1:5432",
            "name": "test.public.plumbline_spark_orders",
            "field": "amount",
            "transformations": [{"type": "DIRECT", "subtype": "TRANSFORMATION"}],
        }
    ]


# -- DataSource V2: a JDBC catalog (Spark's own JDBCTableCatalog, a real V2 catalog) -------------

PG = "postgres://127.0.0.1:5432"
CATALOG = {
    "spark.sql.catalog.plpg": "org.apache.spark.sql.execution.datasources.v2.jdbc.JDBCTableCatalog",
    "spark.sql.catalog.plpg.url": URL,
    "spark.sql.catalog.plpg.driver": "org.postgresql.Driver",
    "spark.sql.catalog.plpg.user": "postgres",
}


@pytest.fixture()
def pg_catalog(spark: Any) -> Any:
    for key, value in CATALOG.items():
        spark.conf.set(key, value)
    for table in ("plumbline_v2", "plumbline_v2_copy"):
        spark.sql(f"DROP TABLE IF EXISTS plpg.public.{table}")
    yield "plpg.public"  # the SQL statements below name it literally
    for key in CATALOG:
        spark.conf.unset(key)


def _lineage(output: dict[str, Any]) -> dict[str, list[tuple[str, str, str]]]:
    fields = output["facets"]["columnLineage"]["fields"]
    return {
        column: [
            (f["name"], f["field"], f["transformations"][0]["subtype"]) for f in v["inputFields"]
        ]
        for column, v in fields.items()
    }


def test_v2_writes_through_a_jdbc_catalog(
    spark: Any, captured: Any, workdir: Path, pg_catalog: str
) -> None:
    from pyspark.sql import functions as F

    source = str(workdir / "v2_src")
    spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "id long, name string").coalesce(
        1
    ).write.parquet(source)
    spark.read.parquet(source).createOrReplaceTempView("plumbline_v2_src")
    target = f"{pg_catalog}.plumbline_v2"
    captured.mark()
    frame = spark.table("plumbline_v2_src")
    frame.writeTo(target).create()  # CreateTableAsSelect
    frame.writeTo(target).append()  # AppendData
    frame.writeTo(target).overwrite(F.lit(True))  # OverwriteByExpression
    insert = (
        "INSERT INTO plpg.public.plumbline_v2 SELECT id + 10, upper(name) FROM plumbline_v2_src"
    )
    spark.sql(insert)  # AppendData
    spark.sql(
        "INSERT OVERWRITE plpg.public.plumbline_v2 SELECT * FROM plumbline_v2_src"
    )  # OverwriteByExpression
    copy = "CREATE OR REPLACE TABLE plpg.public.plumbline_v2_copy AS SELECT * FROM plpg.public.plumbline_v2"
    spark.sql(copy)  # ReplaceTableAsSelect, reading the V2 table
    events = captured.actions()
    runs: dict[str, list[str]] = {}
    for event in events:
        runs.setdefault(event["run"]["runId"], []).append(event["eventType"])
    assert list(runs.values()) == [["START", "COMPLETE"]] * 6
    ends = [e for e in events if e["eventType"] == "COMPLETE"]
    assert [e["job"]["name"].split(".", 1)[1] for e in ends] == [
        "execute_create_table_as_select.test_public_plumbline_v2",
        "execute_append_data.test_public_plumbline_v2",
        "execute_overwrite_by_expression.test_public_plumbline_v2",
        "execute_append_data.test_public_plumbline_v2",
        "execute_overwrite_by_expression.test_public_plumbline_v2",
        "execute_replace_table_as_select.test_public_plumbline_v2_copy",
    ]
    outputs = [e["outputs"][0] for e in ends]
    assert {(o["namespace"], o["name"]) for o in outputs[:5]} == {(PG, "test.public.plumbline_v2")}
    assert (outputs[5]["namespace"], outputs[5]["name"]) == (PG, "test.public.plumbline_v2_copy")
    assert [
        o["facets"].get("lifecycleStateChange", {}).get("lifecycleStateChange") for o in outputs
    ] == [
        "CREATE",
        None,
        "OVERWRITE",
        None,
        "OVERWRITE",
        "OVERWRITE",
    ]
    assert all(
        [f["name"] for f in o["facets"]["schema"]["fields"]] == ["id", "name"] for o in outputs
    )
    assert [e["inputs"][0]["name"] for e in ends] == [source] * 5 + ["test.public.plumbline_v2"]
    assert ends[5]["inputs"][0]["namespace"] == PG
    # rows read come from the nested execution that runs the query for the JDBC (V1 fallback) write
    assert [e["inputs"][0]["inputFacets"]["inputStatistics"]["rowCount"] for e in ends] == [3] * 6
    assert _lineage(outputs[0]) == {
        "id": [(source, "id", "IDENTITY")],
        "name": [(source, "name", "IDENTITY")],
    }
    assert _lineage(outputs[3]) == {
        "id": [(source, "id", "TRANSFORMATION")],
        "name": [(source, "name", "TRANSFORMATION")],
    }
    assert _lineage(outputs[5]) == {
        "id": [("test.public.plumbline_v2", "id", "IDENTITY")],
        "name": [("test.public.plumbline_v2", "name", "IDENTITY")],
    }
    assert ends[3]["job"]["facets"]["sql"]["query"] == insert
    assert "sql" not in ends[0]["job"]["facets"]


def test_v2_ddl_through_a_jdbc_catalog(spark: Any, captured: Any, pg_catalog: str) -> None:
    for table in ("plumbline_v2_ddl", "plumbline_v2_ddl2"):
        spark.sql(f"DROP TABLE IF EXISTS {pg_catalog}.{table}")
    captured.mark()
    spark.sql("CREATE TABLE plpg.public.plumbline_v2_ddl (a INT)")
    spark.sql("ALTER TABLE plpg.public.plumbline_v2_ddl ADD COLUMNS (b STRING)")
    spark.sql("ALTER TABLE plpg.public.plumbline_v2_ddl RENAME TO plumbline_v2_ddl2")
    spark.sql("DROP TABLE plpg.public.plumbline_v2_ddl2")
    ends = [e for e in captured.actions() if e["eventType"] == "COMPLETE"]
    changes = [
        (
            e["outputs"][0]["namespace"],
            e["outputs"][0]["name"],
            e["outputs"][0]["facets"]["lifecycleStateChange"]["lifecycleStateChange"],
            [f["name"] for f in e["outputs"][0]["facets"].get("schema", {}).get("fields", [])],
        )
        for e in ends
    ]
    assert changes == [
        (PG, "test.public.plumbline_v2_ddl", "CREATE", ["a"]),
        (PG, "test.public.plumbline_v2_ddl", "ALTER", ["a", "b"]),
        (PG, "test.public.plumbline_v2_ddl2", "RENAME", ["a", "b"]),
        (PG, "test.public.plumbline_v2_ddl2", "DROP", []),
    ]
    rename = ends[2]["outputs"][0]["facets"]["lifecycleStateChange"]["previousIdentifier"]
    assert rename == {"namespace": PG, "name": "test.public.plumbline_v2_ddl"}
