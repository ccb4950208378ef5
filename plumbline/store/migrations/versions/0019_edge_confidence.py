"""Confidence on every edge (issue 31 §2): how each dataset and column edge is known

``job_dataset_edges``, ``column_lineage_edges`` and ``column_dataset_edges`` gain:

- ``edge_source``: who reported the edge most recently (``capture``, ``eventLog``, ``declared`` or
  ``producer:<name>``, see ``plumbline.openlineage.confidence``);
- ``completeness``: what that producer stated of its lineage's completeness (``inferred``,
  ``partial``, ``complete``; NULL: not stated, read as ``inferred``);
- ``completeness_reasons``: the reasons it named (a JSON list of ``"<kind>: <detail>"``).

Edges stored before have NULL in all three (``db renormalize`` rebuilds them from the raw events).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28 10:00:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

TABLES = ("job_dataset_edges", "column_lineage_edges", "column_dataset_edges")
_JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    for table in TABLES:
        op.add_column(table, sa.Column("edge_source", sa.String(64), nullable=True))
        op.add_column(table, sa.Column("completeness", sa.String(16), nullable=True))
        op.add_column(table, sa.Column("completeness_reasons", _JSON, nullable=True))


def downgrade() -> None:
    for table in TABLES:  # in place (SQLite 3.35+): no table rebuild
        for column in ("completeness_reasons", "completeness", "edge_source"):
            op.drop_column(table, column)
