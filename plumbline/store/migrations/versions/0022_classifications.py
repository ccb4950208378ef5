"""Classifications that follow column lineage (issue 32 §1)

- ``column_classifications``: every (column, tag) carrying a classification, declared or
  propagated downstream along column edges, with its origin column and path;
- ``field_declassifications``: columns a user declassified for a tag (who, why, when);
- ``tag_value`` on ``dataset_tags`` and ``dataset_field_tags``: the value a producer's ``tags``
  dataset facet gave.

The migration leaves the new table empty; the server computes it in full when it starts on a
store whose table is empty while field tags or config rules exist.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28 10:00:00
"""

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

_TIME = sa.DateTime(timezone=True)
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _keys(table: str) -> list[Any]:
    return [
        sa.Column("field_id", _ID, nullable=False),
        sa.Column("tag_id", _ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["field_id"],
            ["dataset_fields.id"],
            name=op.f(f"fk_{table}_field_id_dataset_fields"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tag_id"], ["tags.id"], name=op.f(f"fk_{table}_tag_id_tags"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("field_id", "tag_id", name=op.f(f"pk_{table}")),
    ]


def upgrade() -> None:
    op.create_table(
        "column_classifications",
        *_keys("column_classifications"),
        sa.Column("tag_value", sa.String(255), server_default="", nullable=False),
        sa.Column("origin", sa.String(10), nullable=False),
        sa.Column("declared_by", sa.String(32), nullable=False),
        sa.Column("origin_field_id", _ID, nullable=False),
        sa.Column("path", _JSON, nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
    )
    op.create_index(
        "ix_column_classifications_tag_id_origin", "column_classifications", ["tag_id", "origin"]
    )
    op.create_table(
        "field_declassifications",
        *_keys("field_declassifications"),
        sa.Column("declassified_by", sa.String(255), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("declassified_at", _TIME, nullable=False),
    )
    for table in ("dataset_tags", "dataset_field_tags"):
        with op.batch_alter_table(table) as batch_op:
            batch_op.add_column(sa.Column("tag_value", sa.String(255), nullable=True))


def downgrade() -> None:
    for table in ("dataset_field_tags", "dataset_tags"):
        with op.batch_alter_table(table) as batch_op:
            batch_op.drop_column("tag_value")
    op.drop_table("field_declassifications")
    op.drop_index("ix_column_classifications_tag_id_origin", table_name="column_classifications")
    op.drop_table("column_classifications")
