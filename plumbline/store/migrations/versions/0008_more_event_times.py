"""more event times: what was still decided by arrival follows event time

- ``jobs.parent_job_at``: the event time of the run event whose ``parent`` facet set
  ``parent_job_id``;
- ``job_versions.latest_run_at``: the event time of the run event that set ``latest_run_uuid``;
- ``run_io.facet_times``: ``{facet name: event time}`` of the run IO facets kept, as
  ``datasets.facet_times`` (migration 0004); ``run_io.statistics_at``: the event time of the
  statistics in ``row_count``, ``byte_count`` and ``file_count``;
- ``dataset_versions.facet_times``: as ``run_io.facet_times``, for a version's facets.

NULL for existing rows: unknown, older than any event (the next event sets them).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 16:30:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")
_TIME = sa.DateTime(timezone=True)
COLUMNS = (
    ("jobs", "parent_job_at", _TIME),
    ("job_versions", "latest_run_at", _TIME),
    ("run_io", "facet_times", _JSON),
    ("run_io", "statistics_at", _TIME),
    ("dataset_versions", "facet_times", _JSON),
)

# plain ALTER TABLE on both backends: a batch rebuild on SQLite would cascade-delete the rows
# that reference the rebuilt table


def upgrade() -> None:
    for table, column, column_type in COLUMNS:
        op.add_column(table, sa.Column(column, column_type, nullable=True))


def downgrade() -> None:
    for table, column, _type in reversed(COLUMNS):
        op.drop_column(table, column)
