"""The JDBC query parser's verdicts and the RDD path helpers, without Spark."""

from __future__ import annotations

from plumbline.spark import jdbc_query
from plumbline.spark.rdds import directory_of, split_paths

PG = "jdbc:postgresql://db:5432/shop"


def test_the_tables_and_columns_a_query_reads() -> None:
    sql = (
        "SELECT o.id, o.amount * 2 AS doubled, c.name AS customer, upper(c.city) city "
        "FROM sales.orders o JOIN customers c ON o.cid = c.id"
    )
    parsed = jdbc_query.parse(PG, sql)
    assert parsed is not None
    assert sorted(parsed.tables) == ["customers", "sales.orders"]
    assert parsed.sources("ID") == ([("sales.orders", "id")], True)
    assert parsed.sources("doubled") == ([("sales.orders", "amount")], False)
    assert parsed.sources("customer") == ([("customers", "name")], True)
    assert parsed.sources("city") == ([("customers", "city")], False)


def test_a_bare_column_over_a_subquery_is_not_called_identity() -> None:
    parsed = jdbc_query.parse(PG, "SELECT name FROM (SELECT upper(name) AS name FROM t) s")
    assert parsed is not None and parsed.tables == ["t"]
    assert parsed.sources("name") == ([("t", "name")], False)


def test_a_star_query_of_one_table_copies_its_columns() -> None:
    parsed = jdbc_query.parse(PG, "select * from public.orders")
    assert parsed is not None and parsed.star
    assert parsed.sources("amount") == ([("public.orders", "amount")], True)


def test_queries_without_tables_give_nothing() -> None:
    assert jdbc_query.parse(PG, "SELECT 1") is None
    assert jdbc_query.parse(PG, "this is not SQL at all (") is None


def test_which_dbtable_options_are_sql() -> None:
    assert jdbc_query.query_of("public.orders", None) is None
    assert jdbc_query.query_of("(SELECT a FROM t) x", None) == "SELECT a FROM t"
    assert (
        jdbc_query.query_of("t JOIN u ON t.a = u.a", None) == "SELECT * FROM t JOIN u ON t.a = u.a"
    )
    assert jdbc_query.query_of("ignored", "SELECT 1") == "SELECT 1"
    assert jdbc_query.dialect(PG) == "postgres"
    assert jdbc_query.dialect("jdbc:weird://x") == "generic"


def test_hadoop_paths_and_scanned_folders() -> None:
    assert split_paths("file:/a,file:/b\\,c , ") == ["file:/a", "file:/b,c"]
    assert directory_of("file:///d/t/k=1/j=x/part-0.parquet") == "file:///d/t"
    assert directory_of("/d/t/part-0.parquet") == "/d/t"
