"""run_states.weaker: a transition a weaker source reported (issue 27)

A transition from an event carrying the ``plumbline_extraction`` run facet (event-log extraction)
never overrides a terminal state another source recorded. Existing rows: false (their source is
not known; they keep counting as they did).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 02:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "run_states",
        sa.Column("weaker", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_column("run_states", "weaker")  # in place (SQLite 3.35+): no table rebuild
