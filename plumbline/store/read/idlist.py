"""``column IN (ids)`` with the whole id list as ONE bound parameter.

SQLAlchemy's expanding ``IN`` renders one parameter per id on every execution (~1 ms per 500 ids,
plus the statement text changes with the list length) and SQLite caps the number of parameters, so
lists had to be cut into chunks. Here the list travels as one value: a JSON array read with
``json_each`` on SQLite, an ``BIGINT[]`` array with ``= ANY`` on PostgreSQL. The statement text is
fixed, so it is compiled once, whatever the length of the list.
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement


class IdList(sa.types.TypeDecorator[Any]):
    """A list of integer ids as one parameter: ``BIGINT[]`` on PostgreSQL, JSON text elsewhere."""

    impl = sa.String
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> sa.types.TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(ARRAY(sa.BigInteger()))
        return dialect.type_descriptor(sa.String())

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        ids = sorted({int(v) for v in value})  # once each: ByIds joins the list as rows
        return ids if dialect.name == "postgresql" else json.dumps(ids)


class in_ids(FunctionElement[Any]):  # noqa: N801 - reads as SQL
    """``in_ids(column, "ids")``: the condition ``column`` is one of the ids bound as ``ids``."""

    # not Boolean: SQLite would compare a Boolean function to 1
    type = sa.types.NullType()
    name = "in_ids"
    inherit_cache = True

    def __init__(self, column: sa.ColumnElement[Any], name: str = "ids") -> None:
        super().__init__(column, sa.bindparam(name, type_=IdList()))


@compiles(in_ids)
def _in_ids_sqlite(element: in_ids, compiler: Any, **kw: Any) -> str:
    column, ids = (compiler.process(c, **kw) for c in element.clauses)
    return f"{column} IN (SELECT value FROM json_each({ids}))"  # noqa: S608 - compiled SQL


@compiles(in_ids, "postgresql")
def _in_ids_postgresql(element: in_ids, compiler: Any, **kw: Any) -> str:
    column, ids = (compiler.process(c, **kw) for c in element.clauses)
    return f"{column} = ANY(CAST({ids} AS BIGINT[]))"


class ByIds:
    """A query for the rows of a bound id list (``ids``), in the form each database plans best
    when the list is long (thousands of ids).

    SQLite: ``column IN (the list)``, one index lookup per id. PostgreSQL: given ``= ANY`` of
    thousands of ids, its planner prefers scanning whole tables with hash joins (seconds on a
    store of millions of runs); here each id drives a ``LATERAL`` subquery (``OFFSET 0`` keeps
    it from being flattened back into a join), so each is one index lookup, whatever the length.
    Call with the connection to get the statement for its database. The rows come unordered.
    """

    def __init__(self, query: sa.Select[Any], column: sa.ColumnElement[Any], name: str = "ids"):
        self.default = query.where(in_ids(column, name))
        wanted = (
            sa.func.unnest(sa.bindparam(name, type_=IdList()))
            .table_valued("id")
            .render_derived(name="wanted")
        )
        each = query.where(column == wanted.c.id).offset(sa.literal_column("0")).lateral("each")
        self.postgresql = sa.select(*each.c).select_from(wanted).join(each, sa.true())

    def __call__(self, conn: Connection) -> sa.Select[Any]:
        return self.postgresql if conn.dialect.name == "postgresql" else self.default
