"""Whether a store is at the newest schema, known without alembic: the commands that need the
newest schema (``export``, ``db prune``, …) ask this first. Alembic's script directory imports
every migration module (and what they import) to find its head: about a third of a second at
each start; here the head is read from the migration files' ``revision`` / ``down_revision``
lines and the store's revision from ``alembic_version``. Anything but a plain match falls back
to :mod:`plumbline.store.migrate`, which explains the mismatch.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import Engine

VERSIONS = Path(__file__).with_name("migrations") / "versions"
_LINE = re.compile(
    r"^(down_revision|revision)\s*(?::[^=]+)?=\s*(?:\"([^\"]+)\"|'([^']+)'|None)$", re.M
)


@cache
def newest_revision() -> str | None:
    """The head of the migration files (the revision no other revises), or None when they do
    not name exactly one (then ask alembic)."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for path in VERSIONS.glob("*.py"):
        found = {m[1]: m[2] or m[3] for m in _LINE.finditer(path.read_text(encoding="utf-8"))}
        if not found.get("revision"):
            return None
        revisions.add(found["revision"])
        if found.get("down_revision"):
            revised.add(found["down_revision"])
    heads = revisions - revised
    return heads.pop() if len(heads) == 1 else None


def at_newest_schema(engine: Engine) -> bool:
    """Whether the store's ``alembic_version`` names the newest revision (False also when it
    cannot tell: no such table, or migration files it cannot read)."""
    newest = newest_revision()
    if newest is None:
        return False
    with engine.connect() as connection:
        try:
            stored = connection.execute(sa.text("SELECT version_num FROM alembic_version")).all()
        except sa.exc.DBAPIError:
            return False
    return [tuple(row) for row in stored] == [(newest,)]
