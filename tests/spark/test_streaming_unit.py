"""Streaming dataset naming (OpenLineage naming spec) from the options a plan carries."""

from __future__ import annotations

from plumbline.spark.datasets import DatasetId
from plumbline.spark.streaming import file_sink_location, kafka_datasets, kafka_namespace

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
    assert [d.name for d in kafka_datasets(pattern, sink=False)] == ["events-.*"]


def test_kafka_sinks_name_their_topic_option() -> None:
    options = {"kafka.bootstrap.servers": "b:9092", "topic": "out"}
    assert kafka_datasets(options, sink=True) == [DatasetId("kafka://b:9092", "out")]
    assert kafka_datasets({"kafka.bootstrap.servers": "b:9092"}, sink=True) == []  # per row
    assert kafka_datasets({"subscribe": "t"}, sink=False) == []  # no brokers: no namespace
    assert kafka_namespace(" host:1 , other:2") == "kafka://host:1"


def test_file_sinks_and_other_sinks() -> None:
    assert file_sink_location("FileSink[file:/data/out]") == "file:/data/out"
    assert file_sink_location("org.apache.spark.sql.execution.streaming.ForeachBatchSink@1") is None
