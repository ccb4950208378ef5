"""File writes: every format and save mode, lineage, statistics and the event sequence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import functions as F

from plumbline.analysis.run_diff import error_summary

pytestmark = pytest.mark.spark

NS = "tests"
APP = "plumbline_tests"


def _one_run(events: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"]
    start, end = events
    assert start["run"]["runId"] == end["run"]["runId"]
    assert start["job"] == end["job"] or start["job"]["name"] == end["job"]["name"]
    return start, end


def _people(spark: Any, path: Path) -> str:
    rows = [(1, "ann", 10.0), (2, "bob", 20.0), (3, "ann", 30.0)]
    spark.createDataFrame(rows, "id long, name string, amount double").coalesce(1).write.mode(
        "overwrite"
    ).parquet(str(path))
    return str(path)


def test_in_memory_to_parquet(spark: Any, captured: Any, handle: Any, workdir: Path) -> None:
    out = workdir / "people"
    spark.createDataFrame([(1, "ann"), (2, "bob")], "id long, name string").coalesce(
        1
    ).write.parquet(str(out))
    start, end = _one_run(captured.actions())
    assert start["job"]["namespace"] == NS
    assert end["job"]["name"] == f"{APP}.execute_insert_into_hadoop_fs_relation_command.people"
    assert start["inputs"] == [] and end["inputs"] == []
    (output,) = end["outputs"]
    assert (output["namespace"], output["name"]) == ("file", str(out))
    assert output["facets"]["schema"]["fields"] == [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string"},
    ]
    assert output["facets"]["storage"]["fileFormat"] == "parquet"
    assert "lifecycleStateChange" not in output["facets"]  # ErrorIfExists on a new path
    assert "columnLineage" not in output["facets"]  # in-memory data is no dataset
    stats = output["outputFacets"]["outputStatistics"]
    written = [p for p in out.iterdir() if p.name.startswith("part-")]
    assert stats == {
        **{k: stats[k] for k in ("_producer", "_schemaURL")},
        "rowCount": 2,
        "fileCount": 1,
        "size": sum(p.stat().st_size for p in written),
    }
    parent = end["run"]["facets"]["parent"]
    assert parent["run"]["runId"] == handle.app.run_id
    assert parent["job"] == {"namespace": NS, "name": APP}
    assert end["run"]["facets"]["processing_engine"]["name"] == "spark"
    assert end["job"]["facets"]["jobType"]["jobType"] == "SQL_JOB"
    assert "sql" not in end["job"]["facets"]


@pytest.mark.parametrize(
    ("fmt", "mode", "lifecycle"),
    [
        ("csv", "overwrite", "OVERWRITE"),
        ("json", "append", None),
        ("orc", "ignore", None),
        ("text", "errorifexists", None),
    ],
)
def test_formats_and_modes(
    spark: Any, captured: Any, workdir: Path, fmt: str, mode: str, lifecycle: str | None
) -> None:
    source = _people(spark, workdir / "src")
    out = workdir / f"out_{fmt}"
    captured.mark()
    df = spark.read.parquet(source)
    if fmt == "text":
        df = df.select(F.concat_ws(":", "name", "id").alias("value"))
    df.coalesce(1).write.mode(mode).format(fmt).save(str(out))
    start, end = _one_run(captured.actions())
    (output,) = end["outputs"]
    assert output["name"] == str(out)
    assert output["facets"]["storage"]["fileFormat"] == fmt
    assert output["facets"].get("lifecycleStateChange", {}).get("lifecycleStateChange") == lifecycle
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 3
    (inp,) = end["inputs"]
    assert (inp["namespace"], inp["name"]) == ("file", source)
    assert inp["inputFacets"]["inputStatistics"]["rowCount"] == 3
    assert inp["inputFacets"]["inputStatistics"]["fileCount"] == 1
    src_file = next(p for p in Path(source).iterdir() if p.name.startswith("part-"))
    assert inp["inputFacets"]["inputStatistics"]["size"] == src_file.stat().st_size
    if fmt == "text":
        assert output["facets"]["columnLineage"]["fields"] == {
            "value": {
                "inputFields": [
                    {
                        "namespace": "file",
                        "name": source,
                        "field": field,
                        "transformations": [{"type": "DIRECT", "subtype": "TRANSFORMATION"}],
                    }
                    for field in ("id", "name")
                ]
            }
        }


def test_filter_group_aggregate_lineage(spark: Any, captured: Any, workdir: Path) -> None:
    source = _people(spark, workdir / "src")
    out = workdir / "totals"
    captured.mark()
    (
        spark.read.parquet(source)
        .filter("amount > 15")
        .groupBy("name")
        .agg(F.sum("amount").alias("total"), F.count("id").alias("n"))
        .orderBy("name")
        .write.mode("overwrite")
        .json(str(out))
    )
    _, end = _one_run(captured.actions())
    lineage = end["outputs"][0]["facets"]["columnLineage"]

    def field(name: str, type_: str, subtype: str) -> dict[str, Any]:
        return {
            "namespace": "file",
            "name": source,
            "field": name,
            "transformations": [{"type": type_, "subtype": subtype}],
        }

    assert lineage["fields"] == {
        "name": {"inputFields": [field("name", "DIRECT", "IDENTITY")]},
        "total": {"inputFields": [field("amount", "DIRECT", "AGGREGATION")]},
        "n": {"inputFields": [field("id", "DIRECT", "AGGREGATION")]},
    }
    assert lineage["dataset"] == [
        field("amount", "INDIRECT", "FILTER"),
        {
            **field("name", "INDIRECT", "GROUP_BY"),
            "transformations": [
                {"type": "INDIRECT", "subtype": "GROUP_BY"},
                {"type": "INDIRECT", "subtype": "SORT"},
            ],
        },
    ]
    assert (
        end["outputs"][0]["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
    )
    assert end["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] == 2
    assert end["inputs"][0]["inputFacets"]["inputStatistics"]["rowCount"] == 3


def test_version_changes_with_content(spark: Any, captured: Any, workdir: Path) -> None:
    out = str(workdir / "versioned")
    df = spark.createDataFrame([(1,)], "x int")
    df.write.mode("overwrite").parquet(out)
    df.write.mode("overwrite").parquet(out)
    ends = [e for e in captured.actions() if e["eventType"] == "COMPLETE"]
    versions = [e["outputs"][0]["facets"]["version"]["datasetVersion"] for e in ends]
    assert len(versions) == 2 and versions[0] != versions[1]
    assert ends[0]["job"]["name"] == ends[1]["job"]["name"]  # stable job name across runs


def test_count_emits_nothing(spark: Any, captured: Any, workdir: Path) -> None:
    source = _people(spark, workdir / "src")
    captured.mark()
    assert spark.read.parquet(source).count() == 3
    assert spark.read.parquet(source).groupBy().sum("amount").collect()[0][0] == 60.0
    assert captured.actions() == []


def test_failing_job_sends_fail(spark: Any, captured: Any, workdir: Path) -> None:
    source = _people(spark, workdir / "src")
    captured.mark()
    with pytest.raises(Exception, match="plumbline-boom"):
        spark.read.parquet(source).select(
            F.expr("CASE WHEN id > 0 THEN raise_error('plumbline-boom') ELSE name END").alias("x")
        ).write.parquet(str(workdir / "never"))
    start, end = [e for e in captured.actions()]
    assert (start["eventType"], end["eventType"]) == ("START", "FAIL")
    error = end["run"]["facets"]["errorMessage"]
    assert "plumbline-boom" in error["message"]
    assert error["programmingLanguage"] == "JAVA"
    assert "at org.apache.spark" in error["stackTrace"]
    assert end["outputs"][0]["name"] == str(workdir / "never")
    # the only task failed: Spark's SQL metrics say 0 rows read, the failed attempt read all 3
    read = end["inputs"][0]["inputFacets"]["inputStatistics"]
    assert read["rowCount"] == 3


def test_insert_overwrite_directory(spark: Any, captured: Any, workdir: Path) -> None:
    source = _people(spark, workdir / "src")
    spark.read.parquet(source).createOrReplaceTempView("plumbline_people")
    out = workdir / "dir_out"
    captured.mark()
    # the directory is a literal in Spark SQL (no parameter marker allowed); `out` is our temp dir
    query = (
        f"INSERT OVERWRITE DIRECTORY '{out}' USING json SELECT name, amount FROM plumbline_people"  # noqa: S608
    )
    spark.sql(query)
    start, end = _one_run(captured.actions())
    (output,) = end["outputs"]
    assert (output["namespace"], output["name"]) == ("file", str(out))
    assert output["facets"]["storage"]["fileFormat"] == "json"
    assert output["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "OVERWRITE"
    assert output["outputFacets"]["outputStatistics"]["rowCount"] == 3
    assert end["job"]["facets"]["sql"]["query"] == query
    assert [i["name"] for i in end["inputs"]] == [source]


def test_ignore_mode_on_existing_output_claims_no_new_version(
    spark: Any, captured: Any, workdir: Path
) -> None:
    out = str(workdir / "kept")
    df = spark.createDataFrame([(1,), (2,)], "x int")
    df.write.parquet(out)
    df.write.mode("ignore").parquet(out)  # the target exists: Spark writes nothing
    first, second = [e for e in captured.actions() if e["eventType"] == "COMPLETE"]
    assert "version" in first["outputs"][0]["facets"]
    assert "version" not in second["outputs"][0]["facets"]
    assert second["outputs"][0]["outputFacets"]["outputStatistics"]["rowCount"] == 0


def test_a_failure_s_message_starts_with_its_innermost_cause(
    spark: Any, captured: Any, workdir: Path
) -> None:
    """A declared read schema the parquet file contradicts (as the demo plants): Spark's message
    is its wrapper (Job aborted, [TASK_WRITE_FAILED]); the facet's message starts with the real
    cause, the stack trace stays whole (issue 27 §3)."""
    source = str(workdir / "readings")
    spark.createDataFrame([(1, "20.5")], "id INT, temp_c STRING").write.parquet(source)
    captured.mark()
    with pytest.raises(Exception, match="temp_c"):
        spark.read.schema("id INT, temp_c DOUBLE").parquet(source).write.parquet(
            str(workdir / "clean")
        )
    [end] = [e for e in captured.actions() if e["eventType"] == "FAIL"]
    error = end["run"]["facets"]["errorMessage"]
    first = error["message"].splitlines()[0]
    assert first.startswith(
        "org.apache.spark.sql.execution.datasources.SchemaColumnConvertNotSupportedException: "
        "column: [temp_c]"
    ), first
    # the wrapper follows it (3.5: Job aborted … [TASK_WRITE_FAILED]; 4.x: [FAILED_READ_FILE…])
    assert error["message"].splitlines()[1].startswith("org.apache.spark.SparkException: ")
    assert error["message"].count("SchemaColumnConvertNotSupportedException") >= 1
    assert "Caused by: " in error["stackTrace"]  # the whole trace, every cause
    assert error["stackTrace"].startswith("org.apache.spark.SparkException: ")
    summary = error_summary(error["message"])
    assert summary.startswith("SchemaColumnConvertNotSupportedException: column: [temp_c]")
