"""The `sql` job facet of lazy `spark.sql(...)` writes and the `spark_properties` run facet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from plumbline.spark.runs import AppRun, RunTracker
from plumbline.spark.settings import PROPERTIES_KEY, captured_properties

pytestmark = pytest.mark.spark


def _ends(captured: Any) -> list[dict[str, Any]]:
    return [e for e in captured.actions() if e["eventType"] == "COMPLETE"]


def test_lazy_sql_dataframe_write_has_the_sql_facet(
    spark: Any, captured: Any, workdir: Path
) -> None:
    source = str(workdir / "src")
    spark.createDataFrame([(1, "a"), (2, "b"), (3, "c")], "id long, name string").write.parquet(
        source
    )
    spark.read.parquet(source).createOrReplaceTempView("plumbline_lazy_src")
    captured.mark()
    query = "SELECT id, upper(name) AS name FROM plumbline_lazy_src WHERE id > 1"
    frame = spark.sql(query)
    frame.write.parquet(str(workdir / "a"))  # the write itself is DataFrame API, the data is SQL
    frame.where("id > 2").select("name").write.json(str(workdir / "b"))  # more steps on top
    spark.read.parquet(source).write.parquet(str(workdir / "c"))  # no SQL anywhere
    ends = _ends(captured)
    assert [e["outputs"][0]["name"] for e in ends] == [str(workdir / n) for n in "abc"]
    assert [e["job"]["facets"].get("sql", {}).get("query") for e in ends] == [query, query, None]
    assert ends[0]["job"]["facets"]["sql"]["dialect"] == "spark"


def test_spark_properties_facet_is_an_allow_list(spark: Any, captured: Any, workdir: Path) -> None:
    spark.createDataFrame([(1,)], "id long").write.parquet(str(workdir / "p"))
    (end,) = _ends(captured)
    facet = end["run"]["facets"]["spark_properties"]
    assert (
        facet["_schemaURL"] == "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunFacet"
    )
    assert facet["properties"] == {
        "spark.master": "local[2]",
        "spark.app.name": "plumblineTests",
        "spark.submit.deployMode": "client",
    }


def test_captured_properties_extend_the_allow_list_never_with_secrets(spark: Any) -> None:
    extra = "spark.sql.shuffle.partitions, spark.plumbline_test.url, spark.hadoop.fs.s3a.secret.key"
    settings = {PROPERTIES_KEY: extra, "spark.plumbline_test.url": "jdbc:postgresql://u:pw@h/db"}
    spark.conf.set("spark.hadoop.fs.s3a.secret.key", "not-a-real-secret")
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        tracker = RunTracker(spark._jsparkSession, AppRun("ns", "app", "r", "3.5"), print)
        properties = tracker.spark_properties()
    finally:
        for key in [*settings, "spark.hadoop.fs.s3a.secret.key"]:
            spark.conf.unset(key)
    assert properties == {
        "spark.master": "local[2]",
        "spark.app.name": "plumblineTests",
        "spark.submit.deployMode": "client",
        "spark.sql.shuffle.partitions": "2",
        "spark.plumbline_test.url": "jdbc:postgresql://h/db",
    }


def test_captured_properties_names() -> None:
    assert captured_properties("") == ["spark.master", "spark.app.name", "spark.submit.deployMode"]
    assert captured_properties(" spark.a ,spark.master,, spark.x.password, spark.api.token") == [
        "spark.master",
        "spark.app.name",
        "spark.submit.deployMode",
        "spark.a",
    ]
