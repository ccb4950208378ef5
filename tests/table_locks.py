"""Holding a PostgreSQL table lock from another connection, to stop a writer at a known point."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from sqlalchemy.engine import Engine


@contextmanager
def table_locked(engine: Engine, table: str, mode: str = "EXCLUSIVE") -> Iterator[threading.Event]:
    """``LOCK TABLE table IN mode MODE`` held by another thread's transaction until the event
    yielded is set (or the block ends); the lock is taken when the block starts."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        with engine.connect() as connection, connection.begin():
            connection.execute(sa.text(f"LOCK TABLE {table} IN {mode} MODE"))
            locked.set()
            release.wait(60)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert locked.wait(30), f"could not lock {table}"
    try:
        yield release
    finally:
        release.set()
        holder.join(30)
