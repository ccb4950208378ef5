"""The micro-batches of a streaming run (``GET /jobs/runs/{id}/batches``, ``plumbline batches``):
per batch its sources (Kafka per partition, versions read, files added) and sinks (the versions
they committed), in batch order."""

from __future__ import annotations

from typing import Any, TypedDict

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import count, iso
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.runs import run_pk_by_uuid
from plumbline.store.read.visibility import VisibleTo


class StreamBatchPartition(TypedDict):
    topic: str | None
    partition: int | None
    startOffset: int | None
    endOffset: int | None
    offsetsBackward: bool


class StreamBatchSource(TypedDict):
    namespace: str | None
    name: str | None
    description: str | None
    startVersion: str | None
    endVersion: str | None
    filesAdded: int | None
    failOnDataLoss: str | None
    partitions: list[StreamBatchPartition]


class StreamBatchSink(TypedDict):
    namespace: str | None
    name: str | None
    version: str | None


class StreamBatch(TypedDict):
    batchId: int
    timestamp: str | None
    numInputRows: int | None
    durationMs: int | None
    offsetsBackward: bool
    recordedAt: str | None
    sources: list[StreamBatchSource]
    sinks: list[StreamBatchSink]


class StreamBatchPage(TypedDict):
    runId: str
    batches: list[StreamBatch]
    totalCount: int


b, p = s.stream_batches, s.stream_batch_parts
_PARTS = sa.select(p).where(in_ids(p.c.stream_batch_id)).order_by(p.c.stream_batch_id, p.c.seq)


def run_batches(
    conn: Connection, run_uuid: str, limit: int, offset: int = 0, visible_to: VisibleTo = None
) -> StreamBatchPage:
    """A run's micro-batches by batch id, a page of them, and how many it has (NotFoundError for
    an unknown run or one of a job ``visible_to`` may not see)."""
    run_pk = run_pk_by_uuid(conn, run_uuid, visible_to)
    base = sa.select(b).where(b.c.run_id == run_pk)
    total = count(conn, sa.select(b.c.id).where(b.c.run_id == run_pk))
    rows = conn.execute(base.order_by(b.c.batch_id).limit(limit).offset(offset)).all()
    parts: dict[int, list[Any]] = {row.id: [] for row in rows}
    if rows:
        for part in conn.execute(_PARTS, {"ids": sorted(parts)}):
            parts[part.stream_batch_id].append(part)
    return {
        "runId": run_uuid.lower(),
        "batches": [_batch(row, parts[row.id]) for row in rows],
        "totalCount": total,
    }


def _batch(row: Any, parts: list[Any]) -> StreamBatch:
    sources: dict[int, StreamBatchSource] = {}
    sinks: list[StreamBatchSink] = []
    for part in parts:
        if part.role == "sink":
            sinks.append(
                {"namespace": part.namespace, "name": part.name, "version": part.end_version}
            )
            continue
        source = sources.get(part.source_index)
        if source is None:
            source = sources[part.source_index] = {
                "namespace": part.namespace,
                "name": None if part.kafka_partition is not None else part.name,
                "description": part.description,
                "startVersion": part.start_version,
                "endVersion": part.end_version,
                "filesAdded": part.files_added,
                "failOnDataLoss": part.fail_on_data_loss,
                "partitions": [],
            }
        if part.kafka_partition is not None:
            source["partitions"].append(
                {
                    "topic": part.name,
                    "partition": part.kafka_partition,
                    "startOffset": part.start_offset,
                    "endOffset": part.end_offset,
                    "offsetsBackward": bool(part.offsets_backward),
                }
            )
    return {
        "batchId": row.batch_id,
        "timestamp": iso(row.batch_time),
        "numInputRows": row.num_input_rows,
        "durationMs": row.duration_ms,
        "offsetsBackward": bool(row.offsets_backward),
        "recordedAt": iso(row.recorded_at),
        "sources": [sources[index] for index in sorted(sources)],
        "sinks": sinks,
    }
