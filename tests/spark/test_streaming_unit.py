"""Streaming dataset naming (OpenLineage naming spec) from the options a plan carries."""

from __future__ import annotations

from typing import Any

from plumbline.spark.datasets import DatasetId
from plumbline.spark.facts import ActionFacts, DatasetFacts
from plumbline.spark.streaming import (
    StreamRuns,
    StreamSink,
    StreamSource,
    file_sink_location,
    kafka_datasets,
    kafka_namespace,
    kafka_sink,
    kafka_sources,
)

SERVERS = "PLAINTEXT://broker-1:9092,broker-2:9092"


def test_kafka_sources_name_their_topics_under_the_first_broker() -> None:
    options = {"kafka.bootstrap.servers": SERVERS, "subscribe": "orders, payments"}
    assert kafka_datasets(options, sink=False) == [
        DatasetId("kafka://broker-1:9092", "orders"),
        DatasetId("kafka://broker-1:9092", "payments"),
    ]
    assigned = {"kafka.bootstrap.servers": "b:9092", "assign": '{"t1": [0, 1], "t2": [0]}'}
    assert [d.name for d in kafka_datasets(assigned, sink=False)] == ["t1", "t2"]
    pattern = {"kafka.bootstrap.servers": "b:9092", "subscribePattern": "events-.*"}
    assert kafka_datasets(pattern, sink=False) == []  # a pattern is not a dataset


def test_a_pattern_source_names_the_topics_of_its_batch_offsets() -> None:
    pattern = {"kafka.bootstrap.servers": "b:9092", "subscribePattern": "events-.*"}
    read = StreamSource("KafkaMicroBatchStream", pattern, ["events-a", "events-b"])
    assert kafka_sources(read) == [
        DatasetId("kafka://b:9092", "events-a"),
        DatasetId("kafka://b:9092", "events-b"),
    ]
    assert kafka_sources(StreamSource("KafkaMicroBatchStream", pattern)) == []  # offsets not read
    assert kafka_sources(StreamSource("RateStreamMicroBatchStream", pattern, ["events-a"])) == []


def test_kafka_sinks_name_their_topic_option() -> None:
    options = {"kafka.bootstrap.servers": "b:9092", "topic": "out"}
    assert kafka_datasets(options, sink=True) == [DatasetId("kafka://b:9092", "out")]
    assert kafka_datasets({"kafka.bootstrap.servers": "b:9092"}, sink=True) == []  # per row
    assert kafka_datasets({"subscribe": "t"}, sink=False) == []  # no brokers: no namespace
    assert kafka_namespace(" host:1 , other:2") == "kafka://host:1"


def test_file_sinks_and_other_sinks() -> None:
    assert file_sink_location("FileSink[file:/data/out]") == "file:/data/out"
    assert file_sink_location("org.apache.spark.sql.execution.streaming.ForeachBatchSink@1") is None


def test_kafka_options_name_nothing_without_a_kafka_stream_or_sink() -> None:
    options = {"kafka.bootstrap.servers": SERVERS, "subscribe": "orders"}
    assert kafka_sources(StreamSource("KafkaMicroBatchStream", options)) != []
    assert kafka_sources(StreamSource("RateStreamMicroBatchStream", options)) == []
    sink = {"kafka.bootstrap.servers": "b:9092", "topic": "enriched"}
    assert kafka_sink(StreamSink("KafkaTable", "KafkaTable", sink)) is not None
    assert kafka_sink(StreamSink("MemorySink", "MemorySink", sink)) is None
    assert kafka_sink(StreamSink("catalog.db.events", "KafkaTable", sink)) is not None


def _batch(error: tuple[str, str] | None = None) -> ActionFacts:
    source, sink = DatasetId("kafka://b:9092", "orders"), DatasetId("file", "/out")
    facts = ActionFacts(
        "WriteToMicroBatchDataSourceV1",
        inputs=[DatasetFacts(source)],
        outputs=[DatasetFacts(sink)],
    )
    facts.error = error
    return facts


def test_the_query_end_decides_complete_or_fail() -> None:
    """stop() interrupts a running batch (its execution fails) yet the query ends cleanly: the run
    completes; a query that ends with an exception fails with it."""
    sent: list[dict[str, Any]] = []
    runs = StreamRuns("ns", "app", sent.append, dict)
    runs.batch("r1", _batch(), 1000)
    runs.batch(
        "r1", _batch(("java.lang.InterruptedException", "java.lang.InterruptedException")), 2000
    )
    runs.terminated("r1", None, 3000)
    runs.batch("r2", _batch(), 4000)
    runs.terminated("r2", "org.apache.kafka.common.errors.TimeoutException: down\n\tat x", 5000)
    assert [(e["run"]["runId"], e["eventType"]) for e in sent] == [
        ("r1", "START"), ("r1", "COMPLETE"), ("r2", "START"), ("r2", "FAIL"),
    ]  # fmt: skip
    assert "errorMessage" not in sent[1]["run"]["facets"]
    assert sent[3]["run"]["facets"]["errorMessage"]["message"].startswith(
        "org.apache.kafka.common.errors.TimeoutException: down"
    )
