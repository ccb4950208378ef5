"""steady-state writes: column edges lose their per-event counter, datasets get a facets digest

- ``column_lineage_edges.seen_count`` and ``column_dataset_edges.seen_count`` counted the events
  that carried an edge: one row update per edge per event, for a number nothing read. An edge
  now keeps its first (exact) and last (to the hour) sighting, which change rarely.
- ``datasets.facets_digest``: the sha256 of the stored facets, so a writer that already holds
  those facets in memory need not read them back (NULL: unknown, read them).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 03:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

COUNTED_EDGE_TABLES = ("column_lineage_edges", "column_dataset_edges")


# Columns are added and dropped in place (SQLite 3.35+ drops columns itself): a batch-mode table
# rebuild of ``datasets`` on SQLite would cascade-delete the rows that reference it.


def upgrade() -> None:
    for table in COUNTED_EDGE_TABLES:
        op.drop_column(table, "seen_count")
    op.add_column("datasets", sa.Column("facets_digest", sa.String(64), nullable=True))


def downgrade() -> None:
    op.drop_column("datasets", "facets_digest")
    for table in COUNTED_EDGE_TABLES:
        op.add_column(
            table, sa.Column("seen_count", sa.BigInteger(), server_default="1", nullable=False)
        )
