"""stream batches (issue 26 §2): the micro-batches of streaming runs, from the ``streamBatches``
run facet

- ``stream_batches``: one row per (run, batch id): when the batch ran, its input rows and
  duration, whether offsets went backwards; ``recorded_at`` (when the store wrote it) is what the
  batch retention of ``db prune`` goes by;
- ``stream_batch_parts``: what each batch read and wrote, compactly: one row per source (per Kafka
  topic partition) and per sink, with its dataset's namespace and name, Kafka offsets, the versions
  a table source read, the files a file source added, ``failOnDataLoss``, and a sink's committed
  version.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28 10:10:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

_TIME = sa.DateTime(timezone=True)
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "stream_batches",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("run_id", _ID, nullable=False),
        sa.Column("batch_id", sa.BigInteger(), nullable=False),
        sa.Column("batch_time", _TIME, nullable=True),
        sa.Column("num_input_rows", sa.BigInteger(), nullable=True),
        sa.Column("duration_ms", sa.BigInteger(), nullable=True),
        sa.Column("offsets_backward", sa.Boolean(), nullable=False),
        sa.Column("recorded_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name="fk_stream_batches_run_id_runs", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_stream_batches"),
        sa.UniqueConstraint("run_id", "batch_id", name="uq_stream_batches_run_id_batch_id"),
    )
    op.create_index("ix_stream_batches_batch_time", "stream_batches", ["batch_time"])
    op.create_table(
        "stream_batch_parts",
        sa.Column("stream_batch_id", _ID, nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(6), nullable=False),
        sa.Column("source_index", sa.Integer(), nullable=False),
        sa.Column("namespace", sa.String(1024), nullable=True),
        sa.Column("name", sa.String(2048), nullable=True),
        sa.Column("description", sa.String(500), nullable=True),
        sa.Column("kafka_partition", sa.Integer(), nullable=True),
        sa.Column("start_offset", sa.BigInteger(), nullable=True),
        sa.Column("end_offset", sa.BigInteger(), nullable=True),
        sa.Column("start_version", sa.String(255), nullable=True),
        sa.Column("end_version", sa.String(255), nullable=True),
        sa.Column("files_added", sa.BigInteger(), nullable=True),
        sa.Column("offsets_backward", sa.Boolean(), nullable=False),
        sa.Column("fail_on_data_loss", sa.String(16), nullable=True),
        sa.ForeignKeyConstraint(
            ["stream_batch_id"],
            ["stream_batches.id"],
            name="fk_stream_batch_parts_stream_batch_id_stream_batches",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("stream_batch_id", "seq", name="pk_stream_batch_parts"),
    )
    op.create_index(
        "ix_stream_batch_parts_namespace_name", "stream_batch_parts", ["namespace", "name"]
    )


def downgrade() -> None:
    op.drop_index("ix_stream_batch_parts_namespace_name", table_name="stream_batch_parts")
    op.drop_table("stream_batch_parts")
    op.drop_index("ix_stream_batches_batch_time", table_name="stream_batches")
    op.drop_table("stream_batches")
