"""From one Spark QueryExecution to a plain description of the action it ran.

`describe_action` reads the analyzed plan's JSON in one call, walks it in Python (inputs,
column lineage), and makes a few targeted py4j calls for what the JSON leaves out (paths,
table identifiers, save modes, metric values). The result, `ActionFacts`, holds no JVM objects.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from plumbline.spark import jvm
from plumbline.spark.datasets import DatasetId, from_jdbc, from_location
from plumbline.spark.lineage import Deps, LineageResult, LineageWalker
from plumbline.spark.plan import Node, parse_plan

log = logging.getLogger(__name__)

_SOURCE_LEAVES = {"LogicalRelation", "HiveTableRelation"}
_WRITE_COMMANDS = {
    "InsertIntoHadoopFsRelationCommand",
    "CreateDataSourceTableAsSelectCommand",
    "SaveIntoDataSourceCommand",
    "InsertIntoDataSourceCommand",
    "InsertIntoDataSourceDirCommand",
}
_DDL_COMMANDS = {
    "CreateDataSourceTableCommand",
    "CreateTableCommand",
    "DropTableCommand",
    "DropTable",
    "TruncateTableCommand",
    "TruncateTable",
    "AlterTableRenameCommand",
    "RenameTable",
    "AlterTableAddColumnsCommand",
    "AddColumns",
}


@dataclass
class DatasetFacts:
    """One input or output dataset of an action."""

    id: DatasetId
    schema: list[dict[str, Any]] = field(default_factory=list)
    file_format: str | None = None
    table: jvm.TableInfo | None = None
    source_uri: str | None = None
    stats: dict[str, int] = field(default_factory=dict)
    lifecycle: str | None = None
    previous: DatasetId | None = None
    lineage: LineageResult | None = None
    local_path: str | None = None


@dataclass
class ActionFacts:
    """Everything the capture learned about one execution."""

    command: str
    inputs: list[DatasetFacts] = field(default_factory=list)
    outputs: list[DatasetFacts] = field(default_factory=list)
    sql: str | None = None
    error: tuple[str, str] | None = None
    # expression id -> input dataset keys it derives from (to attribute scan metrics)
    expr_sources: dict[int, set[str]] = field(default_factory=dict, repr=False)

    @property
    def writes(self) -> bool:
        """Whether the action changed a dataset (only those produce events)."""
        return bool(self.outputs)


def _columns(text: Any) -> list[str] | None:
    if not isinstance(text, str) or not text.startswith("["):
        return None
    inner = text.strip()[1:-1]
    return [c.strip() for c in inner.split(",")] if inner.strip() else []


def _table_dataset(info: jvm.TableInfo) -> DatasetId:
    return from_location(info.location) if info.location else DatasetId("file", info.table)


class _Extraction:
    def __init__(self, session: Any, qe: Any) -> None:
        self.session = session
        self.qe = qe
        self.analyzed = qe.analyzed()
        self.root = parse_plan(str(self.analyzed.toJSON()))
        self.inputs: dict[str, DatasetFacts] = {}
        self.leaf_sources: dict[int, str] = {}
        self.walker = LineageWalker(lambda leaf: self.leaf_sources.get(id(leaf)))
        self._leaves: Any = None
        self._leaf_index: dict[int, int] = {}

    # inputs -----------------------------------------------------------------------------------

    def _jvm_leaf(self, leaf: Node, path: jvm.Path) -> Any:
        """The JVM node of a leaf: by index in collectLeaves() when it is in the main tree."""
        if any(kind != "c" for kind, _ in path):
            return jvm.navigate(self.analyzed, path)
        if self._leaves is None:
            self._leaves = self.analyzed.collectLeaves()
            main_leaves = [node for node in self.root.walk() if not node.children]
            self._leaf_index = {id(node): i for i, node in enumerate(main_leaves)}
        return self._leaves.apply(self._leaf_index[id(leaf)])

    def read_inputs(self) -> None:
        for leaf, path in jvm.leaf_paths(self.root, _SOURCE_LEAVES):
            try:
                info = jvm.relation_info(self._jvm_leaf(leaf, path), leaf)
            except Exception:  # a relation type we do not know: no dataset, keep going
                log.debug("cannot read relation %s", leaf.name, exc_info=True)
                continue
            facts = self._relation_facts(info)
            if facts is None:
                continue
            existing = self.inputs.setdefault(facts.id.key, facts)
            self.leaf_sources[id(leaf)] = existing.id.key

    @staticmethod
    def _relation_facts(info: jvm.RelationInfo) -> DatasetFacts | None:
        if info.table is not None and info.table.location:
            dataset = _table_dataset(info.table)
        elif info.kind == "files" and info.locations:
            dataset = from_location(info.locations[0])
        elif info.kind == "jdbc" and info.jdbc_url and info.jdbc_table:
            dataset = from_jdbc(info.jdbc_url, info.jdbc_table)
            return DatasetFacts(dataset, info.schema, None, None, dataset.namespace)
        else:
            return None
        return DatasetFacts(
            dataset,
            info.schema,
            info.file_format or (info.table.provider if info.table else None),
            info.table,
            dataset.namespace,
        )

    # outputs ----------------------------------------------------------------------------------

    def query_lineage(self, query: Node, names: list[str] | None) -> LineageResult:
        output = self.walker.walk(query)
        names = names or [str(a.fields.get("name")) for a in output]
        result = LineageResult(dataset=self.walker.dataset)
        for name, attribute in zip(names, output, strict=False):
            deps = self.walker.attribute_deps(attribute)
            if deps:
                result.columns[name] = deps
        return result

    def query(self) -> tuple[Node, Any]:
        """The write command's query, parsed and as a JVM object (a child, or a field for CTAS)."""
        if self.root.children:
            return self.root.children[0], self.analyzed.children().apply(0)
        return self.root.trees("query")[0], self.analyzed.query()

    def output_schema(self, names: list[str] | None) -> list[dict[str, Any]]:
        fields = jvm.schema_fields(self.query()[1])
        if names and len(names) == len(fields):
            for entry, name in zip(fields, names, strict=True):
                entry["name"] = name
        return fields

    def write_output(self) -> DatasetFacts | None:
        cmd, name = self.analyzed, self.root.name
        names = _columns(self.root.fields.get("outputColumnNames"))
        has_mode = name not in ("InsertIntoDataSourceCommand", "InsertIntoDataSourceDirCommand")
        mode = str(cmd.mode().toString()) if has_mode else None
        facts: DatasetFacts | None = None
        if name == "InsertIntoHadoopFsRelationCommand":
            table = jvm.option(cmd.catalogTable())
            info = jvm.catalog_table(table) if table is not None else None
            location = str(cmd.outputPath().toString())
            facts = DatasetFacts(from_location(location), file_format=str(cmd.fileFormat()).lower())
            facts.table, facts.local_path = info, _local(location)
        elif name == "InsertIntoDataSourceDirCommand":
            location = str(jvm.option(cmd.storage().locationUri()))
            facts = DatasetFacts(from_location(location), file_format=str(cmd.provider()).lower())
            facts.local_path = _local(location)
            mode = "Overwrite" if cmd.overwrite() else "Append"
        elif name == "CreateDataSourceTableAsSelectCommand":
            ident = str(cmd.table().identifier().unquotedString())
            info = jvm.table_by_name(self.session, ident)
            facts = DatasetFacts(_table_dataset(info), file_format=info.provider, table=info)
            facts.local_path = _local(info.location or "")
            mode = "Create" if mode != "Overwrite" else mode
        elif name in ("SaveIntoDataSourceCommand", "InsertIntoDataSourceCommand"):
            facts = self._data_source_output(cmd, name)
            if name == "InsertIntoDataSourceCommand":
                mode = "Overwrite" if cmd.overwrite() else "Append"
        if facts is None:
            return None
        facts.source_uri = facts.id.namespace
        facts.lifecycle = {"Overwrite": "OVERWRITE", "Create": "CREATE"}.get(mode or "")
        facts.schema = self.output_schema(names)
        facts.lineage = self.query_lineage(self.query()[0], names)
        return facts

    def _data_source_output(self, cmd: Any, name: str) -> DatasetFacts | None:
        if name == "InsertIntoDataSourceCommand":
            relation = cmd.logicalRelation().relation()
            if jvm.simple_name(relation) != "JDBCRelation":
                return None
            options = relation.jdbcOptions()
            return DatasetFacts(from_jdbc(str(options.url()), str(options.tableOrQuery())))
        options = cmd.options()
        provider = jvm.simple_name(cmd.dataSource())
        url, table = jvm.option(options.get("url")), jvm.option(options.get("dbtable"))
        if "Jdbc" in provider and url and table:
            return DatasetFacts(from_jdbc(str(url), str(table)))
        path = jvm.option(options.get("path"))
        return DatasetFacts(from_location(str(path))) if path else None

    def ddl_output(self) -> DatasetFacts | None:
        cmd, name = self.analyzed, self.root.name
        previous: DatasetId | None = None
        if name in ("CreateDataSourceTableCommand", "CreateTableCommand"):
            ident, state = str(cmd.table().identifier().unquotedString()), "CREATE"
        elif name in ("DropTableCommand", "TruncateTableCommand", "AlterTableAddColumnsCommand"):
            getter = cmd.table if name == "AlterTableAddColumnsCommand" else cmd.tableName
            ident = str(getter().unquotedString())
            state = {"DropTableCommand": "DROP", "TruncateTableCommand": "TRUNCATE"}.get(
                name, "ALTER"
            )
        elif name in ("DropTable", "TruncateTable", "AddColumns", "RenameTable"):
            ident = str(cmd.children().apply(0).identifier().toString())
            state = {"DropTable": "DROP", "TruncateTable": "TRUNCATE", "AddColumns": "ALTER"}.get(
                name, "RENAME"
            )
            if name == "RenameTable":
                previous = _table_dataset(jvm.table_by_name(self.session, ident))
                ident = ".".join(str(p) for p in cmd.newName().toList().mkString(".").split("."))
        elif name == "AlterTableRenameCommand":
            old = str(cmd.oldName().unquotedString())
            new_db, new_table = jvm.split_identifier(str(cmd.newName().unquotedString()))
            old_db, _ = jvm.split_identifier(old)
            previous = _table_dataset(jvm.table_by_name(self.session, old))
            ident, state = f"{new_db or old_db or 'default'}.{new_table}", "RENAME"
        else:
            return None
        info = jvm.table_by_name(self.session, ident)
        facts = DatasetFacts(_table_dataset(info), file_format=info.provider, table=info)
        facts.lifecycle, facts.previous = state, previous
        facts.source_uri = facts.id.namespace
        if state != "DROP":
            facts.schema = self._table_schema(info)
        return facts

    def _table_schema(self, info: jvm.TableInfo) -> list[dict[str, Any]]:
        try:
            catalog = self.session.sessionState().catalog()
            ident = jvm._table_identifier(info.database, info.table)
            return jvm.schema_fields(catalog.getTableMetadata(ident))
        except Exception:
            log.debug("no schema for table %s", info.table, exc_info=True)
            return []

    def expr_sources(self) -> dict[int, set[str]]:
        sources: dict[int, set[str]] = {}
        for (expr_id, _), deps in self.walker.lineage.items():
            keys = {k for k, _ in deps if k in self.inputs}
            if keys:
                sources.setdefault(expr_id, set()).update(keys)
        return sources


