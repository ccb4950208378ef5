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
from sqlalchemy.engine import Dialect
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
        ids = [int(v) for v in value]
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
