"""Targeted py4j reads of the few plan details that the JSON form leaves out.

The analyzed plan's JSON gives structure and expression ids; relation paths, table identifiers,
save modes and metric values come out null there, so they are read here with as few round trips
as possible (one `toString()` gives all metrics of a node, for example). Every function takes
py4j `JavaObject`s and returns plain Python values.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from plumbline.spark import delta
from plumbline.spark.datasets import redact_text
from plumbline.spark.plan import Node
from plumbline.spark.vocabulary import (
    DELTA_FILE_INDEX_PREFIXES,
    DML_PLAN_FIELDS,
    FORMAT_DML,
    HIVE_TABLE_RELATION,
    JDBC_RELATION,
    KAFKA_RELATION,
    LOGICAL_RELATION,
    PROJECT_CHAIN,
    UNNAMED_FILE_FORMAT,
)

log = logging.getLogger(__name__)

_METRIC = re.compile(r"(\w+) -> SQLMetric\(id: \d+, name: [^,]*?, value: (-?\d+)\)")
_EXPR_ID = re.compile(r"#(\d+)")


def simple_name(obj: Any) -> str:
    """The JVM object's simple class name."""
    return str(obj.getClass().getSimpleName())


def metrics(node: Any) -> dict[str, int]:
    """All SQL metrics of an executed plan node, in one round trip."""
    return {k: int(v) for k, v in _METRIC.findall(str(node.metrics().toString()))}


def schema_fields(plan: Any) -> list[dict[str, Any]]:
    """The Spark schema of a plan (or CatalogTable) as a list of StructField dicts."""
    return list(json.loads(str(plan.schema().json())).get("fields", []))


def scala_seq(seq: Any) -> list[Any]:
    """A Scala Seq as a Python list (one round trip per element)."""
    return [seq.apply(i) for i in range(int(seq.size()))]


def string_seq(seq: Any) -> list[str]:
    """A Scala Seq of strings as a Python list, in one round trip."""
    if int(seq.size()) == 0:
        return []
    return str(seq.mkString("\u001f")).split("\u001f")


def option(opt: Any) -> Any | None:
    """The content of a Scala Option, or None."""
    return opt.get() if opt is not None and opt.isDefined() else None


# -- locating JVM nodes that match parsed nodes -------------------------------------------------

# ("c", i): i-th child, ("s", k): k-th subquery plan, ("q", 0): query, (field, 0): a plan field
Path = list[tuple[str, int]]


def _subquery_plans(node: Node) -> list[Node]:
    plans: list[Node] = []
    for value in node.fields.values():
        trees = value if isinstance(value, list) else [value]
        for tree in trees:
            if isinstance(tree, Node):
                for expr in tree.walk():
                    plans.extend(expr.trees("plan") if expr.fields.get("plan") else [])
    return plans


def child_hops(node: Node) -> int:
    """How many JVM plan levels lie between `node` and its children (a collapsed chain: several)."""
    return int(node.fields.get("levels", 1)) if node.name == PROJECT_CHAIN else 1


def leaf_paths(root: Node, wanted: AbstractSet[str]) -> list[tuple[Node, Path]]:
    """Every node of a class in `wanted`, with its path from the root (subqueries included)."""
    found: list[tuple[Node, Path]] = []

    def visit(node: Node, path: Path) -> None:
        if node.name in wanted:
            found.append((node, path))
        for index, child in enumerate(node.children):
            visit(child, [*path, *[("c", index)] * child_hops(node)])
        if not node.children and node.trees("query"):  # CTAS holds its query as a field
            visit(node.trees("query")[0], [*path, ("q", 0)])
        if node.name in FORMAT_DML:  # MERGE / UPDATE / DELETE: the target and source plans
            for name in DML_PLAN_FIELDS:
                for plan in node.trees(name)[:1]:
                    visit(plan, [*path, (name, 0)])
        for index, plan in enumerate(_subquery_plans(node)):
            visit(plan, [*path, ("s", index)])

    visit(root, [])
    return found


def navigate(jvm_root: Any, path: Path) -> Any:
    """The JVM node at `path` below `jvm_root`."""
    node = jvm_root
    for kind, index in path:
        if kind == "q":
            node = node.query()
        elif kind not in ("c", "s"):  # a plan-valued field by name
            node = getattr(node, kind)()
        else:
            node = (node.children() if kind == "c" else node.subqueries()).apply(index)
    return node


