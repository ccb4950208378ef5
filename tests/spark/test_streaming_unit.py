"""Streaming dataset naming (OpenLineage naming spec) from the options a plan carries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from plumbline.spark.datasets import DatasetId
from plumbline.spark.streaming import (
    StreamSink,
    StreamSource,
    file_sink_location,
    kafka_datasets,
    kafka_namespace,
    kafka_sink,
    kafka_sources,
)

# what the capture reads of Kafka queries' micro-batch plans, per Spark line (see its "about")
KAFKA = json.loads(
    (Path(__file__).resolve().parents[1] / "golden" / "streams" / "kafka.json").read_text()
)
LINES = sorted(KAFKA["lines"])

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


def _cases(kind: str) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (line, name, read) for line in LINES for name, read in KAFKA["lines"][line][kind].items()
    ]


@pytest.mark.parametrize(("line", "shape", "read"), _cases("sources"))
def test_kafka_sources_of_every_line_name_their_topics(
    line: str, shape: str, read: dict[str, Any]
) -> None:
    """subscribe, subscribePattern, assign (and continuous) on 3.5 and 4.x plans."""
    expected = [DatasetId(*pair) for pair in KAFKA["expected"]["sources"][shape]]
    assert kafka_sources(StreamSource(**read)) == expected


@pytest.mark.parametrize(("line", "shape", "read"), _cases("sinks"))
def test_kafka_sinks_of_every_line_name_their_topic(
    line: str, shape: str, read: dict[str, Any]
) -> None:
    expected = KAFKA["expected"]["sinks"][shape]
    assert kafka_sink(StreamSink(**read)) == (DatasetId(*expected) if expected else None)


def test_kafka_options_name_nothing_without_a_kafka_stream_or_sink() -> None:
    read = KAFKA["lines"]["3.5"]
    options = read["sources"]["subscribe"]["options"]
    assert kafka_sources(StreamSource("RateStreamMicroBatchStream", options)) == []
    sink = read["sinks"]["topic"]["options"]
    assert kafka_sink(StreamSink("MemorySink", "MemorySink", sink)) is None
    assert kafka_sink(StreamSink("catalog.db.events", "KafkaTable", sink)) is not None
