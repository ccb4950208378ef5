"""The lineage SQL tables (issue 18) read back from their views, ``plumbline_<table>``.

The views (migration 0012) are the one model; this module reads them typed, the same on both
backends (aware UTC timestamps, dates, JSON parsed), in batches (for tests, checks and small
tables: the export reads the base tables, :mod:`plumbline.store.read.export_reads`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.lineage_tables import HISTORY, TABLES, Kind, view_name
from plumbline.store.read.common import utc
from plumbline.store.read.errors import InvalidArgumentError
from plumbline.store.read.gcpause import gc_paused

_TYPES: dict[Kind, Any] = {
    "string": sa.String(),
    "int": sa.BigInteger(),
    "timestamp": sa.DateTime(timezone=True),
    "date": sa.Date(),
    "json": sa.JSON(),
}


@cache
def _view(table: str) -> sa.TableClause:
    if table not in TABLES:
        raise InvalidArgumentError(f"no lineage table {table!r}: one of {', '.join(TABLES)}")
    return sa.table(view_name(table), *(sa.column(n, _TYPES[k]) for n, k in TABLES[table]))


def _fixer(kind: Kind) -> Any:
    if kind == "timestamp":
        return utc
    if kind == "date":
        return lambda v: date.fromisoformat(v) if isinstance(v, str) else v
    return None


def read_table(
    conn: Connection,
    table: str,
    *,
    event_dates: Sequence[date] | None = None,
    since: date | None = None,
    batch_size: int = 20_000,
) -> Iterator[list[tuple[Any, ...]]]:
    """The rows of a lineage table (columns as :data:`plumbline.lineage_tables.TABLES` lists
    them), ``batch_size`` at a time, streamed from the database. ``event_dates``: only the rows
    of these days; ``since``: only the rows of that day and later (history tables)."""
    view = _view(table)
    statement = sa.select(*view.columns)
    if (event_dates is not None or since is not None) and table not in HISTORY:
        raise InvalidArgumentError(f"{table} has no event_date: it holds current state")
    if event_dates is not None:
        statement = statement.where(view.c.event_date.in_(sorted(event_dates)))
    if since is not None:
        statement = statement.where(view.c.event_date >= since)
    fixers = [(i, f) for i, (_, k) in enumerate(TABLES[table]) if (f := _fixer(k)) is not None]
    result = conn.execution_options(stream_results=True, yield_per=batch_size).execute(statement)
    while True:
        with gc_paused():  # the rows are plain tuples: the collector's scans would find nothing
            part = result.fetchmany(batch_size)
            rows = [_fixed(row, fixers) for row in part] if fixers else [tuple(r) for r in part]
        if not rows:
            return
        yield rows


def _fixed(row: tuple[Any, ...], fixers: list[tuple[int, Any]]) -> tuple[Any, ...]:
    values = list(row)
    for i, fix in fixers:
        if values[i] is not None:
            values[i] = fix(values[i])
    return tuple(values)


def table_rows(
    conn: Connection, table: str, columns: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Every row of a lineage table as a dict (for small tables and tests); ``columns``: only
    these (a store at an older revision, whose view has fewer)."""
    if columns is None:
        names = [n for n, _ in TABLES[table]] if table in TABLES else []
        return [
            dict(zip(names, row, strict=True)) for part in read_table(conn, table) for row in part
        ]
    view, kinds = _view(table), dict(TABLES[table])
    fixers = [(i, f) for i, n in enumerate(columns) if (f := _fixer(kinds[n])) is not None]
    rows = conn.execute(sa.select(*(view.c[n] for n in columns)))
    return [dict(zip(columns, _fixed(tuple(row), fixers), strict=True)) for row in rows]


def view_columns(conn: Connection, table: str) -> list[str]:
    """The columns the store's view of ``table`` has, in order (as the database reports them)."""
    _view(table)
    nothing: sa.Select[Any] = sa.select(sa.literal_column("*")).select_from(
        sa.table(view_name(table))
    )
    result = conn.execute(nothing.where(sa.false()))
    return list(result.keys())
