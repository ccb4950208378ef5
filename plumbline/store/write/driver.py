"""Statements run on PostgreSQL's driver directly: SQL compiled once, no SQLAlchemy per execution.

A write runs about twenty statements; SQLAlchemy's per-execution work (cache keys, execution
context, result wrapping) cost more Python time than PostgreSQL spent running them. Here each
statement is compiled once, then executed on the psycopg connection underneath the SQLAlchemy
connection (same transaction), and its rows come back as named tuples (``row.id``,
``row._asdict()``, as SQLAlchemy's rows). Errors come out as SQLAlchemy's ``DBAPIError``, as
they would from ``Connection.execute``; a connection the database dropped is invalidated.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple

import psycopg
import sqlalchemy as sa
from psycopg.rows import namedtuple_row
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from plumbline.openlineage.memo import BoundedLRU


class CompiledSql(NamedTuple):
    """A statement's SQL in the driver's parameter style, and the values it binds itself."""

    sql: str
    constants: dict[str, Any]


# id(statement) -> (statement, its SQL): the statement is kept, so its id stays its own
_COMPILED: BoundedLRU[tuple[Any, CompiledSql]] = BoundedLRU(max_entries=512)


def compiled(connection: Connection, statement: sa.ClauseElement) -> CompiledSql:
    """``statement`` compiled for the connection's dialect, once per statement object (build
    statements once, at import or with ``functools.cache``, for this to pay off)."""
    found = _COMPILED.get(id(statement))
    if found is not None and found[0] is statement:
        return found[1]
    sql = compile_sql(connection, statement)
    _COMPILED.put(id(statement), (statement, sql))
    return sql


def compile_sql(connection: Connection, statement: sa.ClauseElement) -> CompiledSql:
    """``statement`` compiled for the connection's dialect (for callers that keep the result)."""
    result = statement.compile(dialect=connection.dialect)
    return CompiledSql(result.string, dict(result.params))


def driver_connection(connection: Connection) -> psycopg.Connection[Any]:
    """The psycopg connection under a SQLAlchemy connection (PostgreSQL only)."""
    driver = connection.connection.driver_connection
    assert isinstance(driver, psycopg.Connection)
    return driver


@contextmanager
def dbapi_errors(connection: Connection, sql: str | None = None) -> Iterator[None]:
    """The driver's errors raised in this block as SQLAlchemy's ``DBAPIError``, the connection
    invalidated when the database dropped it (as ``Connection.execute`` would)."""
    try:
        yield
    except psycopg.Error as exc:
        driver = connection.connection.driver_connection
        dropped = driver is None or driver.closed or driver.broken
        if dropped:
            connection.invalidate(exc)
        raise DBAPIError.instance(
            sql, None, exc, psycopg.Error, connection_invalidated=dropped
        ) from exc


def fetch(connection: Connection, sql: CompiledSql, params: Mapping[str, Any]) -> list[Any]:
    """Run ``sql`` with ``params`` (added to its constants); its rows as named tuples."""
    with (
        dbapi_errors(connection, sql.sql),
        driver_connection(connection).cursor(row_factory=namedtuple_row) as cursor,
    ):
        cursor.execute(sql.sql, {**sql.constants, **params})
        return cursor.fetchall() if cursor.description is not None else []
