"""Database engines for the store: URL resolution, SQLite pragmas, PostgreSQL pooling."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs
import sqlalchemy as sa
from sqlalchemy.engine import Engine

ENV_DB_URL = "PLUMBLINE_DB"


def default_db_url() -> str:
    """`PLUMBLINE_DB`, else an SQLite file in the user's data directory."""
    env = os.environ.get(ENV_DB_URL)
    if env:
        return env
    data_dir = Path(platformdirs.user_data_dir("plumbline"))
    data_dir.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{data_dir / 'plumbline.db'}"


def is_sqlite(url_or_engine: str | Engine) -> bool:
    """True when the URL or engine points at SQLite."""
    url = url_or_engine.url if isinstance(url_or_engine, Engine) else sa.make_url(url_or_engine)
    return url.get_backend_name() == "sqlite"


def ping(engine: Engine) -> None:
    """Run a trivial query; raises whatever the database raises when it cannot answer."""
    with engine.connect() as connection:
        connection.execute(sa.text("SELECT 1"))


def _set_sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def create_store_engine(url: str | None = None) -> Engine:
    """An engine for the store at ``url`` (default: :func:`default_db_url`).

    SQLite runs in WAL mode with foreign keys on; the parent directory of a file database is created.
    """
    url = url or default_db_url()
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(
            parsed, connect_args={"check_same_thread": False, "timeout": 30}, pool_pre_ping=True
        )
        sa.event.listen(engine, "connect", _set_sqlite_pragmas)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        # a bare postgresql:// URL means psycopg 3, the driver we ship with
        parsed = parsed.set(drivername="postgresql+psycopg")
    return sa.create_engine(parsed, pool_size=10, max_overflow=20, pool_pre_ping=True)
