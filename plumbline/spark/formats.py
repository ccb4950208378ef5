"""Table formats' own commands and tables (Delta Lake, Apache Paimon): what they write and how,
in plain facts.

- Row-level DML (`MERGE INTO`, `UPDATE`, `DELETE`, vocabulary.FORMAT_DML) writes its `target`
  table (Paimon's: `targetTable`, `relation`), which it also reads (the rows it keeps): the output
  is the target's dataset, the inputs the target and the MERGE's `source` (`sourceTable`). Column
  lineage, per target column:
  - MERGE: the target column itself (rows no clause changes keep it), every clause action that
    assigns the column (`DeltaMergeAction`: `targetColNameParts` := its child; Spark's
    `Assignment`: key := value), and the clause's
    condition as INDIRECT CONDITIONAL on the columns that clause assigns; the merge condition is
    a dataset-wide INDIRECT JOIN, a DELETE clause's condition a dataset-wide INDIRECT FILTER.
  - UPDATE: like `CASE WHEN condition THEN expression ELSE column END` for each assigned column.
  - DELETE: every column is kept as it is; the condition is a dataset-wide INDIRECT FILTER.
- Maintenance (`OPTIMIZE`, `VACUUM`, `RESTORE`; vocabulary.FORMAT_MAINTENANCE): a run on the
  table with no column lineage; a RESTORE's input is the table at the version it restores.
- DataSource V2 tables of a Delta catalog (`DeltaTableV2`): named by their location, with the
  catalog table as symlink.
- Paimon's maintenance procedures (`CALL catalog.sys.compact(...)`): as Iceberg's (paimon.py).
- A command of a format package that plumbline does not know: one log line per command class.

The versions themselves are read by `delta.py`, `iceberg.py` and `paimon.py`.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from plumbline.spark import delta, iceberg, jvm, paimon
from plumbline.spark import vocabulary as v
from plumbline.spark.datasets import from_location, from_table
from plumbline.spark.facts import DatasetFacts
from plumbline.spark.lineage import (
    CONDITIONAL,
    FILTER,
    INDIRECT,
    JOIN,
    Deps,
    LineageResult,
    LineageWalker,
)
from plumbline.spark.outputs import live_output
from plumbline.spark.plan import Node

if TYPE_CHECKING:
    from plumbline.spark.extract import _Extraction

log = logging.getLogger(__name__)

_warned: set[str] = set()


def _merge_deps(into: Deps, more: Deps) -> None:
    for key, transformations in more.items():
        into.setdefault(key, set()).update(transformations)


def _target_field(root: Node) -> str:
    return v.DML_TARGET_FIELDS.get(root.name, "target")


def _first(root: Node, fields: tuple[str, ...]) -> list[Node]:
    """The trees of the first of `fields` the node has."""
    for field in fields:
        if root.trees(field):
            return root.trees(field)
    return []


def _target_leaf(root: Node) -> Node | None:
    for plan in root.trees(_target_field(root))[:1]:
        for node in plan.walk():
            if node.name in v.DATASET_RELATIONS:
                return node
    return None


def dml_output(
    root: Node,
    walker: LineageWalker,
    target_read: DatasetFacts | None,
    lineage: Callable[[Node, LineageWalker, dict[str, Deps], list[Node]], None],
) -> DatasetFacts | None:
    """The dataset a MERGE / UPDATE / DELETE writes (its target), with its column lineage
    (`lineage` adds the command's own to the target's columns)."""
    if target_read is None:
        return None
    output = copy.copy(target_read)
    output.stats, output.version, output.lineage = {}, None, None
    target = walker.walk(root.trees(_target_field(root))[0])
    names = [str(a.fields.get("name")) for a in target]
    columns = {name: walker.attribute_deps(a) for name, a in zip(names, target, strict=True)}
    lineage(root, walker, columns, target)
    output.lineage = LineageResult({k: d for k, d in columns.items() if d}, walker.dataset)
    output.schema = [
        {"name": a.fields.get("name"), "type": a.fields.get("dataType")} for a in target
    ]
    return output


def _delete_lineage(
    root: Node, walker: LineageWalker, columns: dict[str, Deps], target: list[Node]
) -> None:
    walker.add_dataset(root.trees("condition"), FILTER)


def _merge_lineage(
    root: Node, walker: LineageWalker, columns: dict[str, Deps], target: list[Node]
) -> None:
    own = {str(a.fields.get("name")): a.expr_id() for a in target}
    for source in _first(root, v.MERGE_SOURCE_FIELDS)[:1]:
        walker.walk(source)
    walker.add_dataset(_first(root, v.MERGE_CONDITION_FIELDS), JOIN)
    for field in v.MERGE_CLAUSE_FIELDS:
        for clause in root.trees(field):
            conditions = clause.trees("condition")
            if clause.name in v.MERGE_DELETE_CLAUSES:
                walker.add_dataset(conditions, FILTER)
                continue
            shaped: Deps = {}
            for condition in conditions:
                _merge_deps(shaped, walker.expression_deps(condition, (INDIRECT, CONDITIONAL)))
            for action in clause.children:
                if action.name not in (v.MERGE_ACTION, v.ASSIGNMENT) or not action.children:
                    continue
                name, value = _action_column(action), action.children[-1]
                if name is None or (
                    value.name in v.ATTRIBUTES and value.expr_id() == own.get(name)
                ):
                    continue  # `SET t.c = t.c` (Delta spells out every column): unchanged
                deps = columns.setdefault(name, {})
                _merge_deps(deps, walker.expression_deps(value))
                _merge_deps(deps, shaped)


def _action_column(action: Node) -> str | None:
    """The (top-level) target column a merge action (Delta's) or assignment (Spark's) assigns."""
    if action.name == v.ASSIGNMENT:
        key = action.children[0]
        return str(key.fields.get("name")) if key.name in v.ATTRIBUTES else None
    parts = action.fields.get("targetColNameParts")
    if isinstance(parts, list) and parts:
        return str(parts[0])
    if isinstance(parts, str) and parts.strip("[]"):
        return parts.strip("[]").split(",")[0].strip()
    return None


def _update_lineage(
    root: Node, walker: LineageWalker, columns: dict[str, Deps], target: list[Node]
) -> None:
    shaped: Deps = {}
    for condition in root.trees("condition"):
        _merge_deps(shaped, walker.expression_deps(condition, (INDIRECT, CONDITIONAL)))
    assigned = [(a, e) for a, e in zip(target, root.trees("updateExpressions"), strict=False)]
    for assignment in root.trees("assignments"):  # Paimon's: Spark's `Assignment`s
        key, expression = assignment.children[0], assignment.children[-1]
        assigned += [(key, expression)] if key.name in v.ATTRIBUTES else []
    for attribute, expression in assigned:
        name = str(attribute.fields.get("name"))
        if expression.name in v.ATTRIBUTES and expression.expr_id() == attribute.expr_id():
            continue  # the column is left as it is
        deps = columns.setdefault(name, {})
        _merge_deps(deps, walker.expression_deps(expression))
        _merge_deps(deps, shaped)


def dml_target_read(root: Node, reads: dict[int, Any]) -> DatasetFacts | None:
    """The dataset the target leaf of a DML command reads (found by the extraction)."""
    leaf = _target_leaf(root)
    read = reads.get(id(leaf)) if leaf is not None else None
    return read.datasets[0] if read is not None and read.datasets else None


# -- DataSource V2 tables of a format ----------------------------------------------------------


def delta_table_facts(session: Any, table: Any, lifecycle: str | None) -> DatasetFacts | None:
    """The dataset of a `DeltaTableV2` (a table of Delta's catalog, or a path): its location,
    with the catalog table (if any) as symlink."""
    location = delta.table_location(table)
    if location is None:
        return None
    info = None
    catalog_table = jvm.option(table.catalogTable())
    if catalog_table is not None:
        info = jvm.catalog_table(catalog_table)
        info.location = info.location or location
        info.provider = info.provider or "delta"
    dataset = from_table(location, info.table) if info is not None else from_location(location)
    facts = DatasetFacts(dataset, file_format="delta", table=info, lifecycle=lifecycle)
    facts.source_uri = dataset.namespace
    facts.table_format, facts.format_location = "delta", location
    return facts


def v2_table_facts(
    session: Any,
    table: Any,
    lifecycle: str | None,
    catalog: str | None = None,
    options: Any = None,
    parts: list[str] | None = None,
) -> DatasetFacts | None:
    """The dataset of a DataSource V2 table object of a format plumbline knows, else None
    (`catalog`: the Spark catalog's name; `options`: a read's options; `parts`: the table's
    identifier in the catalog)."""
    name = jvm.simple_name(table)
    if name == v.ROW_LEVEL_TABLE:  # a MERGE / UPDATE / DELETE's view of the table
        table = table.table()
        name = jvm.simple_name(table)
    if paimon.is_table(table):
        if catalog is None or not parts:
            return None
        return paimon.table_facts(session, catalog, parts, table, lifecycle, options)
    if name == v.DELTA_V2_TABLE:
        return delta_table_facts(session, table, lifecycle)
    if name == v.ICEBERG_V2_TABLE and catalog is not None:
        return iceberg.table_facts(session, catalog, table, lifecycle, options)
    return None


def created_table_facts(
    session: Any, catalog: Any, parts: list[str], provider: str | None
) -> DatasetFacts | None:
    """The table a CREATE / REPLACE ... AS SELECT in the session catalog makes when it is a Delta
    table (its provider, else the session catalog is Delta's): named by its location in the
    catalog once created, else by the catalog's default location; in an Iceberg catalog, the
    Iceberg table."""
    if iceberg.is_catalog(session, str(catalog.name())):
        return iceberg.created_table_facts(session, str(catalog.name()), parts, None)
    if paimon.is_catalog(session, str(catalog.name())):
        return paimon.created_table_facts(session, str(catalog.name()), parts, None)
    if str(catalog.name()) != "spark_catalog":
        return None
    if provider is None:
        catalog_class = str(session.conf().get("spark.sql.catalog.spark_catalog", ""))
        provider = "delta" if "delta" in catalog_class.lower() else None
    if (provider or "").lower() != "delta":
        return None
    info = jvm.table_by_name(session, ".".join(parts[-2:]))
    info.provider = "delta"
    dataset = from_table(info.location, info.table)
    facts = DatasetFacts(dataset, file_format="delta", table=info, source_uri=dataset.namespace)
    facts.table_format, facts.format_location = "delta", info.location
    return facts


def save_output(cmd: Any, path: str) -> DatasetFacts | None:
    """A `df.write.format("delta").save(path)` (SaveIntoDataSourceCommand of DeltaDataSource)."""
    if jvm.simple_name(cmd.dataSource()) != v.DELTA_DATA_SOURCE:
        return None
    dataset = from_location(path)
    facts = DatasetFacts(dataset, file_format="delta", source_uri=dataset.namespace)
    facts.table_format, facts.format_location = "delta", path
    return facts


# -- versions ------------------------------------------------------------------------------------


def committed_version(
    session: Any, output: DatasetFacts, start_ms: float | None, end_ms: float
) -> str | None:
    """The version a write running from `start_ms` to `end_ms` committed to a format's table."""
    if output.table_format == "delta" and output.format_location:
        return delta.committed_version(session, output.format_location, start_ms, end_ms)
    if output.table_format == "iceberg" and output.format_table:
        return iceberg.committed_version(session, output.format_table, start_ms, end_ms)
    if output.table_format == "paimon" and output.format_table:
        return paimon.committed_version(
            session, output.format_table, output.format_ref, start_ms, end_ms
        )
    return None


def null_columns(session: Any, outputs: list[DatasetFacts], versions: dict[str, str]) -> None:
    """Set each output's `null_columns` where its format keeps statistics of the files a write
    adds (Delta) and the version the write committed is known (issue 31 §3)."""
    for output in outputs:
        version = versions.get(output.id.key)
        if output.table_format == "delta" and output.format_location and version is not None:
            found = delta.null_columns(session, output.format_location, version)
            if found is not None:
                names = {str(f.get("name")) for f in output.schema}
                output.null_columns = [c for c in found if not names or c in names]


def read_versions(session: Any, inputs: list[DatasetFacts], start_ms: float | None) -> None:
    """Fill in the snapshot each Iceberg or Paimon read scanned that its plan did not name (the
    newest of its branch when the execution started)."""
    scanned = {"iceberg": iceberg.scanned_version, "paimon": paimon.scanned_version}
    for dataset in inputs:
        read = scanned.get(dataset.table_format or "")
        if read is not None and dataset.version is None and dataset.format_table:
            if start_ms is not None:
                dataset.version = read(session, dataset.format_table, dataset.format_ref, start_ms)


# -- maintenance ---------------------------------------------------------------------------------


def maintenance(
    session: Any, cmd: Any, name: str
) -> tuple[DatasetFacts | None, DatasetFacts | None]:
    """(output, input) of a maintenance command: the table it works on; for RESTORE, the table at
    the version it restores as the input."""
    entry = v.OUTPUT_COMMANDS.get(name)
    lifecycle = entry.lifecycle if entry is not None else None
    restore = entry is not None and entry.live == "delta_restore"
    table = cmd.sourceTable() if restore else cmd.child().table()  # a ResolvedTable of the table
    output = v2_table_facts(session, table, lifecycle)
    if output is None or not restore:
        return output, None
    source = copy.copy(output)
    source.lifecycle = None
    source.version = delta.restored_version(session, table, output.format_location or "")
    return output, source


# -- the live handlers of format commands (vocabulary.OUTPUT_COMMANDS) --------------------------


def _dml(ex: _Extraction, lineage: Callable[..., None]) -> DatasetFacts | None:
    target = dml_target_read(ex.root, ex.leaf_reads)
    return dml_output(ex.root, ex.walker, target, lineage)


@live_output("merge")
def _merge(ex: _Extraction) -> DatasetFacts | None:
    return _dml(ex, _merge_lineage)


@live_output("update")
def _update(ex: _Extraction) -> DatasetFacts | None:
    return _dml(ex, _update_lineage)


@live_output("delete")
def _delete(ex: _Extraction) -> DatasetFacts | None:
    return _dml(ex, _delete_lineage)


def _maintained(ex: _Extraction) -> DatasetFacts | None:
    """A format's maintenance command: its table (and what a RESTORE restores), never failing."""
    try:
        output, restored = maintenance(ex.session, ex.analyzed, ex.root.name)
    except Exception:
        log.warning("plumbline cannot read the table of %s", ex.root.name, exc_info=True)
        output, restored = None, None
    ex.inputs = {restored.id.key: restored} if restored is not None else {}
    return output


live_output("delta_maintenance")(_maintained)
live_output("delta_restore")(_maintained)


@live_output("paimon_procedure")
def _paimon_procedure(ex: _Extraction) -> DatasetFacts | None:
    """A Paimon maintenance procedure: its table (a rollback's input: what it restores)."""
    output, restored = paimon.procedure(ex.session, ex.analyzed, ex.sql)
    ex.inputs = {restored.id.key: restored} if restored is not None else {}
    ex.run_command = paimon.procedure_name(ex.analyzed)
    return output


# -- unknown commands ----------------------------------------------------------------------------


def unknown_format_command(analyzed: Any, name: str) -> str | None:
    """The format of a command plumbline does not know from a format's package (logged once)."""
    try:
        full = str(analyzed.getClass().getName())
    except Exception:
        return None
    for prefix, table_format in v.FORMAT_PACKAGES.items():
        if full.startswith(prefix):
            if full not in _warned:
                _warned.add(full)
                log.warning(
                    "plumbline does not know the %s command %s: its reads are captured, "
                    "what it writes is not",
                    table_format,
                    full,
                )
            return table_format
    return None


__all__ = [
    "committed_version",
    "created_table_facts",
    "delta_table_facts",
    "dml_output",
    "dml_target_read",
    "maintenance",
    "read_versions",
    "save_output",
    "unknown_format_command",
    "v2_table_facts",
]
