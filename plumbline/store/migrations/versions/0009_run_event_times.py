"""run event times: a job's runs are ordered by event time, not arrival

- ``runs.last_event_at``: the event time of the newest event of the run itself (NULL: a run known
  only from a child's ``parent`` facet). ``latestRun``, ``latestRuns`` and a job's runs follow it,
  as ``jobs.latest_run_uuid`` and ``?lastRunStates`` already did; indexed with ``job_id``.

Existing rows take the newest time among their raw events and state transitions.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 14:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

# plain ALTER TABLE on both backends: a batch rebuild of ``runs`` on SQLite would cascade-delete
# the rows that reference it


def upgrade() -> None:
    op.add_column("runs", sa.Column("last_event_at", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        """
        UPDATE runs SET last_event_at = (
            SELECT max(t) FROM (
                SELECT max(e.event_time) AS t FROM lineage_events e WHERE e.run_uuid = runs.uuid
                UNION ALL
                SELECT max(s.transitioned_at) FROM run_states s WHERE s.run_id = runs.id
            ) AS times
        )
        """
    )
    op.create_index("ix_runs_job_id_last_event_at", "runs", ["job_id", "last_event_at"])


def downgrade() -> None:
    op.drop_index("ix_runs_job_id_last_event_at", table_name="runs")
    op.drop_column("runs", "last_event_at")
