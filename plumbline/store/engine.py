"""Database engines for the store: URL resolution, SQLite pragmas, PostgreSQL pooling."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import platformdirs
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, DisconnectionError, NoSuchModuleError

from plumbline.store.errors import UnsupportedDatabaseURLError

_URL_FORMS = "sqlite:///PATH or postgresql+psycopg://USER@HOST/DB"


def default_db_url() -> str:
    """An SQLite file in the user's data directory (the command line's ``--db`` option reads
    ``PLUMBLINE_DB`` first)."""
    data_dir = Path(platformdirs.user_data_dir("plumbline"))
    data_dir.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{data_dir / 'plumbline.db'}"


def check_store_url(value: str) -> None:
    """Raise UnsupportedDatabaseURLError unless ``value`` is an SQLite or PostgreSQL URL whose
    driver is installed; nothing connects."""
    try:
        url = sa.make_url(value)
    except ArgumentError:
        raise UnsupportedDatabaseURLError(
            f"{value!r} is not a database URL ({_URL_FORMS})"
        ) from None
    if url.get_backend_name() not in ("sqlite", "postgresql"):
        raise UnsupportedDatabaseURLError(
            f"{url.get_backend_name()!r}: plumbline stores lineage in SQLite or PostgreSQL "
            f"({_URL_FORMS})"
        )
    if url.drivername != "postgresql":  # a bare postgresql:// means psycopg (shipped)
        try:
            url.get_dialect().import_dbapi()
        except (NoSuchModuleError, ImportError) as exc:
            raise UnsupportedDatabaseURLError(
                f"the driver of {url.drivername!r} is not installed ({exc}); "
                "use postgresql+psycopg:// or sqlite:///"
            ) from None


def is_sqlite(url_or_engine: str | Engine) -> bool:
    """True when the URL or engine points at SQLite."""
    url = url_or_engine.url if isinstance(url_or_engine, Engine) else sa.make_url(url_or_engine)
    return url.get_backend_name() == "sqlite"


def single_writer(url: str) -> bool:
    """True when the store at ``url`` takes writes from one process only (an SQLite file: one
    writer at a time), so a server on it runs a single worker."""
    return is_sqlite(url)


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite URL (None: not SQLite, or an in-memory database)."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(str(parsed.database)).expanduser().absolute()


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


def create_store_engine(url: str) -> Engine:
    """An engine for the store at ``url``.

    SQLite runs in WAL mode with foreign keys on; the parent directory of a file database is created.
    """
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if (path := sqlite_file(url)) is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(
            parsed, connect_args={"check_same_thread": False, "timeout": 30}, pool_pre_ping=True
        )
        sa.event.listen(engine, "connect", _set_sqlite_pragmas)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        # a bare postgresql:// URL means psycopg 3, the driver we ship with
        parsed = parsed.set(drivername="postgresql+psycopg")
    # JIT compilation off (unless the URL sets its own ``options``): the store's statements are
    # index lookups whose cost estimates grow with the length of their id lists, and past
    # ``jit_above_cost`` PostgreSQL spent more compiling them (~0.4 s for a rerun plan's
    # statement over 10,000 runs) than running them
    # plan_cache_mode=force_custom_plan: every execution of a prepared statement (psycopg
    # prepares one after a few executions) is planned for its own keys and the table's size
    # now; a generic plan made while a table was small (a hash join over a sequential scan) was
    # kept as the table grew, and the write path's lookups read whole tables (issue 30)
    options = "-c jit=off -c plan_cache_mode=force_custom_plan"
    connect_args = {} if "options" in parsed.query else {"options": options}
    engine = sa.create_engine(parsed, pool_size=10, max_overflow=20, connect_args=connect_args)
    _ping_when_idle(engine)
    return engine


PING_AFTER_IDLE_S = 5.0


def _ping_when_idle(engine: Engine) -> None:
    """Check a pooled connection is alive before handing it out, but only when it sat idle
    for ``PING_AFTER_IDLE_S`` or more (``pool_pre_ping`` pings every checkout: a round trip per
    request, which a busy server pays at its scheduling delay). A connection that fails the
    ping is replaced; one dropped while recently used fails its request, and the pool then
    replaces every connection made before the failure (SQLAlchemy's disconnect handling)."""

    def fresh(_dbapi: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    def checkout(dbapi: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is not None and time.monotonic() - since < PING_AFTER_IDLE_S:
            return
        try:
            engine.dialect.do_ping(dbapi)
        except Exception as exc:  # whatever the driver raises for a dead connection
            raise DisconnectionError(f"connection failed its ping: {exc}") from exc

    sa.event.listen(engine, "connect", fresh)
    sa.event.listen(engine, "checkin", fresh)
    sa.event.listen(engine, "checkout", checkout)
