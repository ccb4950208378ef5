"""raw events' payload as PostgreSQL ``json`` (the text as stored), not ``jsonb``

Every accepted event is inserted raw before anything else happens to it, and the payload is
most of its bytes (~11 KiB in the ingestion benchmark). ``jsonb`` makes PostgreSQL build and
store a binary tree of each document; ``json`` only checks the text and keeps it, which is
all the raw log needs (it is read back whole, and ``->``/``->>`` work on both). Inserting the
ingestion benchmark's events cost PostgreSQL a third less CPU, 107 instead of 157 us per event
(bench/RESULTS.md, session 6). The text kept is the event's canonical JSON, byte for byte. Changing the type rewrites the table
once. SQLite stores JSON as text already: a no-op there.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24 16:00:00
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _compression() -> str | None:
    """The payload column's compression (lz4 from migration 0002), which a type change resets."""
    return (
        op.get_bind()
        .exec_driver_sql(
            "SELECT NULLIF(attcompression, '') FROM pg_attribute "
            "WHERE attrelid = 'lineage_events'::regclass AND attname = 'payload'"
        )
        .scalar()
    )


def _set_type(type_name: str) -> None:
    compression = _compression()
    op.execute(
        f"ALTER TABLE lineage_events ALTER COLUMN payload TYPE {type_name} "
        f"USING payload::{type_name}"
    )
    if compression == "l":
        op.execute("ALTER TABLE lineage_events ALTER COLUMN payload SET COMPRESSION lz4")


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _set_type("json")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _set_type("jsonb")
