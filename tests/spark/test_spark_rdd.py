"""RDD jobs: Hadoop input RDDs to RDD saves, their inputs found through the RDD's dependencies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from py4j.protocol import Py4JJavaError

pytestmark = pytest.mark.spark

APP = "plumbline_tests"


def _run(captured: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    events = captured.actions()
    assert [e["eventType"] for e in events][:1] == ["START"], events
    assert len(events) == 2, [e["eventType"] for e in events]
    start, end = events
    assert start["run"]["runId"] == end["run"]["runId"]
    assert start["job"]["name"] == end["job"]["name"]
    return start, end


def _names(datasets: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(d["namespace"], d["name"]) for d in datasets]


def _lines(folder: Path, name: str, lines: list[str]) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(f"{line}\n" for line in lines))
    return str(folder)


def test_text_file_to_save_as_text_file(
    spark: Any, captured: Any, handle: Any, workdir: Path
) -> None:
    source = _lines(workdir / "words", "a.txt", ["b a", "c"])
    out = workdir / "counts"
    sc = spark.sparkContext
    words = sc.textFile(source).flatMap(str.split).map(lambda w: (w, 1)).reduceByKey(int.__add__)
    words.map(lambda kv: f"{kv[0]},{kv[1]}").coalesce(1).saveAsTextFile(str(out))
    start, end = _run(captured)
    assert end["eventType"] == "COMPLETE"
    assert end["job"]["name"] == f"{APP}.execute_rdd_save_as_text_file.counts"
    job_type = end["job"]["facets"]["jobType"]
    assert (job_type["jobType"], job_type["processingType"]) == ("RDD_JOB", "BATCH")
    assert _names(start["inputs"]) == _names(end["inputs"]) == [("file", source)]
    assert _names(end["outputs"]) == [("file", str(out))]
    assert end["outputs"][0]["facets"]["storage"]["fileFormat"] == "text"
    stats = end["outputs"][0]["outputFacets"]["outputStatistics"]
    written = [p for p in out.iterdir() if p.name.startswith("part-")]
    assert (stats["fileCount"], stats["size"]) == (1, sum(p.stat().st_size for p in written))
    assert end["run"]["facets"]["parent"]["run"]["runId"] == handle.app.run_id


def test_several_hadoop_inputs_to_a_new_api_hadoop_file(
    spark: Any, captured: Any, workdir: Path
) -> None:
    first = _lines(workdir / "one", "x.txt", ["1"])
    second = _lines(workdir / "two", "y.txt", ["2"])
    third = _lines(workdir / "three", "z.txt", ["3"])
    sc = spark.sparkContext
    both = sc.textFile(f"{first},{second}").union(sc.wholeTextFiles(third).values())
    out = str(workdir / "hadoop_out")
    both.map(lambda line: (line, None)).saveAsNewAPIHadoopFile(
        out,
        "org.apache.hadoop.mapreduce.lib.output.TextOutputFormat",
        keyClass="org.apache.hadoop.io.Text",
        valueClass="org.apache.hadoop.io.NullWritable",
    )
    _, end = _run(captured)
    assert end["job"]["name"] == f"{APP}.execute_rdd_save_as_new_api_hadoop_file.hadoop_out"
    assert _names(end["inputs"]) == [("file", first), ("file", second), ("file", third)]
    assert _names(end["outputs"]) == [("file", out)]


def test_a_hadoop_dataset_names_its_output_directory(
    spark: Any, captured: Any, workdir: Path
) -> None:
    source = _lines(workdir / "src", "a.txt", ["k"])
    out = str(workdir / "dataset_out")
    conf = {
        "mapreduce.job.outputformat.class": (
            "org.apache.hadoop.mapreduce.lib.output.TextOutputFormat"
        ),
        "mapreduce.job.output.key.class": "org.apache.hadoop.io.Text",
        "mapreduce.job.output.value.class": "org.apache.hadoop.io.Text",
        "mapreduce.output.fileoutputformat.outputdir": out,
    }
    spark.sparkContext.textFile(source).map(lambda v: (v, v)).saveAsNewAPIHadoopDataset(conf)
    _, end = _run(captured)
    assert _names(end["inputs"]) == [("file", source)]
    assert _names(end["outputs"]) == [("file", out)]


def test_a_dataframe_turned_into_an_rdd_keeps_its_inputs(
    spark: Any, captured: Any, workdir: Path
) -> None:
    table = str(workdir / "people")
    spark.createDataFrame([(1, "ann")], "id long, name string").write.parquet(table)
    captured.mark()
    out = str(workdir / "names")
    spark.read.parquet(table).rdd.map(lambda row: row["name"]).saveAsPickleFile(out)
    _, end = _run(captured)
    assert _names(end["inputs"]) == [("file", table)]
    assert _names(end["outputs"]) == [("file", out)]
    assert end["outputs"][0]["facets"]["storage"]["fileFormat"] == "sequencefile"


def test_a_failed_save_is_a_fail_and_the_job_sees_its_own_error(
    spark: Any, captured: Any, workdir: Path
) -> None:
    out = _lines(workdir / "taken", "exists.txt", ["x"])  # saveAsTextFile needs a new folder
    with pytest.raises(Py4JJavaError, match="already exists"):
        spark.sparkContext.parallelize(["a"]).saveAsTextFile(out)
    start, end = _run(captured)
    assert end["eventType"] == "FAIL"
    assert start["inputs"] == [] and end["inputs"] == []  # parallelized data is no dataset
    assert "already exists" in end["run"]["facets"]["errorMessage"]["message"]


def test_actions_that_write_nothing_make_no_events(spark: Any, captured: Any) -> None:
    rdd = spark.sparkContext.parallelize(range(10)).map(lambda x: x * 2)
    assert rdd.count() == 10 and rdd.sum() == 90
    assert captured.actions() == []