_WRITE_METRICS = {"numOutputRows": "rowCount", "numOutputBytes": "size", "numFiles": "fileCount"}
_SCAN_METRICS = {"numOutputRows": "rowCount", "filesSize": "size", "numFiles": "fileCount"}


def read_metrics(qe: Any, facts: ActionFacts) -> None:
    """Rows, bytes and files written (write command) and read (scans) from the executed plan."""
    plan = qe.executedPlan()
    if str(plan.nodeName()) == "AdaptiveSparkPlan":
        plan = plan.executedPlan()
    if facts.outputs and str(plan.nodeName()).startswith("Execute "):
        facts.outputs[0].stats = _renamed(jvm.metrics(plan), _WRITE_METRICS)
    inputs = {d.id.key: d for d in facts.inputs}
    for scan in _scans(plan):
        values = jvm.metrics(scan)
        ids = {int(i) for i in re.findall(r"#(\d+)", str(scan.output().toString()))}
        keys = set().union(*(facts.expr_sources.get(i, set()) for i in ids)) if ids else set()
        if len(keys) != 1:
            continue
        stats = inputs[keys.pop()].stats
        for metric, value in _renamed(values, _SCAN_METRICS).items():
            stats[metric] = stats.get(metric, 0) + value


def _renamed(values: dict[str, int], names: dict[str, str]) -> dict[str, int]:
    return {names[k]: v for k, v in values.items() if k in names}


