"""The tests' Kafka broker (tests/kafka_broker.py) is a real one: records go in and come back out
of it by the Kafka protocol, topics are created and deleted, and it keeps its logs."""

from __future__ import annotations

import pytest
from kafka_broker import KafkaBroker

pytestmark = [pytest.mark.slow]


def test_the_broker_round_trips_records_and_keeps_its_logs(kafka_broker: KafkaBroker) -> None:
    assert kafka_broker.bootstrap.startswith("127.0.0.1:")
    assert kafka_broker.namespace == f"kafka://{kafka_broker.bootstrap}"
    kafka_broker.tool("create", "broker-selftest", "2")
    kafka_broker.tool("produce", "broker-selftest", "a=1", "b=2", "c=3")
    rows = sorted(
        line.split() for line in kafka_broker.tool("consume", "broker-selftest", "3").splitlines()
    )
    assert sorted(r[2:] for r in rows) == [["a", "1"], ["b", "2"], ["c", "3"]]
    assert {r[0] for r in rows} <= {"0", "1"}
    kafka_broker.tool("delete", "broker-selftest")
    assert kafka_broker.process.poll() is None
    assert "Kafka Server started" in kafka_broker.log.read_text()
