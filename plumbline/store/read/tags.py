"""Tags (``GET /tags``); creating and attaching them is :mod:`plumbline.store.write.tagging`."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import count
from plumbline.store.read.records import TagPage


def list_tags(conn: Connection, limit: int, offset: int) -> TagPage:
    """``{"tags": [{"name", "description"}], "totalCount"}`` by name."""
    t = s.tags
    base = sa.select(t.c.name, t.c.description)
    rows = conn.execute(base.order_by(t.c.name).limit(limit).offset(offset)).all()
    return {
        "tags": [{"name": r.name, "description": r.description} for r in rows],
        "totalCount": count(conn, base),
    }


def tag_exists(conn: Connection, name: str) -> bool:
    """Whether tag ``name`` is defined."""
    t = s.tags
    return conn.execute(sa.select(t.c.id).where(t.c.name == name)).first() is not None
