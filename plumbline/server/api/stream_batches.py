"""``GET /jobs/runs/{id}/batches``: the micro-batches of a streaming run (issue 26 §2), by batch id,
paged like the other lists (``limit``, ``offset``, ``totalCount``). A run of a job a
namespace-limited token may not see answers 404, as if missing."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from plumbline.server.api.models import Model
from plumbline.server.api.routing import Limit, Offset, ReadAccess, Reader, make_router
from plumbline.store.read import stream_batches as store

router = make_router("Jobs")


class StreamBatchPartition(Model):
    """A Kafka topic partition a batch read: the offsets as Spark's progress reported them."""

    topic: str | None
    partition: int | None
    startOffset: int | None
    endOffset: int | None
    offsetsBackward: bool = Field(description="The offsets went backwards (a reset topic)")


class StreamBatchSource(Model):
    namespace: str | None
    name: str | None = Field(description="The dataset read (Kafka: null, see partitions)")
    description: str | None = Field(description="Spark's description of the source")
    startVersion: str | None = Field(description="Delta/Iceberg/Paimon source: version before")
    endVersion: str | None = Field(description="Delta/Iceberg/Paimon source: version read up to")
    filesAdded: int | None = Field(description="File source: the files the batch added")
    failOnDataLoss: str | None = Field(description="Kafka's option as the query set it")
    partitions: list[StreamBatchPartition]


class StreamBatchSink(Model):
    namespace: str | None
    name: str | None
    version: str | None = Field(description="The version the batch committed (Delta: its number)")


class StreamBatch(Model):
    batchId: int
    timestamp: datetime | None = Field(description="When the batch's trigger started")
    numInputRows: int | None
    durationMs: int | None
    offsetsBackward: bool
    recordedAt: datetime | None = Field(description="When the store wrote the batch")
    sources: list[StreamBatchSource]
    sinks: list[StreamBatchSink]


class StreamBatchList(Model):
    runId: str
    batches: list[StreamBatch]
    totalCount: int = Field(description="Batches of the run in all pages")


@router.get(
    "/jobs/runs/{id}/batches",
    response_model=StreamBatchList,
    summary="The micro-batches of a streaming run",
    description="Each micro-batch of the run by batch id (from the `streamBatches` run facet): "
    "its sources' offsets (Kafka per partition), versions read and files added, and the version "
    "each sink committed; a page of `limit` from `offset`, and how many there are.",
)
def list_run_batches(
    *,
    id: str,  # noqa: A002 - Marquez's name
    conn: Reader,
    limit: Limit = 100,
    offset: Offset = 0,
    principal: ReadAccess,
) -> store.StreamBatchPage:
    return store.run_batches(conn, id, limit, offset, principal.namespaces)
