"""Dialect-aware building blocks: ``INSERT … ON CONFLICT``, LEAST/GREATEST, chunked IN lookups.

The same statements run on SQLite and PostgreSQL; only these helpers know the difference.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Connection

from plumbline.openlineage.memo import BoundedLRU
from plumbline.store.write import driver

T = TypeVar("T")

# SQLite allows 32766 bound parameters per statement; stay well below on both backends.
MAX_PARAMS = 8000


def is_sqlite_connection(connection: Connection) -> bool:
    return connection.dialect.name == "sqlite"


def insert(connection: Connection | str, table: sa.Table) -> Any:
    """The dialect's INSERT (with ``on_conflict_do_nothing`` / ``on_conflict_do_update``), for a
    connection or a dialect name (statements built once per dialect: ``functools.cache``)."""
    name = connection if isinstance(connection, str) else connection.dialect.name
    if name == "sqlite":
        return sqlite.insert(table)
    return postgresql.insert(table)


def least(connection: Connection, left: Any, right: Any) -> Any:
    """The smaller of two values (SQLite's two-argument ``min``; PostgreSQL's ``LEAST``)."""
    return (
        sa.func.min(left, right) if is_sqlite_connection(connection) else sa.func.least(left, right)
    )


def greatest(connection: Connection, left: Any, right: Any) -> Any:
    """The larger of two values."""
    return (
        sa.func.max(left, right)
        if is_sqlite_connection(connection)
        else sa.func.greatest(left, right)
    )


def hour_of(connection: Connection, timestamp: Any) -> Any:
    """The hour a timestamp falls in, comparable between rows (PostgreSQL's ``date_trunc`` in UTC; on
    SQLite, where timestamps are 'YYYY-MM-DD HH:MM:SS…' text, its first 13 characters)."""
    if is_sqlite_connection(connection):
        return sa.func.substr(timestamp, sa.literal_column("1"), sa.literal_column("13"))
    # constants as SQL text, not parameters: execute_many's statements bind nothing but rows
    return sa.func.date_trunc(sa.literal_column("'hour'"), timestamp, sa.literal_column("'UTC'"))


@contextmanager
def pipelined(connection: Connection) -> Iterator[None]:
    """On PostgreSQL, the statements run in this block are sent without waiting for each one's
    answer (psycopg's pipeline mode: one round trip for all); a no-op on SQLite. Only for
    statements whose results are not read. Errors come out as SQLAlchemy's ``DBAPIError``."""
    if is_sqlite_connection(connection):
        yield
        return
    # errors are raised when the pipeline syncs, outside SQLAlchemy's wrapping
    with driver.dbapi_errors(connection), driver.driver_connection(connection).pipeline():
        yield


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """``items`` in slices of at most ``size``."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def insert_ignore(connection: Connection, table: sa.Table, rows: list[dict[str, Any]]) -> None:
    """Insert rows, skipping those whose unique key already exists (rows should be key-sorted).

    Rows of plain values go straight to the driver (:func:`execute_many`); rows holding JSON
    documents go through SQLAlchemy, which serializes them."""
    if not rows:
        return
    if any(isinstance(value, dict | list) for value in rows[0].values()):
        connection.execute(insert(connection, table).on_conflict_do_nothing(), rows)
    else:
        execute_many(connection, table, rows)


def insert_returning(
    connection: Connection,
    table: sa.Table,
    rows: list[dict[str, Any]],
    conflict: Callable[[Any], Any],
) -> list[Any]:
    """Insert ``rows`` with ``conflict(statement)`` adding the ON CONFLICT and RETURNING
    clauses; the rows returned. On PostgreSQL one statement (:func:`execute_many`); on SQLite
    through SQLAlchemy (whose driver returns no rows from ``executemany``). The statement is
    built once per table and ``conflict`` function, so ``conflict`` must depend on nothing else."""
    if not rows:
        return []
    if is_sqlite_connection(connection):
        return list(connection.execute(_sqlite_insert(table, conflict), rows).all())
    return execute_many(connection, table, rows, conflict) or []


@functools.cache
def _sqlite_insert(table: sa.Table, conflict: Callable[[Any], Any]) -> Any:
    return conflict(sqlite.insert(table))


def select_in(
    connection: Connection,
    statement: sa.Select[Any],
    columns: Sequence[sa.ColumnElement[Any]],
    keys: Iterable[tuple[Any, ...]] | Iterable[Any],
) -> list[Any]:
    """Run ``statement`` filtered to rows whose ``columns`` match one of ``keys``: in chunks on
    SQLite; on PostgreSQL in one statement, compiled once per ``statement`` object (so build
    the statements a write runs often once) and run on the driver."""
    if is_sqlite_connection(connection):
        rows: list[Any] = []
        for condition in sqlite_key_filters(columns, keys):
            rows.extend(connection.execute(statement.where(condition)).all())
        return rows
    params = key_arrays(keys, len(columns))
    if not params:
        return []
    return driver.fetch(connection, _filtered(connection, statement, columns), params)


# (id(statement), ids of columns) -> (statement, columns, SQL of it filtered by key arrays)
_FILTERED: BoundedLRU[tuple[Any, Any, driver.CompiledSql]] = BoundedLRU(max_entries=512)


def _filtered(
    connection: Connection, statement: sa.Select[Any], columns: Sequence[sa.ColumnElement[Any]]
) -> driver.CompiledSql:
    """``statement`` where ``columns`` are in arrays bound as ``k_0``, ``k_1``…, compiled."""
    key = (id(statement), tuple(id(column) for column in columns))
    found = _FILTERED.get(key)
    if found is not None and found[0] is statement:
        return found[2]
    sql = driver.compile_sql(connection, keyed_by_arrays(statement, columns))
    _FILTERED.put(key, (statement, key[1], sql))
    return sql


def keyed_by_arrays(
    statement: sa.Select[Any], columns: Sequence[sa.ColumnElement[Any]]
) -> sa.Select[Any]:
    """PostgreSQL: ``statement``'s rows whose ``columns`` match a row of the arrays bound as
    ``k_0``, ``k_1``… (one array parameter per column, whatever the number of keys: PostgreSQL
    plans an IN list of thousands of parameters slowly). :func:`key_arrays` makes the
    parameters, distinct, so no row comes twice.

    Several columns are joined to ``unnest(k_0, k_1, …)`` as a table, so that every key column
    is an index condition. The form ``(a, b) IN (SELECT unnest(…), unnest(…))`` let PostgreSQL
    match a namespace's name first and then read every dataset of that namespace for each key
    (session 5 saw 8.6 ms per lookup on 240 datasets; it grows with the namespace)."""
    arrays = [
        sa.cast(
            sa.bindparam(f"k_{i}", type_=ARRAY(_plain_type(column))), ARRAY(_plain_type(column))
        )
        for i, column in enumerate(columns)
    ]
    if len(columns) == 1:
        return statement.where(columns[0].in_(sa.select(sa.func.unnest(arrays[0]))))
    keys = (
        sa.func.unnest(*arrays)
        .table_valued(*(f"k_{i}" for i in range(len(columns))))
        .render_derived(name="keys")
    )
    return statement.join(
        keys, sa.and_(*(column == keys.c[f"k_{i}"] for i, column in enumerate(columns)))
    )


def key_arrays(keys: Iterable[tuple[Any, ...]] | Iterable[Any], width: int) -> dict[str, list[Any]]:
    """The parameters of :func:`keyed_by_arrays` for ``keys`` (tuples of ``width`` values, or
    plain values when ``width`` is 1), sorted and distinct; empty for no keys."""
    key_list = sorted(set(keys))
    if not key_list:
        return {}
    if width == 1:
        return {"k_0": key_list}
    return {f"k_{i}": list(values) for i, values in enumerate(zip(*key_list, strict=True))}


def sqlite_key_filters(
    columns: Sequence[sa.ColumnElement[Any]],
    keys: Iterable[tuple[Any, ...]] | Iterable[Any],
    share: int = 1,
) -> list[sa.ColumnElement[bool]]:
    """SQLite: conditions "``columns`` match one of ``keys``", one per chunk of keys, each
    statement using at most ``1/share`` of the parameter limit. The same keys give chunks in
    the same order."""
    key_list = sorted(set(keys))
    width = len(columns)
    target = columns[0] if width == 1 else sa.tuple_(*columns)
    return [target.in_(chunk) for chunk in chunks(key_list, max(1, MAX_PARAMS // width // share))]


def _plain_type(column: sa.ColumnElement[Any]) -> Any:
    """The column's SQL type for an array parameter (labels unwrapped)."""
    return getattr(column, "type", sa.String())


def _sqlite_value(value: Any) -> Any:
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")  # SQLAlchemy's own SQLite format
    if isinstance(value, bool):
        return int(value)
    return value


def _do_nothing(statement: Any) -> Any:
    return statement.on_conflict_do_nothing()


# (dialect, table, columns, conflict clause's code) -> (SQL, parameter order on SQLite)
_COMPILED: dict[tuple[str, str, tuple[str, ...], Any], tuple[str, tuple[str, ...]]] = {}


def execute_many(
    connection: Connection,
    table: sa.Table,
    rows: list[dict[str, Any]],
    conflict: Callable[[Any], Any] = _do_nothing,
) -> list[Any] | None:
    """Insert ``rows`` (plain values: str, int, bool, None, aware datetimes, JSON documents)
    into ``table``, with ``conflict(statement)`` adding the ON CONFLICT clause (and, on
    PostgreSQL only, a RETURNING clause, whose rows are returned).

    For the big per-request writes (fields and edges), where SQLAlchemy's per-row parameter
    handling costs several times what the database does: on SQLite the rows go straight to the
    driver's ``executemany``; on PostgreSQL they travel as one JSON parameter in a single
    ``INSERT … SELECT … FROM json_to_recordset(…)`` statement (one round trip). Rows must not
    repeat a conflict key when the clause updates. The SQL is built once per dialect, table,
    columns and ``conflict`` function, so ``conflict`` must depend on nothing else (no values).
    """
    if not rows:
        return None
    columns = tuple(rows[0])
    key = (connection.dialect.name, table.name, columns, getattr(conflict, "__code__", conflict))
    compiled = _COMPILED.get(key)
    if compiled is None:
        compiled = _COMPILED[key] = _compile(connection, table, columns, conflict)
    sql, names = compiled
    return _run_compiled(connection, sql, names, rows)


def update_many(connection: Connection, table: sa.Table, rows: list[dict[str, Any]]) -> None:
    """``UPDATE table SET … WHERE id = row["b_id"]`` for every row (the same columns in each;
    values as for :func:`execute_many`, JSON documents too): one statement on PostgreSQL, the
    driver's ``executemany`` on SQLite."""
    if not rows:
        return
    columns = tuple(rows[0])
    key = (connection.dialect.name, table.name, columns, "update")
    compiled = _COMPILED.get(key)
    if compiled is None:
        compiled = _COMPILED[key] = _compile_update(connection, table, columns)
    sql, names = compiled
    if is_sqlite_connection(connection):
        _run_compiled(connection, sql, names, rows)
        return
    # the ids apart too: the rows to update found by their primary key, whatever the table's size
    params = {"rows": orjson.dumps(rows).decode(), "ids": [row["b_id"] for row in rows]}
    driver.fetch(connection, driver.CompiledSql(sql, {}), params)


def _run_compiled(
    connection: Connection, sql: str, names: tuple[str, ...], rows: list[dict[str, Any]]
) -> list[Any] | None:
    if is_sqlite_connection(connection):
        converted: dict[Any, Any] = {}  # rows share few distinct times: convert each once

        def value(item: Any) -> Any:
            if isinstance(item, dict | list):
                return orjson.dumps(item).decode()  # JSON text, as SQLAlchemy's JSON type keeps it
            if not isinstance(item, datetime | bool):
                return item
            if item not in converted:
                converted[item] = _sqlite_value(item)
            return converted[item]

        connection.exec_driver_sql(sql, [tuple(value(row[name]) for name in names) for row in rows])
        return None
    # the rows travel as one JSON text parameter, expanded by json_to_recordset: orjson (which
    # writes aware datetimes as ISO 8601 itself) makes it far cheaper than per-element adaptation
    return driver.fetch(
        connection, driver.CompiledSql(sql, {}), {"rows": orjson.dumps(rows).decode()}
    )


def _compile_update(
    connection: Connection, table: sa.Table, columns: tuple[str, ...]
) -> tuple[str, tuple[str, ...]]:
    values = [name for name in columns if name != "b_id"]
    if is_sqlite_connection(connection):
        statement = (
            table.update()
            .where(table.c.id == sa.bindparam("b_id"))
            .values({name: sa.bindparam(name) for name in values})
        )
        compiled = statement.compile(dialect=connection.dialect)
        assert compiled.positiontup is not None
        return compiled.string, tuple(compiled.positiontup)
    dialect = connection.dialect
    record = ", ".join(
        [f'"b_id" {table.c.id.type.compile(dialect=dialect)}']
        + [f'"{name}" {table.c[name].type.compile(dialect=dialect)}' for name in values]
    )
    assignments = ", ".join(f'"{name}" = r."{name}"' for name in values)
    sql = (
        f"UPDATE {table.name} SET {assignments} "  # noqa: S608 (names from the schema, not input)
        f"FROM json_to_recordset(CAST(%(rows)s AS json)) AS r({record}) "
        f"WHERE {table.name}.id = r.b_id "
        # json_to_recordset is planned as 100 rows whatever it holds: joined by id alone, an
        # update of a few rows scanned the whole table (runs: every run, each write)
        f"AND {table.name}.id = ANY(CAST(%(ids)s AS BIGINT[]))"
    )
    return sql, ("rows",)


def _compile(
    connection: Connection,
    table: sa.Table,
    columns: tuple[str, ...],
    conflict: Callable[[Any], Any],
) -> tuple[str, tuple[str, ...]]:
    if is_sqlite_connection(connection):
        base = sqlite.insert(table).values({name: sa.bindparam(name) for name in columns})
        compiled = conflict(base).compile(dialect=connection.dialect)
        assert compiled.positiontup is not None
        return compiled.string, tuple(compiled.positiontup)
    record = ", ".join(
        f'"{name}" {table.c[name].type.compile(dialect=connection.dialect)}' for name in columns
    )
    source = sa.text(f"json_to_recordset(CAST(:rows AS json)) AS r({record})")
    from_json = postgresql.insert(table).from_select(
        columns, sa.select(*[sa.column(name) for name in columns]).select_from(source)
    )
    compiled = conflict(from_json).compile(dialect=connection.dialect)
    if set(compiled.binds) != {"rows"}:  # the statement can carry nothing but the rows
        raise ValueError(f"the ON CONFLICT clause binds values: {sorted(compiled.binds)}")
    return compiled.string, ("rows",)
