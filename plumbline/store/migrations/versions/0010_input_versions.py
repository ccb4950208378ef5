"""input versions: when each run read an input, and where the version it read came from

- ``run_io.read_at``: the earliest event time a run names an input at (existing rows: the time
  of the event that first named it, ``created_at``);
- ``run_io.version_source``: ``datasetVersion`` | ``catalog`` | ``eventTime`` (see the schema);
  NULL for existing rows: linked by the old rule (the dataset's current version when the event
  was normalized). ``plumbline db renormalize`` rebuilds them from the raw events still stored;
- indexes: run_io (dataset_id, direction, read_at) replaces (dataset_id, direction), run_io
  (dataset_version_id) (the runs that read a version), dataset_versions (dataset_id, created_at)
  (a dataset's version as of a time).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25 14:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_TIME = sa.DateTime(timezone=True)

# plain ALTER TABLE on both backends: a batch rebuild on SQLite would cascade-delete the rows
# that reference the rebuilt table


def upgrade() -> None:
    op.add_column("run_io", sa.Column("read_at", _TIME, nullable=True))
    op.add_column("run_io", sa.Column("version_source", sa.String(16), nullable=True))
    op.execute("UPDATE run_io SET read_at = created_at WHERE direction = 'input'")
    op.drop_index("ix_run_io_dataset_id_direction", table_name="run_io")
    op.create_index(
        "ix_run_io_dataset_id_direction_read_at", "run_io", ["dataset_id", "direction", "read_at"]
    )
    op.create_index("ix_run_io_dataset_version_id", "run_io", ["dataset_version_id"])
    op.create_index(
        "ix_dataset_versions_dataset_id_created_at",
        "dataset_versions",
        ["dataset_id", "created_at"],
    )


def downgrade() -> None:
    op.drop_index("ix_dataset_versions_dataset_id_created_at", table_name="dataset_versions")
    op.drop_index("ix_run_io_dataset_version_id", table_name="run_io")
    op.drop_index("ix_run_io_dataset_id_direction_read_at", table_name="run_io")
    op.create_index("ix_run_io_dataset_id_direction", "run_io", ["dataset_id", "direction"])
    op.drop_column("run_io", "version_source")
    op.drop_column("run_io", "read_at")