# -- relations and tables -----------------------------------------------------------------------


@dataclass
class TableInfo:
    """A catalog table: its identifier and where its data lives."""

    database: str | None
    table: str
    location: str | None
    provider: str | None = None
    warehouse: str | None = None  # the catalog's warehouse URI, namespace of the table's symlink


@dataclass
class RelationInfo:
    """What a plan leaf reads."""

    kind: str  # "files" | "jdbc" | "table" | "kafka" | "unknown"
    locations: list[str] = field(default_factory=list)
    file_format: str | None = None
    jdbc_url: str | None = None
    jdbc_table: str | None = None  # the `dbtable` option (a name, or SQL text)
    jdbc_query: str | None = None  # the `query` option
    table: TableInfo | None = None
    schema: list[dict[str, Any]] = field(default_factory=list)
    table_format: str | None = None  # a table format's files ("delta")
    version: str | None = None  # the format's version the read scans
    options: Any = None  # a Kafka batch read's source options (a JVM Scala map)
    stream_files: list[str] | None = None  # a file source's micro-batch: the files it added


def split_identifier(text: str) -> tuple[str | None, str]:
    """`spark_catalog.db.t` / `db.t` / `t` -> (db, t)."""
    parts = [p.strip("`") for p in text.split(".")]
    return (parts[-2] if len(parts) > 1 else None), parts[-1]


def catalog_table(table: Any) -> TableInfo:
    """TableInfo of a JVM CatalogTable."""
    database, name = split_identifier(str(table.identifier().unquotedString()))
    location = option(table.storage().locationUri())
    provider = option(table.provider())
    return TableInfo(
        database, name, str(location) if location is not None else None, provider and str(provider)
    )


def table_by_name(session: Any, identifier: str) -> TableInfo:
    """Look a table up in the session catalog; falls back to its default location."""
    database, name = split_identifier(identifier)
    catalog = session.sessionState().catalog()
    ident = _table_identifier(database, name)
    if catalog.tableExists(ident):
        return catalog_table(catalog.getTableMetadata(ident))
    return default_table(session, database, name)


def default_table(session: Any, database: str | None, table: str) -> TableInfo:
    """A managed session-catalog table's identity and location (the table need not exist)."""
    catalog = session.sessionState().catalog()
    database = database or str(catalog.getCurrentDatabase())
    ident = _table_identifier(database, table)
    return TableInfo(database, table, str(catalog.defaultTablePath(ident)))


def _table_identifier(database: str | None, name: str) -> Any:
    jvm = _JVM[0]
    scala_option = jvm.scala.Option.apply(database)
    return jvm.org.apache.spark.sql.catalyst.TableIdentifier(name, scala_option)


_JVM: list[Any] = [None]


def bind_jvm(jvm: Any) -> None:
    """Remember the py4j JVM view (needed to construct identifiers)."""
    _JVM[0] = jvm


def bound_jvm() -> Any:
    """The py4j JVM view `bind_jvm` remembered (None before `enable`)."""
    return _JVM[0]


def warehouse_uri(session: Any) -> str:
    """The session catalog's warehouse directory as a URI without trailing slash."""
    location = str(session.conf().get("spark.sql.warehouse.dir")).rstrip("/")
    return location if ":" in location.split("/", 1)[0] else f"file:{location}"


def _json_table(leaf: Node) -> TableInfo | None:
    """The catalog table of a relation leaf, from its JSON form (no round trip)."""
    table = leaf.fields.get("catalogTable")
    if not isinstance(table, dict) or not isinstance(table.get("identifier"), dict):
        return None
    identifier = table["identifier"]
    provider = table.get("provider")
    return TableInfo(
        identifier.get("database"),
        str(identifier.get("table")),
        None,
        str(provider) if isinstance(provider, str) else None,
    )


def _json_schema(leaf: Node) -> list[dict[str, Any]]:
    """A leaf's schema from the name and data type of its output attributes."""
    return [
        {"name": a.fields.get("name"), "type": a.fields.get("dataType")}
        for a in leaf.trees("output")
    ]