def _local(location: str) -> str | None:
    dataset = from_location(location) if location else None
    return dataset.name if dataset is not None and dataset.namespace == "file" else None


def _scans(plan: Any) -> list[Any]:
    """Leaf scan nodes of an executed plan, looking inside adaptive query stages."""
    found: list[Any] = []
    for leaf in jvm.scala_seq(plan.collectLeaves()):
        name = str(leaf.nodeName())  # one round trip, e.g. "Scan parquet ", "ShuffleQueryStage"
        if name.endswith("QueryStage"):
            found.extend(_scans(leaf.plan()))
        elif name.startswith("Scan ") or name in ("InMemoryTableScan", "Scan ExistingRDD"):
            found.append(leaf)
    return found


def _set_warehouse(session: Any, facts: ActionFacts) -> None:
    tables = [d.table for d in facts.inputs + facts.outputs if d.table is not None]
    if tables:
        warehouse = jvm.warehouse_uri(session)
        for table in tables:
            table.warehouse = warehouse


def reusable(facts: ActionFacts) -> bool:
    """Whether facts read at an execution's start still hold at its end (writes, not DDL)."""
    return facts.command in _WRITE_COMMANDS


def add_metrics(qe: Any, facts: ActionFacts) -> None:
    """Read the execution's metrics into `facts` (logged and skipped on error)."""
    if not facts.outputs or facts.command not in _WRITE_COMMANDS:
        return
    try:
        read_metrics(qe, facts)
    except Exception:
        log.warning("could not read execution metrics", exc_info=True)


def sql_text(qe: Any) -> str | None:
    """The SQL text a plan was parsed from, when it came from `spark.sql`."""
    try:
        text = jvm.option(qe.logical().origin().sqlText())
    except Exception:
        return None
    return str(text) if text else None


def describe_action(session: Any, qe: Any, *, with_metrics: bool) -> ActionFacts:
    """Describe the action `qe` ran: inputs, outputs, lineage and (optionally) metrics."""
    extraction = _Extraction(session, qe)
    facts = ActionFacts(extraction.root.name, sql=sql_text(qe))
    extraction.read_inputs()
    output: DatasetFacts | None = None
    if facts.command in _WRITE_COMMANDS:
        output = extraction.write_output()
    elif facts.command in _DDL_COMMANDS:
        output = extraction.ddl_output()
    facts.outputs = [output] if output is not None else []
    if output is None:
        log.debug("execution of %s writes no dataset plumbline knows", facts.command)
    facts.inputs = list(extraction.inputs.values())
    facts.expr_sources = extraction.expr_sources()
    _set_warehouse(session, facts)
    if with_metrics:
        add_metrics(qe, facts)
    return facts


__all__ = ["ActionFacts", "DatasetFacts", "Deps", "describe_action", "sql_text"]
