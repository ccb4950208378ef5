"""facet times: datasets, jobs and runs keep the event time of each facet they keep

- ``datasets.facet_times``, ``jobs.facet_times``, ``runs.facet_times`` and
  ``runs.job_facet_times``: ``{facet name: event time}`` beside each facets column, so that an
  older event arriving late no longer overwrites a newer facet (nor brings a deleted one back).
  NULL for existing rows: their facets' times are unknown, older than any event.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 02:50:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

COLUMNS = {
    "datasets": ("facet_times",),
    "jobs": ("facet_times",),
    "runs": ("facet_times", "job_facet_times"),
}


def _json() -> sa.types.TypeEngine:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.add_column(sa.Column(column, _json(), nullable=True))


def downgrade() -> None:
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.drop_column(column)
