"""The tables a JDBC read's SQL reads (the `query` option, or a `dbtable` that is not a name).

Spark sends such a read to the database as `SELECT … FROM (<query>) SPARK_GEN_SUBQ_n`; the
dataset is never that text but the tables it reads, found by `openlineage-sql` (the parser the
OpenLineage Spark agent uses), with the columns each output column comes from. Nothing here
talks to the JVM.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

# dialect names openlineage-sql knows, by JDBC subprotocol
_DIALECTS = {
    "postgresql": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "sqlserver": "mssql",
    "sqlite": "sqlite",
    "h2": "generic",
    "oracle": "generic",
    "db2": "generic",
    "snowflake": "snowflake",
    "redshift": "redshift",
    "databricks": "databricks",
    "hive2": "hive",
    "bigquery": "bigquery",
}
_SUBPROTOCOL = re.compile(r"^jdbc:([a-z0-9]+):", re.I)
_SELECTS = re.compile(r"\bselect\b", re.I)
_STAR = re.compile(r"^\s*select\s+\*\s+from\s+[\w.\"`\[\]]+(\s+(as\s+)?\w+)?\s*;?\s*$", re.I)


@dataclass
class QueryTables:
    """What a JDBC query reads: qualified table names, and per output column its sources."""

    tables: list[str]
    # output column -> [(qualified table, column)]
    columns: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    # output columns that are a bare column of one table (`t.c` or `c AS c2`), not computed
    identity: set[str] = field(default_factory=set)
    star: bool = False  # `SELECT * FROM one_table`: every column is that table's own

    def sources(self, column: str) -> tuple[list[tuple[str, str]], bool]:
        """(table, column) pairs an output column reads, and whether it is a plain copy."""
        if self.star:
            return [(self.tables[0], column)], True
        for name, sources in self.columns.items():
            if name.lower() == column.lower():
                return sources, name in self.identity
        return [], False


def is_table_name(dbtable: str) -> bool:
    """True when a `dbtable` option is a (qualified) table name, not SQL text."""
    return re.search(r"\S\s+\S", dbtable.strip()) is None and not dbtable.startswith("(")


def query_of(dbtable: str | None, query: str | None) -> str | None:
    """The SQL a JDBC read runs, from its `query` option or a `dbtable` that is SQL."""
    if query:
        return query
    if not dbtable or is_table_name(dbtable):
        return None
    text = dbtable.strip()
    if text.startswith("("):  # `(SELECT …) alias`
        inner = text[1 : text.rfind(")")]
        return inner if inner.strip() else None
    return f"SELECT * FROM {text}"  # noqa: S608 - parsed, never run; `a JOIN b ON …`


def dialect(url: str) -> str:
    """openlineage-sql's dialect for a JDBC URL (`generic` when unknown)."""
    match = _SUBPROTOCOL.match(url)
    return _DIALECTS.get(match.group(1).lower(), "generic") if match else "generic"


def parse(url: str, sql: str) -> QueryTables | None:
    """The tables `sql` reads, or None when it cannot be parsed (never the SQL text itself)."""
    try:
        import openlineage_sql
    except ImportError:
        log.warning(
            "plumbline: a JDBC read with a query has no inputs: install openlineage-sql to parse it"
        )
        return None
    meta = openlineage_sql.parse([sql], dialect=dialect(url))
    if meta is None or meta.errors or not meta.in_tables:
        log.info("plumbline could not find the tables of a JDBC query: %s", meta and meta.errors)
        return None
    tables = list(dict.fromkeys(t.qualified_name for t in meta.in_tables))
    result = QueryTables(tables)
    for entry in meta.column_lineage:
        sources = [(c.origin.qualified_name, c.name) for c in entry.lineage if c.origin is not None]
        if sources:
            result.columns[entry.descendant.name] = sources
    result.identity = _bare_columns(sql, result)
    result.star = len(tables) == 1 and not result.columns and _STAR.match(sql) is not None
    return result


def _bare_columns(sql: str, parsed: QueryTables) -> set[str]:
    """Output columns that are a plain column reference in a query with one SELECT.

    openlineage-sql says which columns an output comes from, not how: an output is IDENTITY only
    when its select item is `[qualifier.]column [[AS] name]`; anything else (or a query with
    subqueries, where an outer bare column may hide an inner computation) is TRANSFORMATION.
    """
    if len(_SELECTS.findall(sql)) != 1:
        return set()
    match = re.search(r"\bselect\s+(?:distinct\s+)?(.*?)\bfrom\b", sql, re.I | re.S)
    if match is None:
        return set()
    items = _split_top_level(match.group(1))
    bare = re.compile(
        r'^(?:[\w"`\[\]]+\.)*(?P<col>[\w"`\[\]]+)(?:\s+(?:as\s+)?(?P<alias>[\w"`\[\]]+))?$', re.I
    )
    found = set()
    for item in items:
        hit = bare.match(item.strip())
        if hit is None:
            continue
        column = _unquote(hit.group("col"))
        name = _unquote(hit.group("alias") or hit.group("col"))
        sources = parsed.columns.get(name)
        if sources is not None and len(sources) == 1 and sources[0][1] == column:
            found.add(name)
    return found


def _split_top_level(text: str) -> list[str]:
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    items.append("".join(current))
    return items


def _unquote(name: str) -> str:
    return name.strip('"`[]')
