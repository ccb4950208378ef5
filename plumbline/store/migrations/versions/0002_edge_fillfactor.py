"""leave room on the pages of the edge tables (PostgreSQL fillfactor)

Every event that carries an edge updates its row (last seen, counter). On pages packed full, no
update can stay on its page, so each one also writes every index of the table; with free space
on the page and no indexed column changed, PostgreSQL makes it a heap-only (HOT) update instead.
Measured on the ingestion benchmark's edge upsert: about 0.7x the time at fillfactor 50
(bench/RESULTS.md, "Ingestion"). Only pages written from now on get the free space (a
``VACUUM FULL`` of the tables repacks existing rows). SQLite has no such setting: a no-op there.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 00:05:00
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

EDGE_TABLES = ("column_lineage_edges", "column_dataset_edges", "job_dataset_edges")
FILLFACTOR = 50


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in EDGE_TABLES:
        op.execute(f"ALTER TABLE {table} SET (fillfactor = {FILLFACTOR})")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in EDGE_TABLES:
        op.execute(f"ALTER TABLE {table} RESET (fillfactor)")
