"""The lineage tables in Spark SQL (real local Spark, tiny data): ``lineage_tables`` over an
export folder and over a PostgreSQL store (Spark's JDBC source); the tables hold the store's rows
and every recipe of docs/sql-recipes.md runs in Spark."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from recipes import EXPECTED, RECURSIVE, for_spark, recipes
from scenario import build, later_events, pick, stream_events
from sqlalchemy.engine import Engine
from store_summary import ingest

from plumbline.export import export_tables
from plumbline.lineage_tables import TABLES
from plumbline.spark import lineage_tables
from plumbline.store import Store, create_store_engine, upgrade
from plumbline.store.read.sql_tables import table_rows

pytestmark = pytest.mark.spark

# Spark hands back times in the session's zone, without one: compared through the store's tests
_COMPARED = {
    table: [name for name, kind in columns if kind != "timestamp"]
    for table, columns in TABLES.items()
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    engine = create_store_engine(f"sqlite:///{tmp_path_factory.mktemp('store') / 'store.db'}")
    upgrade(engine)
    build(engine)
    ingest(engine, stream_events())
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def exported(spark: Any, store: Engine, tmp_path_factory: pytest.TempPathFactory) -> Any:
    out = tmp_path_factory.mktemp("export")
    export_tables(Store(store), out)
    lineage_tables(spark, out)
    return spark


def _spark_rows(spark: Any, database: str, table: str) -> list[dict[str, Any]]:
    return [row.asDict() for row in spark.table(f"{database}.{table}").collect()]


def _file_rows(spark: Any, database: str, table: str) -> list[dict[str, Any]]:
    """A table over an export's files, its JSON columns (text in files) decoded."""
    rows = _spark_rows(spark, database, table)
    if table == "datasets":
        for row in rows:
            row["schema_fields"] = row["schema_fields"] and json.loads(row["schema_fields"])
    return rows


@pytest.mark.parametrize("table", list(TABLES))
def test_spark_tables_hold_the_stores_rows(exported: Any, store: Engine, table: str) -> None:
    with store.connect() as conn:
        expected = pick(table_rows(conn, table), *_COMPARED[table])
    rows = _file_rows(exported, "plumbline", table)
    assert pick(rows, *_COMPARED[table]) == expected


def _recipe_runs(spark: Any, title: str) -> None:
    major, minor = (int(part) for part in spark.version.split(".")[:2])
    if title == RECURSIVE and (major, minor) < (4, 1):
        pytest.skip(f"Spark {spark.version} has no recursive CTEs (4.1 and newer)")


@pytest.mark.parametrize("title", list(EXPECTED))
def test_recipe_in_spark_sql(exported: Any, title: str) -> None:
    _recipe_runs(exported, title)
    rows = [tuple(row) for row in exported.sql(for_spark(recipes()[title])).collect()]
    assert rows == EXPECTED[title]


@pytest.mark.postgres
def test_spark_reads_a_postgresql_store_over_jdbc(spark: Any, pg_engine: Engine) -> None:
    build(pg_engine)
    url = pg_engine.url.render_as_string(hide_password=False)
    names = lineage_tables(spark, url, database="plumbline_pg")
    assert names == [f"plumbline_pg.{table}" for table in TABLES]
    with pg_engine.connect() as conn:
        for table in ("table_lineage", "snapshot_lineage", "column_lineage_edges"):
            expected = pick(table_rows(conn, table), *_COMPARED[table])
            assert pick(_spark_rows(spark, "plumbline_pg", table), *_COMPARED[table]) == expected
    title = "What feeds this table"
    sql = for_spark(recipes()[title], database="plumbline_pg")
    assert [tuple(row) for row in spark.sql(sql).collect()] == EXPECTED[title]
    for table in TABLES:  # the store's database is dropped after the test
        spark.sql(f"DROP TABLE plumbline_pg.{table}")


def test_a_bad_database_name_is_refused(spark: Any, tmp_path: Path) -> None:
    from plumbline.spark.errors import SettingsError

    with pytest.raises(SettingsError, match="not a Spark database name"):
        lineage_tables(spark, tmp_path, database="x; DROP")


def test_spark_reads_an_incrementally_updated_export(spark: Any, tmp_path: Path) -> None:
    """An export patched by an incremental run (current-state files rewritten from their old
    rows and the changed ones) holds the store's rows in Spark too."""
    engine = create_store_engine(f"sqlite:///{tmp_path / 'store.db'}")
    upgrade(engine)
    build(engine)
    export_tables(Store(engine), tmp_path / "export", overlap=timedelta(0))
    ingest(engine, later_events())
    assert export_tables(Store(engine), tmp_path / "export", overlap=timedelta(0)).incremental
    lineage_tables(spark, tmp_path / "export", database="plumbline_incremental")
    with engine.connect() as conn:
        for table in TABLES:
            expected = pick(table_rows(conn, table), *_COMPARED[table])
            rows = _file_rows(spark, "plumbline_incremental", table)
            assert pick(rows, *_COMPARED[table]) == expected, table
    for table in TABLES:
        spark.sql(f"DROP TABLE plumbline_incremental.{table}")
    engine.dispose()
