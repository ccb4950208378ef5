"""The PostgreSQL engine's session settings and pooled connections: JIT off, a ping only after
an idle spell (a dead connection is replaced, not handed out), and read connections without a
transaction."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from psycopg.pq import TransactionStatus
from sqlalchemy.engine import Engine
from starlette.requests import Request

from plumbline.server.api.routing import read_connection
from plumbline.store import Store
from plumbline.store import engine as store_engine

pytestmark = pytest.mark.postgres


def test_sessions_run_without_jit(pg_engine: Engine) -> None:
    with pg_engine.connect() as conn:
        assert conn.execute(sa.text("SHOW jit")).scalar() == "off"


def test_a_url_with_its_own_options_keeps_them(pg_engine: Engine) -> None:
    url = pg_engine.url.update_query_dict({"options": "-c jit=on"})
    engine = store_engine.create_store_engine(url.render_as_string(False))
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.text("SHOW jit")).scalar() == "on"
    finally:
        engine.dispose()


def _backend_pid(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one())


def _terminate(engine: Engine, pid: int) -> None:
    admin = sa.create_engine(engine.url, poolclass=sa.pool.NullPool)
    with admin.connect() as conn:
        assert conn.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar()
    admin.dispose()


def test_an_idle_connection_is_pinged_and_replaced_when_dead(
    pg_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _backend_pid(pg_engine)
    _terminate(pg_engine, first)
    monkeypatch.setattr(store_engine, "PING_AFTER_IDLE_S", 0.0)  # every checkout is "idle"
    assert _backend_pid(pg_engine) != first  # the ping failed: a new connection, no error


def test_a_recently_used_connection_is_not_pinged(
    pg_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    _backend_pid(pg_engine)  # one pooled connection, just checked in
    statements: list[str] = []

    def record(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        statements.append(statement)

    sa.event.listen(pg_engine, "before_cursor_execute", record)
    pinged: list[bool] = []
    ping = pg_engine.dialect.do_ping
    monkeypatch.setattr(
        pg_engine.dialect, "do_ping", lambda dbapi: pinged.append(True) or ping(dbapi)
    )  # counts the real pings
    try:
        with pg_engine.connect() as conn:
            conn.execute(sa.text("SELECT 1"))
    finally:
        sa.event.remove(pg_engine, "before_cursor_execute", record)
    assert pinged == []
    assert statements == ["SELECT 1"]


def test_read_connections_open_no_transaction(pg_engine: Engine) -> None:
    app = FastAPI()
    app.state.store = Store(pg_engine)
    request = Request({"type": "http", "app": app, "headers": [], "method": "GET", "path": "/"})
    reads = read_connection(request)
    conn = next(reads)
    conn.execute(sa.text("SELECT 1")).all()
    raw = conn.connection.driver_connection
    assert raw is not None
    assert raw.info.transaction_status == TransactionStatus.IDLE  # no BEGIN was sent
    reads.close()
