"""stream batch lineage as a SQL table (issue 26 §2): the view ``plumbline_stream_batch_lineage``

One row per micro-batch of a streaming run, per source (per Kafka topic partition) and sink it had:
shaped like ``plumbline_snapshot_lineage`` (``source_*``, ``target_*``, ``entity_*``, the run id,
the batch's time and day; no run state, so a batch's rows never change once written), plus ``batch_id``, the source's offsets (Kafka partition, start and end
offsets), the versions it read, the files it added, whether its offsets went backwards, its
``failOnDataLoss``, and ``target_version``: the version the sink committed. A batch without sinks
has a row per source with the target columns null (and the other way round). Columns listed in
``plumbline/lineage_tables.py``; datasets named through ``plumbline_dataset_names`` (0012).

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-28 10:20:00
"""

from alembic import op

# ruff: noqa: S608 (the view text is built from this module's constants only, no input)

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

VIEW = "plumbline_stream_batch_lineage"


def _sql(dialect: str) -> str:
    when = "COALESCE(b.batch_time, b.recorded_at)"
    day = f"date({when})" if dialect == "sqlite" else f"CAST(({when}) AT TIME ZONE 'UTC' AS DATE)"

    def side(prefix: str, names: str, part: str) -> str:
        return (
            f"{names}.table_full_name AS {prefix}_table_full_name, {names}.path AS {prefix}_path,"
            f" {names}.dataset_type AS {prefix}_type, {part}.namespace AS {prefix}_namespace,"
            f" {part}.name AS {prefix}_name"
        )

    return f"""CREATE VIEW {VIEW} AS
        SELECT {side("source", "src", "s")}, {side("target", "tgt", "t")},
               'JOB' AS entity_type, j.uuid AS entity_id, jn.name AS entity_namespace,
               j.name AS entity_name, r.uuid AS entity_run_id,
               {when} AS event_time, {day} AS event_date,
               b.batch_id, s.kafka_partition AS source_partition,
               s.start_offset AS source_start_offset, s.end_offset AS source_end_offset,
               s.start_version AS source_start_version, s.end_version AS source_end_version,
               s.files_added AS source_files_added,
               CASE WHEN s.offsets_backward THEN 1 WHEN s.seq IS NOT NULL THEN 0 END
                 AS source_offsets_backward,
               s.fail_on_data_loss AS source_fail_on_data_loss, t.end_version AS target_version
          FROM stream_batches b JOIN runs r ON r.id = b.run_id
          JOIN jobs j ON j.id = r.job_id JOIN namespaces jn ON jn.id = j.namespace_id
          LEFT JOIN stream_batch_parts s ON s.stream_batch_id = b.id AND s.role = 'source'
          LEFT JOIN stream_batch_parts t ON t.stream_batch_id = b.id AND t.role = 'sink'
          LEFT JOIN plumbline_dataset_names src
            ON src.namespace = s.namespace AND src.name = s.name
          LEFT JOIN plumbline_dataset_names tgt
            ON tgt.namespace = t.namespace AND tgt.name = t.name
         WHERE NOT j.is_hidden AND NOT jn.is_hidden"""


def upgrade() -> None:
    op.execute(_sql(op.get_bind().dialect.name))


def downgrade() -> None:
    op.execute(f"DROP VIEW IF EXISTS {VIEW}")
