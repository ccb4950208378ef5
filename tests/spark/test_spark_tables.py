"""Catalog tables: saveAsTable, insertInto, SQL INSERT, CTAS and DDL lifecycle changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.spark

APP = "plumbline_tests"


def _table_path(spark: Any, name: str) -> str:
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {name}").where("col_name = 'Location'")
    return location.collect()[0][1].replace("file:", "")


def _warehouse(spark: Any) -> str:
    return "file:" + spark.conf.get("spark.sql.warehouse.dir").replace("file:", "").rstrip("/")


def _runs(events: list[dict[str, Any]]) -> list[list[str]]:
    runs: dict[str, list[str]] = {}
    for event in events:
        runs.setdefault(event["run"]["runId"], []).append(event["eventType"])
    return list(runs.values())


@pytest.fixture()
def source(spark: Any, workdir: Path) -> str:
    path = str(workdir / "src")
    spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "id long, name string").coalesce(
        1
    ).write.parquet(path)
    return path


def test_save_as_table_is_one_run(spark: Any, captured: Any, source: str) -> None:
    spark.sql("DROP TABLE IF EXISTS plumbline_t_save")
    captured.mark()
    spark.read.parquet(source).write.mode("overwrite").saveAsTable("plumbline_t_save")
    events = captured.actions()
    assert _runs(events) == [["START", "COMPLETE"]]
    end = events[-1]
    assert end["job"]["name"] == (
        f"{APP}.execute_create_data_source_table_as_select_command.default_plumbline_t_save"
    )
    (output,) = end["outputs"]
    assert output["name"] == _table_path(spark, "plumbline_t_save")
    assert output["facets"]["symlinks"]["identifiers"] == [
        {"namespace": _warehouse(spark), "name": "default.plumbline_t_save", "type": "TABLE"}
    ]
    assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 3
    assert end["inputs"][0]["name"] == source
    assert end["inputs"][0]["inputFacets"]["inputStatistics"]["rowCount"] == 3


def test_insert_into_and_sql_inserts(spark: Any, captured: Any, source: str) -> None:
    spark.sql("DROP TABLE IF EXISTS plumbline_t_ins")
    spark.sql("CREATE TABLE plumbline_t_ins (id BIGINT, name STRING) USING parquet")
    spark.read.parquet(source).createOrReplaceTempView("plumbline_src")
    captured.mark()
    spark.read.parquet(source).write.insertInto("plumbline_t_ins")
    spark.sql("INSERT INTO plumbline_t_ins SELECT id + 10, upper(name) FROM plumbline_src")
    spark.sql("INSERT OVERWRITE TABLE plumbline_t_ins SELECT * FROM plumbline_src WHERE id > 1")
    events = captured.actions()
    assert _runs(events) == [["START", "COMPLETE"]] * 3
    ends = [e for e in events if e["eventType"] == "COMPLETE"]
    table = _table_path(spark, "plumbline_t_ins")
    assert [e["outputs"][0]["name"] for e in ends] == [table] * 3
    assert [e["inputs"][0]["name"] for e in ends] == [source] * 3
    lifecycle = [
        e["outputs"][0]["facets"].get("lifecycleStateChange", {}).get("lifecycleStateChange")
        for e in ends
    ]
    assert lifecycle == [None, None, "OVERWRITE"]
    assert [e["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] for e in ends] == [
        3,
        3,
        2,
    ]
    assert "sql" not in ends[0]["job"]["facets"]
    assert ends[1]["job"]["facets"]["sql"]["query"] == (
        "INSERT INTO plumbline_t_ins SELECT id + 10, upper(name) FROM plumbline_src"
    )
    fields = ends[1]["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert {
        k: [(f["field"], f["transformations"]) for f in v["inputFields"]] for k, v in fields.items()
    } == {
        "id": [("id", [{"type": "DIRECT", "subtype": "TRANSFORMATION"}])],
        "name": [("name", [{"type": "DIRECT", "subtype": "TRANSFORMATION"}])],
    }


def test_insert_into_partition(spark: Any, captured: Any, source: str) -> None:
    spark.sql("DROP TABLE IF EXISTS plumbline_t_part")
    spark.sql(
        "CREATE TABLE plumbline_t_part (id BIGINT, d STRING) USING parquet PARTITIONED BY (d)"
    )
    spark.read.parquet(source).createOrReplaceTempView("plumbline_src")
    captured.mark()
    spark.sql(
        "INSERT OVERWRITE TABLE plumbline_t_part PARTITION (d='x') SELECT id FROM plumbline_src"
    )
    (start, end) = captured.actions()
    output = end["outputs"][0]
    assert output["name"] == _table_path(spark, "plumbline_t_part")
    assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 3
    assert output["facets"]["columnLineage"]["fields"]["id"]["inputFields"][0]["field"] == "id"


def test_ctas_is_one_run_with_create(spark: Any, captured: Any, source: str) -> None:
    spark.sql("DROP TABLE IF EXISTS plumbline_t_ctas")
    spark.read.parquet(source).createOrReplaceTempView("plumbline_src")
    captured.mark()
    query = "CREATE TABLE plumbline_t_ctas USING parquet AS SELECT id, name FROM plumbline_src WHERE id < 3"
    spark.sql(query)
    events = captured.actions()
    assert _runs(events) == [["START", "COMPLETE"]]
    start, end = events
    output = end["outputs"][0]
    assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "CREATE"
    assert output["facets"]["storage"]["fileFormat"] == "parquet"
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 2
    assert end["job"]["facets"]["sql"]["query"] == query
    assert start["outputs"][0]["name"] == output["name"] == _table_path(spark, "plumbline_t_ctas")
    assert output["facets"]["columnLineage"]["dataset"] == [
        {
            "namespace": "file",
            "name": source,
            "field": "id",
            "transformations": [{"type": "INDIRECT", "subtype": "FILTER"}],
        }
    ]


def test_ddl_lifecycle(spark: Any, captured: Any) -> None:
    for name in ("plumbline_t_ddl", "plumbline_t_ddl2"):
        spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql("CREATE TABLE plumbline_t_ddl (a INT) USING parquet")
    old_path = _table_path(spark, "plumbline_t_ddl")
    new_path = old_path.rsplit("/", 1)[0] + "/plumbline_t_ddl2"
    spark.sql("DROP TABLE plumbline_t_ddl")
    captured.mark()
    # No flush between the statements: the capture handles each after Spark already ran the next
    # ones (the table is renamed and dropped by then), so what it reports must come from the plans
    # and from what it saw earlier, not from the catalog at handling time.
    spark.sql("CREATE TABLE plumbline_t_ddl (a INT) USING parquet")
    spark.sql("ALTER TABLE plumbline_t_ddl ADD COLUMNS (b STRING)")
    spark.sql("TRUNCATE TABLE plumbline_t_ddl")
    spark.sql("ALTER TABLE plumbline_t_ddl RENAME TO plumbline_t_ddl2")
    spark.sql("DROP TABLE plumbline_t_ddl2")
    ends = [e for e in captured.actions() if e["eventType"] == "COMPLETE"]
    changes = [
        (
            e["outputs"][0]["name"],
            e["outputs"][0]["facets"]["lifecycleStateChange"]["lifecycleStateChange"],
            [f["name"] for f in e["outputs"][0]["facets"].get("schema", {}).get("fields", [])],
        )
        for e in ends
    ]
    assert changes == [
        (old_path, "CREATE", ["a"]),
        (old_path, "ALTER", ["a", "b"]),
        (old_path, "TRUNCATE", ["a", "b"]),
        (new_path, "RENAME", ["a", "b"]),
        (new_path, "DROP", []),
    ]
    rename = ends[3]["outputs"][0]["facets"]["lifecycleStateChange"]
    assert rename["previousIdentifier"] == {"namespace": "file", "name": old_path}
    assert all(e["inputs"] == [] for e in ends)


def _changes(captured: Any) -> list[tuple[str, str | None, list[str]]]:
    ends = [e for e in captured.actions() if e["eventType"] == "COMPLETE"]
    return [
        (
            e["outputs"][0]["name"],
            e["outputs"][0]["facets"].get("lifecycleStateChange", {}).get("lifecycleStateChange"),
            [f["name"] for f in e["outputs"][0]["facets"].get("schema", {}).get("fields", [])],
        )
        for e in ends
    ]


def test_if_exists_statements_that_change_nothing_claim_nothing(
    spark: Any, captured: Any, source: str
) -> None:
    spark.sql("DROP TABLE IF EXISTS plumbline_t_cond")
    spark.sql("DROP TABLE IF EXISTS plumbline_t_cond_save")
    path = _warehouse(spark).replace("file:", "") + "/plumbline_t_cond"
    captured.mark()
    spark.sql("DROP TABLE IF EXISTS plumbline_t_cond")  # missing: a no-op
    spark.sql("CREATE TABLE IF NOT EXISTS plumbline_t_cond (a INT) USING parquet")  # creates
    spark.sql("CREATE TABLE IF NOT EXISTS plumbline_t_cond (a INT, b INT) USING parquet")  # no-op
    spark.sql("DROP TABLE IF EXISTS plumbline_t_cond")  # drops
    spark.read.parquet(source).write.saveAsTable("plumbline_t_cond_save")  # creates
    spark.read.parquet(source).write.mode("append").saveAsTable("plumbline_t_cond_save")  # appends
    events = captured.actions()
    assert _runs(events) == [["START", "COMPLETE"]] * 4
    save_path = _table_path(spark, "plumbline_t_cond_save")
    assert _changes(captured) == [
        (path, "CREATE", ["a"]),
        (path, "DROP", []),
        (save_path, "CREATE", ["id", "name"]),
        (save_path, None, ["id", "name"]),
    ]
    append_start = [e for e in events if e["eventType"] == "START"][3]
    assert "lifecycleStateChange" not in append_start["outputs"][0]["facets"]


def test_external_table_keeps_its_location(spark: Any, captured: Any, workdir: Path) -> None:
    for name in ("plumbline_t_ext", "plumbline_t_ext2"):
        spark.sql(f"DROP TABLE IF EXISTS {name}")
    location = str(workdir / "external")
    captured.mark()
    spark.sql(f"CREATE TABLE plumbline_t_ext (a INT) USING parquet LOCATION '{location}'")
    spark.sql("ALTER TABLE plumbline_t_ext RENAME TO plumbline_t_ext2")
    spark.sql("DROP TABLE plumbline_t_ext2")
    assert _changes(captured) == [
        (location, "CREATE", ["a"]),
        (location, "RENAME", ["a"]),
        (location, "DROP", []),
    ]


def test_catalog_event_recorder_detaches(spark: Any, handle: Any) -> None:
    from plumbline.spark import catalog_events, jvm

    spark.sql("DROP TABLE IF EXISTS plumbline_t_rec")
    attached = catalog_events.attach(spark._jsparkSession, jvm._JVM[0])
    assert attached is not None
    try:
        spark.sql("CREATE TABLE plumbline_t_rec (a INT) USING parquet")
        calls = attached.recorder.calls
        assert calls >= 2  # CreateTablePreEvent and CreateTableEvent, on the statement's thread
        recorded = [attached.take(i) for i in range(10_000)]
        assert {("CreateTableEvent", "default", "plumbline_t_rec")} in recorded
    finally:
        attached.detach()
    spark.sql("DROP TABLE plumbline_t_rec")
    assert attached.recorder.calls == calls  # removed from the catalog: no more calls
