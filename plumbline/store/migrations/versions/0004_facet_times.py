"""facet times: datasets, jobs and runs keep the event time of each facet they keep

- ``datasets.facet_times``, ``jobs.facet_times``, ``runs.facet_times`` and
  ``runs.job_facet_times``: ``{facet name: event time}`` beside each facets column, so that an
  older event arriving late no longer overwrites a newer facet (nor brings a deleted one back).
  NULL for existing rows: their facets' times are unknown, older than any event.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 02:50:00
"""

from typing import Any

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


def _json() -> sa.types.TypeEngine[Any]:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


# plain ALTER TABLE on both backends (SQLite >= 3.35 drops columns itself): a batch "move and
# copy" of these tables on SQLite, whose foreign keys are on, would cascade-delete their
# dependent rows when the old table is dropped


def upgrade() -> None:
    for table, columns in COLUMNS.items():
        for column in columns:
            op.add_column(table, sa.Column(column, _json(), nullable=True))


def downgrade() -> None:
    for table, columns in COLUMNS.items():
        for column in columns:
            op.drop_column(table, column)
