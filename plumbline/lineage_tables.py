"""The lineage SQL tables (issue 18): their names, columns and kinds, shared by the store (the
views ``plumbline_<table>``), the export and Spark SQL (``plumbline.spark.lineage_tables``).

Pure data, no SQL. History tables hold one row per run that carried something (pruned with the
runs) and are partitioned by ``event_date`` when exported; the others hold current state.
Column names keep Unity Catalog's (``source_table_full_name``, ``entity_run_id``, …) where the
meaning is the same, and add OpenLineage's identity (``source_namespace``, ``source_name``, …).
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["string", "int", "timestamp", "date", "json"]
Columns = tuple[tuple[str, Kind], ...]

VIEW_PREFIX = "plumbline_"


def _side(prefix: str) -> Columns:
    return (
        (f"{prefix}_table_full_name", "string"),
        (f"{prefix}_path", "string"),
        (f"{prefix}_type", "string"),
        (f"{prefix}_namespace", "string"),
        (f"{prefix}_name", "string"),
    )


_ENTITY: Columns = (
    ("entity_type", "string"),
    ("entity_id", "string"),
    ("entity_namespace", "string"),
    ("entity_name", "string"),
)
_RUN: Columns = (("entity_run_id", "string"), ("run_state", "string"))
_WHEN: Columns = (("event_time", "timestamp"), ("event_date", "date"))
_COLUMNS: Columns = (
    ("source_column_name", "string"),
    ("target_column_name", "string"),
    ("transformation_type", "string"),
    ("transformation_subtype", "string"),
)
_EDGE: Columns = (
    ("first_seen", "timestamp"),
    ("last_seen", "timestamp"),
    ("run_count", "int"),
    ("last_run_id", "string"),
    ("last_run_state", "string"),
    # how the edge is known (issue 31 §2): its reporter and the completeness it stated
    ("edge_source", "string"),
    ("completeness", "string"),
)
_TABLES = _side("source") + _side("target") + _ENTITY

TABLES: dict[str, Columns] = {
    "table_lineage": _TABLES + _RUN + _WHEN,
    "column_lineage": _TABLES + _RUN + _WHEN + _COLUMNS,
    "table_lineage_edges": _TABLES + _EDGE,
    "column_lineage_edges": _TABLES + _COLUMNS + _EDGE,
    "runs": (
        ("run_id", "string"),
        ("job_id", "string"),
        ("job_namespace", "string"),
        ("job_name", "string"),
        ("parent_run_id", "string"),
        ("state", "string"),
        ("start_time", "timestamp"),
        ("end_time", "timestamp"),
        ("duration_ms", "int"),
        ("error_message", "string"),
        ("input_rows", "int"),
        ("input_bytes", "int"),
        ("output_rows", "int"),
        ("output_bytes", "int"),
    )
    + _WHEN,
    "jobs": (
        ("job_id", "string"),
        ("namespace", "string"),
        ("name", "string"),
        ("type", "string"),
        ("description", "string"),
        ("location", "string"),
        ("parent_job_id", "string"),
        ("latest_run_id", "string"),
        ("latest_run_state", "string"),
        ("created_at", "timestamp"),
        ("updated_at", "timestamp"),
    ),
    "datasets": (
        ("dataset_id", "string"),
        ("namespace", "string"),
        ("name", "string"),
        ("table_full_name", "string"),
        ("path", "string"),
        ("dataset_type", "string"),
        ("description", "string"),
        ("current_version_id", "string"),
        ("current_version", "string"),
        ("schema_fingerprint", "string"),
        ("schema_fields", "json"),
        ("last_modified_at", "timestamp"),
        ("created_at", "timestamp"),
        ("updated_at", "timestamp"),
    ),
    "dataset_versions": (
        ("dataset_namespace", "string"),
        ("dataset_name", "string"),
        ("version_id", "string"),
        ("version", "string"),
        ("created_by_run_id", "string"),
        ("schema_fingerprint", "string"),
        ("row_count", "int"),
        ("snapshot_id", "string"),
        ("lifecycle_state", "string"),
        ("created_at", "timestamp"),
    ),
    "snapshot_lineage": (
        ("target_namespace", "string"),
        ("target_name", "string"),
        ("target_version_id", "string"),
        ("target_version", "string"),
        ("target_snapshot_id", "string"),
        ("source_namespace", "string"),
        ("source_name", "string"),
        ("source_version_id", "string"),
        ("source_version", "string"),
        ("source_snapshot_id", "string"),
        ("source_version_source", "string"),
        ("source_read_at", "timestamp"),
    )
    + _ENTITY
    + _RUN
    + _WHEN,
    # one row per micro-batch of a streaming run and source (Kafka: topic partition) x sink
    "stream_batch_lineage": _TABLES
    + (("entity_run_id", "string"),)
    + _WHEN
    + (
        ("batch_id", "int"),
        ("source_partition", "int"),
        ("source_start_offset", "int"),
        ("source_end_offset", "int"),
        ("source_start_version", "string"),
        ("source_end_version", "string"),
        ("source_files_added", "int"),
        ("source_offsets_backward", "int"),
        ("source_fail_on_data_loss", "string"),
        ("target_version", "string"),
    ),
}

# one row per run (stream_batch_lineage: per batch, by its time): partitioned by event_date when
# exported, pruned with the runs (stream batches: by their own cut-off too)
HISTORY = frozenset(
    {"table_lineage", "column_lineage", "snapshot_lineage", "runs", "stream_batch_lineage"}
)


def view_name(table: str) -> str:
    """The store's view of a table: ``plumbline_<table>``."""
    return VIEW_PREFIX + table
