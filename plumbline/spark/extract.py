"""From one Spark QueryExecution to a plain description of the action it ran.

`describe_action` reads the analyzed plan in one call (`plan_reader`), walks it in Python (inputs,
column lineage), and makes a few targeted py4j calls for what the JSON leaves out (paths,
table identifiers, save modes, metric values). The result, `ActionFacts`, holds no JVM objects.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from plumbline.spark import ddl as _ddl  # noqa: F401  (registers the DDL handlers)
from plumbline.spark import formats, iceberg, jvm, streaming
from plumbline.spark.datasets import from_jdbc, from_location, from_table
from plumbline.spark.ddl import TableMemory, planned_table, v2_catalog_facts
from plumbline.spark.facts import ActionFacts, DatasetFacts
from plumbline.spark.lineage import Deps, LineageResult, LineageWalker, output_names, write_query
from plumbline.spark.outputs import LIVE_OUTPUTS, live_output
from plumbline.spark.plan import Node
from plumbline.spark.plan_reader import read_plan
from plumbline.spark.sources import LeafRead, rdd_read, relation_read
from plumbline.spark.vocabulary import (
    ADAPTIVE_PLAN,
    CREATE_TABLE_EVENT,
    DATASET_RELATIONS,
    ERROR_IF_EXISTS,
    ICEBERG_METADATA_COLUMNS,
    JDBC_RELATION,
    KAFKA_PROVIDER,
    OUTPUT_COMMANDS,
    QUERY_STAGE_SUFFIX,
    RDD_RELATION,
    RESULT_QUERY_STAGE,
    ROW_LEVEL_OPERATIONS,
    SCAN_EXEC_PREFIXES,
    SCAN_EXECS,
    STREAM_RELATIONS,
    V2_RELATION,
    V2_WRITES,
    WRITE_COMMANDS,
    WRITE_EXEC_PREFIXES,
    Kind,
    OutputCommand,
)

log = logging.getLogger(__name__)


class _Extraction:
    def __init__(
        self, session: Any, qe: Any, *, collapse: bool = True, memory: TableMemory | None = None
    ) -> None:
        """`collapse`: projection chains read as `ProjectChain` nodes (`plan_reader.read_plan`);
        `memory`: the tables the capture saw change (DDL handlers read and `ddl` updates it)."""
        self.session = session
        self.qe = qe
        self.analyzed = qe.analyzed()
        self.root = read_plan(jvm.bound_jvm(), self.analyzed, collapse=collapse)
        self.memory = memory if memory is not None else TableMemory()
        # the command's entry in the output command table (None: not an output command)
        self.command: OutputCommand | None = OUTPUT_COMMANDS.get(self.root.name)
        self.sql: str | None = None  # the SQL text the plan was parsed from, if any
        self.run_command: str | None = None  # what names the run, when not the command (`CALL`)
        self.inputs: dict[str, DatasetFacts] = {}
        self.leaf_reads: dict[int, LeafRead] = {}
        self.walker = LineageWalker(self._leaf_deps)
        self.walker.opaque_leaf = self._opaque_leaf
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
        for leaf, path in jvm.leaf_paths(self.root, DATASET_RELATIONS):
            try:
                read = self._leaf_read(leaf, self._jvm_leaf(leaf, path))
            except Exception:  # a relation type we do not know: no dataset, keep going
                log.debug("cannot read relation %s", leaf.name, exc_info=True)
                continue
            if read is None or not read.datasets:
                continue
            for facts in read.datasets:
                self.inputs.setdefault(facts.id.key, facts)
            self.leaf_reads[id(leaf)] = read

    def _leaf_read(self, leaf: Node, jvm_leaf: Any) -> LeafRead | None:
        if leaf.name == RDD_RELATION:
            return rdd_read(jvm_leaf.rdd())
        if leaf.name in STREAM_RELATIONS:
            return LeafRead(streaming.source_datasets(jvm_leaf))
        if leaf.name == V2_RELATION:
            facts = self._v2_relation(jvm_leaf, None)
            if facts is None:
                return None
            facts.schema = [
                {"name": a.fields.get("name"), "type": a.fields.get("dataType")}
                for a in leaf.trees("output")
                if facts.table_format != "iceberg"
                or a.fields.get("name") not in ICEBERG_METADATA_COLUMNS
            ]
            return LeafRead([facts])
        return relation_read(jvm.relation_info(jvm_leaf, leaf))

    def _opaque_leaf(self, leaf: Node) -> bool:
        """Whether the leaf reads datasets whose columns come from code (an RDD's files)."""
        read = self.leaf_reads.get(id(leaf))
        return read is not None and read.opaque and bool(read.datasets)

    def _leaf_deps(self, leaf: Node, column: str) -> Deps:
        read = self.leaf_reads.get(id(leaf))
        return read.deps(column, lambda d: d.key) if read is not None else {}

    # outputs ----------------------------------------------------------------------------------

    def query_lineage(self, query: Node, names: list[str] | None) -> LineageResult:
        return self.walker.query_lineage(query, names)

    def _v2_relation(self, relation: Any, lifecycle: str | None) -> DatasetFacts | None:
        """The dataset of a DataSourceV2Relation (tables of JDBC catalogs)."""
        catalog, ident = jvm.option(relation.catalog()), jvm.option(relation.identifier())
        if catalog is None or ident is None:
            return None
        parts = [*(str(p) for p in ident.namespace()), str(ident.name())]
        found = v2_catalog_facts(self.session, str(catalog.name()), parts, lifecycle)
        if found is None:  # a table of a format's catalog (Delta's, Iceberg's)
            found = formats.v2_table_facts(
                self.session,
                relation.table(),
                lifecycle,
                str(catalog.name()),
                relation.options(),
                parts,
            )
        return found

    def query(self) -> tuple[Node, Any]:
        """The write command's query, parsed and as a JVM object (a child, or a field for CTAS)."""
        query = write_query(self.root)
        if query is None:
            raise ValueError(f"{self.root.name} has no query")
        if self.root.children:
            return query, self.analyzed.children().apply(0)
        return query, self.analyzed.query()

    def output_schema(self, names: list[str] | None) -> list[dict[str, Any]]:
        fields = jvm.schema_fields(self.query()[1])
        if names and len(names) == len(fields):
            for entry, name in zip(fields, names, strict=True):
                entry["name"] = name
        return fields

    def save_mode(self) -> str | None:
        """The write command's SaveMode (`Overwrite`, `Append`...), if it carries one."""
        if self.command is None or not self.command.mode:
            return None
        return str(self.analyzed.mode().toString())

    def written(self, facts: DatasetFacts | None, mode: str | None) -> DatasetFacts | None:
        """A write's output completed: its lifecycle change from `mode` (a V2 write's from the
        command), the columns written and their lineage from the query."""
        names = output_names(self.root)
        if names is None and "outputColumnNames" in self.root.fields:  # cut short in the JSON
            names = jvm.string_seq(self.analyzed.outputColumnNames())
            self.root.fields["outputColumnNames"] = names
        if facts is None:
            return None
        facts.source_uri = facts.id.namespace
        if facts.table_format is not None and mode == ERROR_IF_EXISTS:  # it did not exist
            mode = "Create"
        facts.lifecycle = {"Overwrite": "OVERWRITE", "Create": "CREATE"}.get(mode or "")
        facts.ignore_mode = mode == "Ignore"
        if self.command is not None and self.command.kind == Kind.V2_WRITE:
            facts.lifecycle = self.command.lifecycle
        facts.schema = self.output_schema(names)
        facts.lineage = self.query_lineage(self.query()[0], names)
        return facts

    def format_v2_write(self, lifecycle: str | None) -> DatasetFacts | None:
        """A table format's command shaped like a V2 write: a `table` relation and its child query
        (never failing: a command of another shape writes nothing plumbline names)."""
        tables, query = self.root.trees("table"), write_query(self.root)
        if not tables or tables[0].name != V2_RELATION or query is None or not self.root.children:
            return None
        try:
            facts = self._v2_relation(self.analyzed.table(), lifecycle)
        except Exception:
            log.info("plumbline cannot read the table of %s", self.root.name, exc_info=True)
            return None
        if facts is None:
            return None
        columns = tables[0].trees("output")
        facts.schema = [
            {"name": a.fields.get("name"), "type": a.fields.get("dataType")} for a in columns
        ]
        names = [str(a.fields.get("name")) for a in columns]
        facts.lineage = self.query_lineage(query, names)
        return facts

    def row_level_write(self) -> DatasetFacts | None:
        """Spark's row-level write (an Iceberg MERGE / UPDATE / DELETE): the `originalTable`,
        written with the rows of its child, column lineage by the table's column names (never
        failing: a plan of another shape writes nothing plumbline names)."""
        tables, query = self.root.trees("originalTable"), write_query(self.root)
        if not tables or query is None:
            return None
        try:
            facts = self._v2_relation(self.analyzed.originalTable(), None)
        except Exception:
            log.info("plumbline cannot read the table of %s", self.root.name, exc_info=True)
            return None
        if facts is None:
            return None
        columns = tables[0].trees("output")
        facts.schema = [
            {"name": a.fields.get("name"), "type": a.fields.get("dataType")} for a in columns
        ]
        names = {str(a.fields.get("name")) for a in columns}
        lineage = self.query_lineage(query, None)
        lineage.columns = {k: d for k, d in lineage.columns.items() if k in names}
        facts.lineage = lineage
        return facts

    def expr_sources(self) -> dict[int, set[str]]:
        sources: dict[int, set[str]] = {}
        for (expr_id, _), deps in self.walker.lineage.items():
            keys = {k for k, _ in deps if k in self.inputs}
            if keys:
                sources.setdefault(expr_id, set()).update(keys)
        return sources


# -- the live handlers of write commands (vocabulary.OUTPUT_COMMANDS) ----------------------------


@live_output("insert_files")
def _insert_files(ex: _Extraction) -> DatasetFacts | None:
    cmd = ex.analyzed
    table = jvm.option(cmd.catalogTable())
    info = jvm.catalog_table(table) if table is not None else None
    location = str(cmd.outputPath().toString())
    facts = DatasetFacts(from_location(location), file_format=str(cmd.fileFormat()).lower())
    facts.table, facts.local_path = info, _local(location)
    return ex.written(facts, ex.save_mode())


@live_output("insert_directory")
def _insert_directory(ex: _Extraction) -> DatasetFacts | None:
    cmd = ex.analyzed
    location = str(jvm.option(cmd.storage().locationUri()))
    facts = DatasetFacts(from_location(location), file_format=str(cmd.provider()).lower())
    facts.local_path = _local(location)
    return ex.written(facts, "Overwrite" if cmd.overwrite() else "Append")


@live_output("create_table_as_select")
def _create_table_as_select(ex: _Extraction) -> DatasetFacts | None:
    cmd, mode = ex.analyzed, ex.save_mode()
    info = planned_table(ex.session, cmd, ex.root.fields.get("table"))
    if info is None:
        ident = str(cmd.table().identifier().unquotedString())
        info = jvm.table_by_name(ex.session, ident)
    facts = DatasetFacts(
        from_table(info.location, info.table), file_format=info.provider, table=info
    )
    facts.local_path = _local(info.location or "")
    if mode != "Overwrite":  # a CREATE only if the table did not exist
        mode = "Create"
        database = info.database or "default"
        facts.needs_catalog_event = (CREATE_TABLE_EVENT, database, info.table)
    return ex.written(facts, mode)


@live_output("v2_write")
def _v2_write(ex: _Extraction) -> DatasetFacts | None:
    return ex.written(ex._v2_relation(ex.analyzed.table(), None), ex.save_mode())


@live_output("v2_create_as_select")
def _v2_create_as_select(ex: _Extraction) -> DatasetFacts | None:
    cmd = ex.analyzed
    target = cmd.name()  # ResolvedIdentifier
    ident = target.identifier()
    parts = [*(str(p) for p in ident.namespace()), str(ident.name())]
    found = v2_catalog_facts(ex.session, str(target.catalog().name()), parts, None)
    if found is None:
        provider = jvm.option(cmd.tableSpec().provider())
        found = formats.created_table_facts(
            ex.session, target.catalog(), parts, str(provider) if provider else None
        )
    return ex.written(found, ex.save_mode())


@live_output("stream_sink")
def _stream_sink(ex: _Extraction) -> DatasetFacts | None:
    return ex.written(streaming.sink_output(ex.analyzed, ex.root.name), ex.save_mode())


@live_output("insert_into_data_source")
def _insert_into_data_source(ex: _Extraction) -> DatasetFacts | None:
    cmd = ex.analyzed
    relation = cmd.logicalRelation().relation()
    facts = None
    if jvm.simple_name(relation) == JDBC_RELATION:
        options = relation.jdbcOptions()
        facts = DatasetFacts(from_jdbc(str(options.url()), str(options.tableOrQuery())))
    return ex.written(facts, "Overwrite" if facts is not None and cmd.overwrite() else "Append")


@live_output("save_into_data_source")
def _save_into_data_source(ex: _Extraction) -> DatasetFacts | None:
    cmd = ex.analyzed
    options = cmd.options()
    provider = jvm.simple_name(cmd.dataSource())
    url, table = jvm.option(options.get("url")), jvm.option(options.get("dbtable"))
    facts: DatasetFacts | None = None
    if provider == KAFKA_PROVIDER:  # df.write.format("kafka"): its `topic` option
        found = streaming.kafka_datasets(streaming.kafka_options(options), sink=True)
        facts = DatasetFacts(found[0]) if found else None
    elif "Jdbc" in provider and url and table:
        facts = DatasetFacts(from_jdbc(str(url), str(table)))
    else:
        path = jvm.option(options.get("path"))
        if path:
            facts = formats.save_output(cmd, str(path)) or DatasetFacts(from_location(str(path)))
    return ex.written(facts, ex.save_mode())


@live_output("row_level_write")
def _row_level_write(ex: _Extraction) -> DatasetFacts | None:
    ex.run_command = _row_level_command(ex.analyzed)
    return ex.row_level_write()


@live_output("procedure_call")
def _procedure_call(ex: _Extraction) -> DatasetFacts | None:
    output, restored = iceberg.procedure(ex.session, ex.analyzed, ex.sql)
    ex.inputs = {restored.id.key: restored} if restored is not None else {}
    ex.run_command = iceberg.procedure_name(ex.analyzed)
    return output


@live_output("format_v2_write")
def _format_v2_write(ex: _Extraction) -> DatasetFacts | None:
    return ex.format_v2_write(ex.command.lifecycle if ex.command is not None else None)


_WRITE_METRICS = {"numOutputRows": "rowCount", "numOutputBytes": "size", "numFiles": "fileCount"}
_SCAN_METRICS = {"numOutputRows": "rowCount", "filesSize": "size", "numFiles": "fileCount"}


def read_metrics(qe: Any, facts: ActionFacts, *, written: bool = True) -> None:
    """Rows, bytes and files written (write command) and read (scans) from the executed plan."""
    plan = qe.executedPlan()
    if str(plan.nodeName()) == ADAPTIVE_PLAN:
        plan = plan.executedPlan()
        if str(plan.nodeName()) == RESULT_QUERY_STAGE:  # Spark 4: the write is inside it
            plan = plan.plan()
    if written and facts.outputs and str(plan.nodeName()).startswith(WRITE_EXEC_PREFIXES):
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
        if name.endswith(QUERY_STAGE_SUFFIX):
            found.extend(_scans(leaf.plan()))
        elif name.startswith(SCAN_EXEC_PREFIXES) or name in SCAN_EXECS:
            found.append(leaf)
    return found


def _set_warehouse(session: Any, facts: ActionFacts) -> None:
    tables = [d.table for d in facts.inputs + facts.outputs if d.table is not None]
    if tables:
        warehouse = jvm.warehouse_uri(session)
        for table in tables:
            table.warehouse = table.warehouse or warehouse  # a format's catalog names its own


def add_metrics(qe: Any, facts: ActionFacts) -> None:
    """Read the execution's metrics into `facts` (logged and skipped on error)."""
    if not facts.outputs or facts.command not in WRITE_COMMANDS:
        return
    try:
        read_metrics(qe, facts)
    except Exception:
        log.warning("could not read execution metrics", exc_info=True)


def add_nested_scan_metrics(qe: Any, facts: ActionFacts) -> None:
    """Rows read by a nested execution that ran the query of `facts`' write for it.

    DataSource V2 writes through a V1 fallback (JDBC catalogs) run their query as a nested
    execution; its scans output the same expression ids as the write's query.
    """
    if facts.command not in V2_WRITES or any(d.stats for d in facts.inputs):
        return
    try:
        read_metrics(qe, facts, written=False)
    except Exception:
        log.warning("could not read execution metrics", exc_info=True)


def sql_text(qe: Any) -> str | None:
    """The SQL text a plan was parsed from, when it came from `spark.sql`."""
    try:
        text = jvm.option(qe.logical().origin().sqlText())
    except Exception:
        return None
    return str(text) if text else None


def origin_sql(plan: Any, node: Node, depth: int = 8) -> str | None:
    """The SQL text of the `spark.sql` DataFrame a write's query was built from, if any.

    Catalyst keeps each parsed node's origin (the statement's text) through analysis, so the
    first node with one, down the first-child chain from the query, names the DataFrame's SQL.
    DataFrame-API steps on top (`.where()`...) have no origin; the walk stops after `depth` nodes.
    """
    hops = 0  # JVM levels still to go down before `plan` is `node` again (a collapsed chain)
    for _ in range(depth):
        text = jvm.option(plan.origin().sqlText())
        if text:
            return str(text)
        if hops == 0:
            if not node.children:
                return None
            hops, node = jvm.child_hops(node), node.children[0]
        plan, hops = plan.children().apply(0), hops - 1
    return None


def _row_level_command(analyzed: Any) -> str | None:
    """The statement a row-level write runs (`MergeIntoTable`...), which names its run."""
    try:
        operation = str(analyzed.table().table().operation().command().toString())
    except Exception:
        return None
    return ROW_LEVEL_OPERATIONS.get(operation.upper())


def describe_action(
    session: Any, qe: Any, *, with_metrics: bool, memory: TableMemory | None = None
) -> ActionFacts:
    """Describe the action `qe` ran: inputs, outputs, lineage and (optionally) metrics.

    The command's entry in `vocabulary.OUTPUT_COMMANDS` names its handler (`outputs.LIVE_OUTPUTS`);
    `memory` is the capture's record of the catalog tables it saw change (see `ddl`).
    """
    extraction = _Extraction(session, qe, memory=memory)
    facts = ActionFacts(extraction.root.name, sql=sql_text(qe))
    extraction.sql = facts.sql
    extraction.read_inputs()
    output: DatasetFacts | None = None
    command = extraction.command
    if command is not None:
        output = LIVE_OUTPUTS[command.live](extraction)
        facts.command = extraction.run_command or facts.command
        if facts.command in WRITE_COMMANDS and output is not None and facts.sql is None:
            try:
                facts.sql = origin_sql(extraction.query()[1], extraction.query()[0])
            except Exception:
                log.debug("cannot read the query's origin", exc_info=True)
    elif facts.command.endswith("Command"):
        if formats.unknown_format_command(extraction.analyzed, facts.command):
            output = extraction.format_v2_write(None)  # a V2 write's shape, where it has one
    facts.outputs = [output] if output is not None else []
    if output is None:
        log.debug("execution of %s writes no dataset plumbline knows", facts.command)
    facts.inputs = list(extraction.inputs.values())
    facts.expr_sources = extraction.expr_sources()
    _set_warehouse(session, facts)
    if with_metrics:
        add_metrics(qe, facts)
    return facts


class _PlanOnly:
    """A QueryExecution stand-in for a plan that never ran as one (a streaming query's own plan,
    `WriteToMicroBatchDataSource[V1]` over its sources, when it failed before a micro-batch)."""

    def __init__(self, plan: Any) -> None:
        self._plan = plan

    def analyzed(self) -> Any:
        return self._plan

    def logical(self) -> Any:
        return self._plan


def describe_plan(session: Any, plan: Any) -> ActionFacts:
    """Describe an analyzed plan that did not run (no metrics)."""
    return describe_action(session, _PlanOnly(plan), with_metrics=False)


__all__ = [
    "ActionFacts",
    "DatasetFacts",
    "Deps",
    "TableMemory",
    "describe_action",
    "describe_plan",
    "sql_text",
]
