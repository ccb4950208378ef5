"""job event times: a job's latest run and current version follow event time, not arrival

- ``jobs.latest_run_at``: the event time of the newest run event seen for the job (its run is
  ``latest_run_uuid``);
- ``jobs.current_version_at``: the event time of the event that made ``current_version_id``.
NULL for existing rows: unknown, older than any event.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 03:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

COLUMNS = ("latest_run_at", "current_version_at")

# plain ALTER TABLE on both backends: a batch rebuild of ``jobs`` on SQLite would cascade-delete
# the rows that reference it


def upgrade() -> None:
    for column in COLUMNS:
        op.add_column("jobs", sa.Column(column, sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    for column in COLUMNS:
        op.drop_column("jobs", column)
