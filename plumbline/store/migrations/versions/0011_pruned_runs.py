"""pruned runs: what ``db prune`` removed of each run (its id, job, state, times, when)

So that version lineage, root cause and run diff say "run X, pruned at T" where the history they
need is gone, instead of answering from what is left as if it were all.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25 14:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_TIME = sa.DateTime(timezone=True)
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "pruned_runs",
        sa.Column("run_uuid", sa.String(36), nullable=False),
        sa.Column("job_id", _ID, nullable=False),
        sa.Column("state", sa.String(16), nullable=True),
        sa.Column("started_at", _TIME, nullable=True),
        sa.Column("ended_at", _TIME, nullable=True),
        sa.Column("pruned_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name="fk_pruned_runs_job_id_jobs", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("run_uuid", name="pk_pruned_runs"),
    )
    op.create_index("ix_pruned_runs_job_id_ended_at", "pruned_runs", ["job_id", "ended_at"])


def downgrade() -> None:
    op.drop_index("ix_pruned_runs_job_id_ended_at", table_name="pruned_runs")
    op.drop_table("pruned_runs")