def relation_info(jvm_leaf: Any, leaf: Node) -> RelationInfo:
    """Read a source leaf (LogicalRelation, HiveTableRelation) in a few round trips.

    The JSON form already gives the schema and the catalog table's identifier; py4j is asked
    only for the relation's kind, root paths or JDBC options.
    """
    schema = _json_schema(leaf)
    table = _json_table(leaf) if leaf.name == LOGICAL_RELATION else None
    if leaf.name == HIVE_TABLE_RELATION:
        return RelationInfo("table", table=catalog_table(jvm_leaf.tableMeta()), schema=schema)
    if leaf.name != LOGICAL_RELATION:
        return RelationInfo("unknown", schema=schema)
    relation = jvm_leaf.relation()
    text = str(relation.toString())  # HadoopFsRelation: the format's short name
    if text.startswith(KAFKA_RELATION + "("):  # spark.read.format("kafka"): its source options
        return RelationInfo(
            "kafka", schema=schema, options=declared_field(relation, "sourceOptions")
        )
    if text.startswith(JDBC_RELATION):
        options = relation.jdbcOptions()
        parameters = options.parameters()
        dbtable, query = option(parameters.get("dbtable")), option(parameters.get("query"))
        return RelationInfo(
            "jdbc",
            jdbc_url=str(options.url()),
            jdbc_table=str(dbtable) if dbtable is not None else None,
            jdbc_query=str(query) if query is not None else None,
            schema=schema,
        )
    try:
        location = relation.location()
        roots = str(location.rootPaths().mkString("\n")).split("\n")
    except Exception:  # not a file relation: a source plumbline does not name
        return RelationInfo("unknown", schema=schema, table=table)
    table_format = version = None
    stream_files = None
    if simple_name(location).startswith(DELTA_FILE_INDEX_PREFIXES):
        table_format, version = "delta", delta.scanned_version(location)
    if leaf.fields.get("isStreaming") is True:  # a file source's batch: its files, under its path
        base = option(relation.options().get("basePath"))
        stream_files = [r for r in roots if r]
        roots = [str(base)] if base is not None else roots
    if table is not None:
        table.location = roots[0]
    file_format = None if text == UNNAMED_FILE_FORMAT else text.lower()
    if table_format is not None:
        file_format = table_format
    return RelationInfo(
        "files",
        locations=roots,
        file_format=file_format,
        table=table,
        schema=schema,
        table_format=table_format,
        version=version,
        stream_files=stream_files,
    )


_CAUSES = 20  # how deep a cause chain is followed


def declared_field(obj: Any, name: str) -> Any:
    """A field of a JVM object by name, private or not (through reflection)."""
    found = obj.getClass().getDeclaredField(name)
    found.setAccessible(True)
    return found.get(obj)


def inherited_field(obj: Any, name: str) -> Any:
    """A field of a JVM object by name, declared by its class or any superclass (reflection);
    None when no class declares it."""
    cls = obj.getClass()
    while cls is not None:
        names = {str(f.getName()) for f in cls.getDeclaredFields()}
        if name in names:
            found = cls.getDeclaredField(name)
            found.setAccessible(True)
            return found.get(obj)
        cls = cls.getSuperclass()
    return None


def failure_text(throwable: Any) -> tuple[str, str]:
    """(message, stack trace) of a JVM Throwable: the message starts with the innermost cause
    (Spark wraps the real one, e.g. a ``SchemaColumnConvertNotSupportedException``, in
    ``Job aborted`` and ``[TASK_WRITE_FAILED]``), then the exception itself; the stack trace is
    the whole one, every cause included."""
    message = str(throwable.toString())
    innermost = innermost_cause(throwable)
    if innermost is not None:
        cause = str(innermost.toString())
        if cause and cause not in message.splitlines()[0]:
            message = f"{cause}\n{message}"
    stack = str(_JVM[0].org.apache.spark.util.Utils.exceptionString(throwable))
    return redact_text(message), redact_text(stack)


def innermost_cause(throwable: Any) -> Any:
    """The last cause of a JVM Throwable's chain (None when it has no cause)."""
    found, current = None, throwable
    for _ in range(_CAUSES):
        cause = current.getCause()
        if cause is None or cause.equals(current):
            break
        found = current = cause
    return found
