"""Classification paths as links to the previous column (issue 32 §1)

``column_classifications.path`` (0022) stored every hop's names on every row: a tag reaching
100,000 columns 50 hops deep stored 5 million hops. Each row now names the column it came from
(``via_field_id``, NULL when declared), that edge's transformation and the number of ``hops``
from the origin; a path is read back by following the links. The table is recomputed from its
declarations (the rows are dropped; the server computes them in full when it starts).

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-28 10:30:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.execute("DELETE FROM column_classifications")
    with op.batch_alter_table("column_classifications") as batch_op:
        batch_op.drop_column("path")
        batch_op.add_column(sa.Column("via_field_id", _ID, nullable=True))
        batch_op.add_column(sa.Column("via_type", sa.String(16), server_default="", nullable=False))
        batch_op.add_column(
            sa.Column("via_subtype", sa.String(32), server_default="", nullable=False)
        )
        batch_op.add_column(sa.Column("hops", sa.Integer, server_default="0", nullable=False))


def downgrade() -> None:
    op.execute("DELETE FROM column_classifications")
    with op.batch_alter_table("column_classifications") as batch_op:
        batch_op.drop_column("hops")
        batch_op.drop_column("via_subtype")
        batch_op.drop_column("via_type")
        batch_op.drop_column("via_field_id")
        batch_op.add_column(sa.Column("path", _JSON, nullable=False, server_default="[]"))
