"""dataset_fields.in_schema: whether a schema facet announced the field (issue 15 item 14)

A field named only by a columnLineage facet is kept as the end of its edges, but is not one of the
dataset's fields until a schema names it. Existing rows: true when any stored schema of the dataset
names the field.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27 05:30:00
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

_BATCH = 1000


def _names(fields: Any, prefix: str = "") -> list[str]:
    """The flattened names of a stored schema's fields (``parent.child`` for nested ones)."""
    names: list[str] = []
    for item in fields if isinstance(fields, list) else []:
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            name = f"{prefix}{item['name']}"
            names.append(name)
            names.extend(_names(item.get("fields"), f"{name}."))
    return names


def upgrade() -> None:
    op.add_column(
        "dataset_fields",
        sa.Column("in_schema", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    connection = op.get_bind()
    versions = sa.table(
        "schema_versions", sa.column("dataset_id", sa.BigInteger), sa.column("fields", sa.JSON)
    )
    fields = sa.table(
        "dataset_fields",
        sa.column("dataset_id", sa.BigInteger),
        sa.column("name", sa.String),
        sa.column("in_schema", sa.Boolean),
    )
    mark = (
        sa.update(fields)
        .where(
            fields.c.dataset_id == sa.bindparam("d"),
            fields.c.name == sa.bindparam("n"),
            fields.c.in_schema == sa.false(),
        )
        .values(in_schema=True)
    )
    announced: set[tuple[int, str]] = set()
    for dataset_id, stored in connection.execute(
        sa.select(versions.c.dataset_id, versions.c.fields)
    ):
        announced.update((int(dataset_id), name) for name in _names(stored))
    pending = sorted(announced)
    for start in range(0, len(pending), _BATCH):
        chunk = pending[start : start + _BATCH]
        connection.execute(mark, [{"d": d, "n": n} for d, n in chunk])


def downgrade() -> None:
    op.drop_column("dataset_fields", "in_schema")  # in place (SQLite 3.35+): no table rebuild
