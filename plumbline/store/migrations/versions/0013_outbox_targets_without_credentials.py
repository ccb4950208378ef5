"""outbox rows name their target without credentials

Forward-target URLs may hold a password (``https://user:secret@host``) or a token in the query
(``?api_key=…``); every outbox row kept the full URL. Rows now name the target by its endpoint
with those removed (``plumbline.openlineage.urls.target_key``); the server's settings hold the
full URL, once. This rewrites the rows written before.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25 17:30:00
"""

import sqlalchemy as sa
from alembic import op

from plumbline.openlineage.urls import redact_url

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

_outbox = sa.table("outbox", sa.column("target", sa.String))


def upgrade() -> None:
    connection = op.get_bind()
    targets = connection.execute(sa.select(_outbox.c.target).distinct()).scalars().all()
    for target in targets:
        if redact_url(target) != target:
            connection.execute(
                sa.update(_outbox)
                .where(_outbox.c.target == target)
                .values(target=redact_url(target))
            )


def downgrade() -> None:
    pass  # the credentials are gone from the rows; the settings still have them
