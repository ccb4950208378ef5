"""pending events: raw events stored but not yet normalized into the lineage tables

``POST /api/v1/lineage`` answers once an event's raw row and its ``pending_events`` row are
committed; a background normalizer writes the lineage tables and deletes the pending row in one
transaction. Existing events were all normalized when they were stored: the table starts empty.
``event_id`` is a ``lineage_events.id`` with no foreign key (see the schema module).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22 08:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pending_events",
        sa.Column(
            "event_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=False,
            nullable=False,
        ),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("event_id", name=op.f("pk_pending_events")),
    )


def downgrade() -> None:
    op.drop_table("pending_events")
