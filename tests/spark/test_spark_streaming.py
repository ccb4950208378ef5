"""Structured Streaming: one run per query run, file sources and sinks, foreachBatch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.spark

APP = "plumbline_tests"


def _csv(folder: Path, name: str, rows: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(f"{r}\n" for r in rows))


def _one_run(captured: Any) -> list[dict[str, Any]]:
    events = captured.actions()
    assert events, "no events"
    assert len({e["run"]["runId"] for e in events}) == 1, [e["job"]["name"] for e in events]
    assert events[0]["eventType"] == "START" and events[-1]["eventType"] == "COMPLETE"
    for event in events:
        job_type = event["job"]["facets"]["jobType"]
        assert (job_type["processingType"], job_type["jobType"]) == ("STREAMING", "SQL_JOB")
    return events


def _names(datasets: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(d["namespace"], d["name"]) for d in datasets]


def test_file_source_to_file_sink_is_one_run(spark: Any, captured: Any, workdir: Path) -> None:
    source, out = workdir / "in", workdir / "out"
    for i in range(3):
        _csv(source, f"part{i}.csv", [f"{i},n{i}"])
    query = (
        spark.readStream.schema("id int, name string")
        .option("maxFilesPerTrigger", 1)  # three micro-batches
        .csv(str(source))
        .selectExpr("id", "upper(name) AS up")
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(workdir / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    assert query.lastProgress["batchId"] == 2
    events = _one_run(captured)
    assert [e["eventType"] for e in events] == ["START", "COMPLETE"]  # not one per batch
    start, end = events
    assert start["run"]["runId"] == str(query.runId)
    assert end["job"]["name"] == f"{APP}.execute_write_to_micro_batch_data_source_v1.out"
    assert _names(end["inputs"]) == [("file", str(source))]  # the folder, not each batch's files
    assert _names(end["outputs"]) == [("file", str(out))]
    fields = end["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert [
        (f["field"], f["transformations"][0]["subtype"]) for f in fields["up"]["inputFields"]
    ] == [("name", "TRANSFORMATION")]


def test_a_processing_time_trigger_sends_few_events(
    spark: Any, captured: Any, workdir: Path
) -> None:
    source, out = workdir / "in", workdir / "out"
    _csv(source, "a.csv", ["1,a"])
    query = (
        spark.readStream.schema("id int, name string")
        .csv(str(source))
        .writeStream.format("json")
        .option("path", str(out))
        .option("checkpointLocation", str(workdir / "checkpoint"))
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        query.processAllAvailable()
        for i in range(3):
            _csv(source, f"b{i}.csv", [f"{i},b"])
            query.processAllAvailable()
    finally:
        query.stop()
    assert query.lastProgress is not None
    events = _one_run(captured)
    assert len(events) == 2, [e["eventType"] for e in events]  # 4+ batches, no new dataset
    assert _names(events[-1]["outputs"]) == [("file", str(out))]


def test_writes_inside_foreach_batch_keep_the_stream_sources(
    spark: Any, captured: Any, workdir: Path
) -> None:
    source, out = workdir / "in", workdir / "fb_out"
    _csv(source, "a.csv", ["1,a", "2,b"])

    def write(batch: Any, batch_id: int) -> None:
        batch.selectExpr("id", "name AS label").write.mode("append").parquet(str(out))

    query = (
        spark.readStream.schema("id int, name string")
        .csv(str(source))
        .writeStream.foreachBatch(write)
        .option("checkpointLocation", str(workdir / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    events = _one_run(captured)
    end = events[-1]
    assert end["run"]["runId"] == str(query.runId)
    assert end["job"]["name"] == f"{APP}.execute_insert_into_hadoop_fs_relation_command.fb_out"
    assert _names(end["inputs"]) == [("file", str(source))]
    assert _names(end["outputs"]) == [("file", str(out))]


def test_a_failed_query_is_a_fail(spark: Any, captured: Any, workdir: Path) -> None:
    source = workdir / "in"
    _csv(source, "a.csv", ["1,a"])

    def explode(batch: Any, batch_id: int) -> None:
        batch.write.mode("append").parquet(str(workdir / "before_fail"))
        raise ValueError("the user's batch function failed")

    query = (
        spark.readStream.schema("id int, name string")
        .csv(str(source))
        .writeStream.foreachBatch(explode)
        .option("checkpointLocation", str(workdir / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    with pytest.raises(Exception, match="the user's batch function failed"):
        query.awaitTermination()
    events = captured.actions()
    assert [e["eventType"] for e in events] == ["START", "FAIL"]
    assert "batch function failed" in events[-1]["run"]["facets"]["errorMessage"]["stackTrace"]


def _rate_with_kafka_options(spark: Any) -> Any:
    """A rate source given a Kafka source's options (it reads no Kafka topic)."""
    return (
        spark.readStream.format("rate")
        .option("rowsPerSecond", 5)
        .option("kafka.bootstrap.servers", "PLAINTEXT://broker-1:9092")
        .option("subscribe", "orders")
        .load()
    )


def test_kafka_options_on_a_stream_that_is_not_kafka_name_no_topic(
    spark: Any, captured: Any, workdir: Path
) -> None:
    """Kafka naming needs a Kafka stream: the options alone (here on a rate source) are not one."""
    out = workdir / "out"
    query = (
        _rate_with_kafka_options(spark)
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(workdir / "checkpoint"))
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    events = _one_run(captured)
    assert _names(events[-1]["outputs"]) == [("file", str(out))]
    assert all(d["namespace"] != "kafka://broker-1:9092" for e in events for d in e["inputs"])


def test_each_micro_batch_is_recorded_with_its_offsets_and_files(
    spark: Any, captured: Any, workdir: Path
) -> None:
    """The run's events carry a `streamBatches` facet: every batch id once, the files a file
    source added to that batch and its offsets as Spark's progress reports them."""
    source, out = workdir / "in", workdir / "out"
    for i in range(3):
        _csv(source, f"part{i}.csv", [f"{i},n{i}"])
    query = (
        spark.readStream.schema("id int, name string")
        .option("maxFilesPerTrigger", 1)
        .csv(str(source))
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(workdir / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    events = _one_run(captured)
    batches = [
        b for e in events for b in e["run"]["facets"].get("streamBatches", {}).get("batches", [])
    ]
    assert [b["batchId"] for b in batches] == [0, 1, 2]
    for number, batch in enumerate(batches):
        (read,) = batch["sources"]
        assert (read["namespace"], read["name"]) == ("file", str(source))
        assert read["fileCount"] == 1 and read["files"][0].endswith(f"part{number}.csv")
        assert read["endOffset"] == {"logOffset": number}
        assert batch["numInputRows"] == 1
        assert batch["sinks"] == [{"namespace": "file", "name": str(out), "version": None}]
