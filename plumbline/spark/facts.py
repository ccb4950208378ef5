"""What the capture learned about one action, as plain Python values (no JVM objects)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from plumbline.spark.datasets import DatasetId
from plumbline.spark.jvm import TableInfo
from plumbline.spark.lineage import LineageResult


@dataclass
class DatasetFacts:
    """One input or output dataset of an action."""

    id: DatasetId
    schema: list[dict[str, Any]] = field(default_factory=list)
    file_format: str | None = None
    table: TableInfo | None = None
    source_uri: str | None = None
    stats: dict[str, int] = field(default_factory=dict)
    lifecycle: str | None = None
    previous: DatasetId | None = None
    lineage: LineageResult | None = None
    local_path: str | None = None
    # a conditional DDL (IF [NOT] EXISTS) changed the dataset only if Spark's catalog posted this
    # event (kind, database, table) during the execution; otherwise it was a no-op
    needs_catalog_event: tuple[str, str, str] | None = None
    previous_table: TableInfo | None = None  # the table a RENAME moved away from
    ignore_mode: bool = False  # SaveMode.Ignore: Spark writes nothing when the target exists
    # a table format's table ("delta"): its root path, and its own version: the one an input
    # read, the one an output's write committed (read after the execution ended)
    table_format: str | None = None
    format_location: str | None = None
    version: str | None = None
    # an Iceberg table: (catalog, *namespace, table) to load it again after the execution, and the
    # branch or tag a read or write names (None: main)
    format_table: tuple[str, ...] | None = None
    format_ref: str | None = None
    # a streaming source's micro-batch: the files a file source added (the first ones) and how
    # many; a Kafka source's `failOnDataLoss` option as the query set it (None: not set)
    stream_files: list[str] | None = None
    stream_file_count: int = 0
    fail_on_data_loss: str | None = None
    # an output's columns null in every row written, by the table format's statistics of the
    # files the write committed (Delta); None: the format keeps none or they were not read
    null_columns: list[str] | None = None


@dataclass
class ActionFacts:
    """Everything the capture learned about one execution."""

    command: str
    inputs: list[DatasetFacts] = field(default_factory=list)
    outputs: list[DatasetFacts] = field(default_factory=list)
    sql: str | None = None
    error: tuple[str, str] | None = None
    job_type: str = "SQL_JOB"  # the jobType facet's jobType (RDD_JOB for RDD actions)
    processing_type: str = "BATCH"  # BATCH, or STREAMING for a streaming query's batches
    # expression id -> input dataset keys it derives from (to attribute scan metrics)
    expr_sources: dict[int, set[str]] = field(default_factory=dict, repr=False)

    @property
    def writes(self) -> bool:
        """Whether the action changed a dataset (only those produce events)."""
        return bool(self.outputs)
