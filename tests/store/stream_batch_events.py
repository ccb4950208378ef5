"""Stream events carrying a ``streamBatches`` run facet (issue 26 §2): a Kafka topic read into a
Delta table, batch by batch, for the store, API and CLI tests of per-micro-batch lineage."""

from __future__ import annotations

from typing import Any

from store_summary import dataset, facet, run_event

KAFKA = "kafka://127.0.0.1:9092"


def kafka_batch(
    batch_id: int, start: int, end: int, version: str, *, backward: bool = False
) -> dict[str, Any]:
    """A batch reading partitions 0 and 3 of topic `orders` into Delta table /lake/orders."""
    partitions: list[dict[str, Any]] = [
        {"topic": "orders", "partition": 0, "startOffset": start, "endOffset": end},
        {"topic": "orders", "partition": 3, "startOffset": start * 2, "endOffset": end * 2},
    ]
    if backward:
        partitions[1]["offsetsBackward"] = True
    found: dict[str, Any] = {
        "batchId": batch_id,
        "timestamp": f"2024-01-01T00:00:{batch_id:02d}.000Z",
        "numInputRows": 2 * (end - start),
        "durationMs": 120,
        "sources": [
            {
                "description": "KafkaV2[Subscribe[orders]]",
                "numInputRows": 2 * (end - start),
                "namespace": KAFKA,
                "failOnDataLoss": "false",
                "partitions": partitions,
                "partitionCount": 2,
            }
        ],
        "sinks": [{"namespace": "file", "name": "/lake/orders", "version": version}],
    }
    if backward:
        found["offsetsBackward"] = True
    return found


def stream_event(
    run_id: str, event_type: str, second: int, *batches: dict[str, Any]
) -> dict[str, Any]:
    return run_event(
        run_id,
        event_type,
        f"2024-01-01T00:01:{second:02d}Z",
        job="stream",
        inputs=[dataset(KAFKA, "orders")],
        outputs=[dataset("file", "/lake/orders")],
        streamBatches=facet(batches=list(batches), omittedBatches=0),
    )
