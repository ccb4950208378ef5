"""alerts: change alerts detected as events are normalized, and by the freshness check (issue 19)

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-25 17:10:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_TIME = sa.DateTime(timezone=True)
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "alerts",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("namespace", sa.String(1024), nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("dedupe_key", sa.String(64), nullable=False),
        sa.Column("run_uuid", sa.String(36), nullable=True),
        sa.Column("seen_at", _TIME, nullable=False),
        sa.Column("details", _JSON, nullable=False),
        sa.Column("blast_radius", _JSON, nullable=True),
        sa.Column("acknowledged_at", _TIME, nullable=True),
        sa.Column("acknowledged_by", sa.String(255), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_alerts"),
        sa.UniqueConstraint("dedupe_key", name="uq_alerts_dedupe_key"),
    )
    op.create_index("ix_alerts_seen_at", "alerts", ["seen_at"])
    op.create_index("ix_alerts_kind_id", "alerts", ["kind", "id"])
    op.create_index("ix_alerts_namespace_id", "alerts", ["namespace", "id"])


def downgrade() -> None:
    op.drop_index("ix_alerts_namespace_id", table_name="alerts")
    op.drop_index("ix_alerts_kind_id", table_name="alerts")
    op.drop_index("ix_alerts_seen_at", table_name="alerts")
    op.drop_table("alerts")
