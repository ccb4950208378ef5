"""storage settings for the write-heavy tables (PostgreSQL): edge fillfactor, lz4 raw events

Every event that carries an edge updates its row (last seen, counter). On pages packed full, no
update can stay on its page, so each one also writes every index of the table; with free space
on the page and no indexed column changed, PostgreSQL makes it a heap-only (HOT) update instead:
fillfactor 50 on the edge tables. Raw events (~11 KiB of JSON each in the ingestion benchmark)
are compressed with lz4 instead of pglz when the server supports it, about half the insert
time. Measurements in bench/RESULTS.md ("Ingestion"). Both settings apply to rows written from
now on (``VACUUM FULL`` rewrites existing ones). SQLite has neither: a no-op there.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 00:05:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

EDGE_TABLES = ("column_lineage_edges", "column_dataset_edges", "job_dataset_edges")
FILLFACTOR = 50


def _supports_lz4() -> bool:
    """Whether this server was built with lz4 (it is then a value of the compression setting)."""
    values = op.get_bind().execute(
        sa.text("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
    )
    return "lz4" in (values.scalar() or [])


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in EDGE_TABLES:
        op.execute(f"ALTER TABLE {table} SET (fillfactor = {FILLFACTOR})")
    if _supports_lz4():
        op.execute("ALTER TABLE lineage_events ALTER COLUMN payload SET COMPRESSION lz4")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in EDGE_TABLES:
        op.execute(f"ALTER TABLE {table} RESET (fillfactor)")
    op.execute("ALTER TABLE lineage_events ALTER COLUMN payload SET COMPRESSION DEFAULT")
