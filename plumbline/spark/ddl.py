"""DDL that changes a dataset's life: CREATE, DROP, TRUNCATE, ALTER ... RENAME / ADD COLUMNS.

Spark reports executions to the capture asynchronously: when a DDL is described, the statements
that followed it may already have renamed or dropped its table, so the catalog is no reliable
witness of the table's state at the time of the DDL. That state is taken from the command's own
plan where it holds it (CREATE: the whole table; ADD COLUMNS: the new columns), then from
`TableMemory` (what this capture saw of the table's earlier changes), and only then from the
catalog. `IF [NOT] EXISTS` statements change a dataset only when Spark's catalog posted the matching
event during the execution (`DatasetFacts.needs_catalog_event`, checked by the run tracker).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from plumbline.spark import iceberg, jvm
from plumbline.spark.datasets import from_jdbc, from_table
from plumbline.spark.facts import ActionFacts, DatasetFacts
from plumbline.spark.outputs import live_output
from plumbline.spark.plan import Node
from plumbline.spark.vocabulary import (
    CREATE_TABLE_COLUMNS,
    CREATE_TABLE_EVENT,
    CREATE_TABLE_SCHEMA,
    DEFINING_COMMANDS,
    DROP_TABLE_EVENT,
    JDBC_TABLE_CATALOG,
)
from plumbline.spark.vocabulary import DDL_COMMANDS as DDL_COMMANDS  # re-exported

if TYPE_CHECKING:
    from plumbline.spark.extract import _Extraction

log = logging.getLogger(__name__)

SESSION_CATALOG = "spark_catalog"


@dataclass
class TableState:
    """Where a table's data lives and its columns, as last seen by the capture."""

    info: jvm.TableInfo
    schema: list[dict[str, Any]]


class TableMemory:
    """The last known state of each session-catalog table this capture saw change (bounded)."""

    def __init__(self, limit: int = 10_000) -> None:
        self._tables: dict[str, TableState] = {}
        self._limit = limit

    @staticmethod
    def _key(database: str | None, table: str) -> str:
        return f"{database or 'default'}.{table}".lower()

    def get(self, database: str | None, table: str) -> TableState | None:
        """The remembered state of `database.table`, or None."""
        return self._tables.get(self._key(database, table))

    def forget(self, changes: set[tuple[str, str, str]]) -> None:
        """Drop what is known of tables that Spark's catalog reports changed (kind, db, table)."""
        for _, database, table in changes:
            self._tables.pop(self._key(database, table), None)

    def remember(
        self, facts: ActionFacts, changes: set[tuple[str, str, str]] | None = None
    ) -> None:
        """Record what a finished action did to the tables it defined, renamed or dropped.

        `changes` are the catalog's events of the action: tables changed by a statement the
        capture does not model (ALTER TABLE ... CHANGE COLUMN...) are forgotten.
        """
        if facts.command not in DEFINING_COMMANDS:
            self.forget(changes or set())
            return
        if facts.error is not None:
            return
        for output in facts.outputs:
            if output.table is None:
                continue
            moved = output.previous_table
            if moved is not None:
                self._tables.pop(self._key(moved.database, moved.table), None)
            key = self._key(output.table.database, output.table.table)
            self._tables.pop(key, None)
            if output.lifecycle != "DROP" and output.schema:
                self._tables[key] = TableState(output.table, output.schema)
        while len(self._tables) > self._limit:
            self._tables.pop(next(iter(self._tables)))


def _json_fields(fields: Any) -> list[dict[str, Any]]:
    """StructFields (a list, or a StructType) from a plan's JSON as schema_fields-style dicts."""
    if isinstance(fields, dict):
        fields = fields.get("fields")
    if not isinstance(fields, list):
        return []
    return [
        {"name": f.get("name"), "type": f.get("type", f.get("dataType"))}
        for f in fields
        if isinstance(f, dict)
    ]


def _identifier(value: Any) -> tuple[str | None, str] | None:
    """(database, table) of a TableIdentifier in the plan's JSON."""
    if not isinstance(value, dict) or not value.get("table"):
        return None
    database = value.get("database")
    return (str(database) if database else None), str(value["table"])


def _name_parts(seq: Any) -> list[str]:
    """A Scala Seq[String] (a multi-part name) as a list, in one round trip."""
    return [p for p in str(seq.mkString("\u0000")).split("\u0000") if p]


def planned_table(session: Any, cmd: Any, table: Any) -> jvm.TableInfo | None:
    """The TableInfo of the CatalogTable of a CREATE or CREATE ... AS SELECT command.

    From the plan's JSON (`table`), which lacks the location: an external table's is read from
    the command (`cmd.table()`), a managed table's is the catalog's default path.
    """
    named = _identifier(table.get("identifier")) if isinstance(table, dict) else None
    if named is None or not isinstance(table, dict):
        return None
    info = jvm.default_table(session, *named)
    kind = table.get("tableType")
    if isinstance(kind, dict) and kind.get("name") == "EXTERNAL":
        location = jvm.option(cmd.table().storage().locationUri())
        info.location = str(location) if location is not None else info.location
    provider = table.get("provider")
    info.provider = str(provider) if isinstance(provider, str) else None
    return info


class _Ddl:
    def __init__(self, session: Any, cmd: Any, root: Node, memory: TableMemory) -> None:
        self.session, self.cmd, self.root, self.memory = session, cmd, root, memory
        self._catalog: Any = None

    @property
    def catalog(self) -> Any:
        if self._catalog is None:
            self._catalog = self.session.sessionState().catalog()
        return self._catalog

    def default_info(self, database: str | None, table: str) -> jvm.TableInfo:
        """A managed table's identity and location, computed (the table need not exist)."""
        return jvm.default_table(self.session, database, table)

    def state(self, database: str | None, table: str) -> TableState:
        """The table as the capture last saw it; else as the catalog has it now; else computed."""
        known = self.memory.get(database, table)
        if known is not None:
            return TableState(jvm.TableInfo(**vars(known.info)), [dict(f) for f in known.schema])
        try:
            ident = jvm._table_identifier(database, table)
            if self.catalog.tableExists(ident):
                metadata = self.catalog.getTableMetadata(ident)
                return TableState(jvm.catalog_table(metadata), jvm.schema_fields(metadata))
        except Exception:
            log.debug("cannot read table %s from the catalog", table, exc_info=True)
        return TableState(self.default_info(database, table), [])

    def facts(self, state: TableState, lifecycle: str) -> DatasetFacts:
        facts = DatasetFacts(
            from_table(state.info.location, state.info.table), file_format=state.info.provider
        )
        facts.table, facts.lifecycle, facts.source_uri = state.info, lifecycle, facts.id.namespace
        facts.schema = state.schema if lifecycle != "DROP" else []
        return facts

    # the commands -------------------------------------------------------------------------------

    def create(self) -> DatasetFacts | None:
        table = self.root.fields.get("table")
        info = planned_table(self.session, self.cmd, table)
        if info is None or not isinstance(table, dict):
            return None
        facts = self.facts(TableState(info, _json_fields(table.get("schema"))), "CREATE")
        if self.root.fields.get("ignoreIfExists") is True:
            facts.needs_catalog_event = (CREATE_TABLE_EVENT, info.database or "default", info.table)
        return facts

    def add_columns(self) -> DatasetFacts | None:
        named = _identifier(self.root.fields.get("table"))
        if named is None:
            return None
        state = self.state(*named)
        present = {str(f.get("name")).lower() for f in state.schema}
        added = _json_fields(self.root.fields.get("colsToAdd"))
        # a catalog read may already show the added columns: add only those it lacks
        state.schema += [f for f in added if str(f.get("name")).lower() not in present]
        return self.facts(state, "ALTER")

    def truncate(self) -> DatasetFacts | None:
        named = _identifier(self.root.fields.get("tableName"))
        return self.facts(self.state(*named), "TRUNCATE") if named else None

    def rename(self) -> DatasetFacts | None:
        old = _identifier(self.root.fields.get("oldName"))
        new = _identifier(self.root.fields.get("newName"))
        if old is None or new is None:
            return None
        before = self.state(*old)
        database = new[0] or before.info.database
        managed = before.info.location == self.default_info(*old).location
        after = self.default_info(database, new[1])
        if not managed:  # an external table keeps its files where they are
            after.location = before.info.location
        after.provider = before.info.provider
        facts = self.facts(TableState(after, before.schema), "RENAME")
        facts.previous = from_table(before.info.location, before.info.table)
        facts.previous_table = before.info
        return facts

    def drop(self) -> DatasetFacts | None:
        """DROP TABLE as a V1 command (spark.sql.legacy.useV1Command)."""
        named = _identifier(self.root.fields.get("tableName"))
        return self._dropped(named) if named is not None else None

    def v2_drop(self) -> DatasetFacts | None:
        child = self.cmd.child()
        catalog, ident = str(child.catalog().name()), child.identifier()
        parts = [*(str(p) for p in ident.namespace()), str(ident.name())]
        if catalog != SESSION_CATALOG:
            return v2_catalog_facts(self.session, catalog, parts, "DROP")
        return self._dropped(((parts[-2] if len(parts) > 1 else None), parts[-1]))

    def _dropped(self, named: tuple[str | None, str]) -> DatasetFacts:
        facts = self.facts(self.state(*named), "DROP")
        if self.root.fields.get("ifExists") is True and facts.table is not None:
            database = facts.table.database or "default"
            facts.needs_catalog_event = (DROP_TABLE_EVENT, database, facts.table.table)
        return facts

    def v2_truncate(self) -> DatasetFacts | None:
        """TRUNCATE TABLE of a DataSource V2 catalog's table (a session catalog table's runs as
        `TruncateTableCommand`): the table with its columns, emptied (an Iceberg table by its
        location, with the snapshot the truncation committed)."""
        catalog, parts, schema = _v2_table(self.cmd.table())
        facts = v2_catalog_facts(self.session, catalog, parts, "TRUNCATE")
        if facts is None:
            facts = iceberg.created_table_facts(self.session, catalog, parts, "TRUNCATE")
        if facts is not None:
            facts.schema = schema
        return facts

    def v2_add_columns(self) -> DatasetFacts | None:
        catalog, parts, schema = _v2_table(self.cmd.table())
        facts = v2_catalog_facts(self.session, catalog, parts, "ALTER")
        if facts is not None:
            for column in jvm.scala_seq(self.cmd.columnsToAdd()):  # null in the plan's JSON
                kind = json.loads(str(column.dataType().json()))
                schema.append({"name": str(column.colName()), "type": kind})
            facts.schema = schema
        return facts

    def v2_rename(self) -> DatasetFacts | None:
        catalog, parts, schema = _v2_table(self.cmd.child())
        new = _name_parts(self.cmd.newName())
        target = new if len(new) > 1 else [*parts[:-1], *new]  # a bare name stays in its schema
        facts = v2_catalog_facts(self.session, catalog, target, "RENAME")
        before = v2_catalog_facts(self.session, catalog, parts, None)
        if facts is not None and before is not None:
            facts.schema, facts.previous = schema, before.id
        return facts

    def v2_create(self) -> DatasetFacts | None:
        child = self.cmd.children().apply(0)
        ident = child.identifier()
        parts = [*(str(p) for p in ident.namespace()), str(ident.name())]
        catalog = str(child.catalog().name())
        facts = v2_catalog_facts(self.session, catalog, parts, "CREATE")
        if facts is None and iceberg.is_catalog(self.session, catalog):
            facts = iceberg.created_table_facts(self.session, catalog, parts, "CREATE")
        elif facts is None and catalog == SESSION_CATALOG:  # a V2 session catalog (Delta's)
            facts = self._session_v2_create(parts)
        if facts is not None:
            facts.schema = _create_table_fields(self.root)
        return facts

    def _session_v2_create(self, parts: list[str]) -> DatasetFacts:
        """A CREATE TABLE in a V2 session catalog (Delta's `DeltaCatalog`): the table by its
        location (the catalog's, else its default one); a Delta table's version is read at the end."""
        state = self.state(parts[-2] if len(parts) > 1 else None, parts[-1])
        provider = jvm.option(self.cmd.tableSpec().provider())
        state.info.provider = str(provider) if provider is not None else state.info.provider
        facts = self.facts(state, "CREATE")
        if (state.info.provider or "").lower() == "delta":
            facts.table_format, facts.format_location = "delta", state.info.location
        return facts


def _create_table_fields(root: Node) -> list[dict[str, Any]]:
    """The columns of a V2 `CreateTable`: `ColumnDefinition` trees (Spark 4) or a StructType (3.5)."""
    columns = root.trees(CREATE_TABLE_COLUMNS)
    if columns:
        return [{"name": c.fields.get("name"), "type": c.fields.get("dataType")} for c in columns]
    return _json_fields(root.fields.get(CREATE_TABLE_SCHEMA))


def _v2_table(resolved: Any) -> tuple[str, list[str], list[dict[str, Any]]]:
    """(catalog, name parts, schema at analysis time) of a ResolvedTable."""
    ident = resolved.identifier()
    parts = [*(str(p) for p in ident.namespace()), str(ident.name())]
    return str(resolved.catalog().name()), parts, jvm.schema_fields(resolved.table())


def v2_catalog_facts(
    session: Any, catalog: str, parts: list[str], lifecycle: str | None
) -> DatasetFacts | None:
    """A table of a DataSource V2 catalog other than the session's; JDBC catalogs only."""
    conf = session.conf()
    prefix = f"spark.sql.catalog.{catalog}"
    if JDBC_TABLE_CATALOG not in str(conf.get(prefix, "")):
        return None
    url = str(conf.get(f"{prefix}.url", ""))
    if not url:
        return None
    dataset = from_jdbc(url, ".".join(parts))
    return DatasetFacts(dataset, source_uri=dataset.namespace, lifecycle=lifecycle)


def _ddl(ex: _Extraction) -> _Ddl:
    return _Ddl(ex.session, ex.analyzed, ex.root, ex.memory)


# the live handlers of DDL commands (vocabulary.OUTPUT_COMMANDS)


@live_output("ddl_create")
def _create(ex: _Extraction) -> DatasetFacts | None:
    return _ddl(ex).create()


@live_output("ddl_v2_create")
def _v2_create(ex: _Extraction) -> DatasetFacts | None:
    return _ddl(ex).v2_create()


@live_output("ddl_add_columns")
def _add_columns(ex: _Extraction) -> DatasetFacts | None:
    return _ddl(ex).add_columns()


@live_output("ddl_v2_add_columns")
def _v2_add_columns(ex: _Extraction) -> DatasetFacts | None:
    return _ddl(ex).v2_add_columns()


@live_output("ddl_truncate")
def _truncate(ex: _Extraction) -> DatasetFacts | None:
    return _ddl(ex).truncate()


@live_output("ddl_v2_truncate")
def _v2_truncate(ex: _Extraction) -> DatasetFacts | None:
    return _ddl(ex).v2_truncate()


@live_output("ddl_rename")
def _rename(ex: _Extraction) -> DatasetFacts | None:
    return _ddl(ex).rename()


@live_output("ddl_v2_rename")
def _v2_rename(ex: _Extraction) -> DatasetFacts | None:
    return _ddl(ex).v2_rename()


@live_output("ddl_drop")
def _drop(ex: _Extraction) -> DatasetFacts | None:
    return _ddl(ex).drop()


@live_output("ddl_v2_drop")
def _v2_drop(ex: _Extraction) -> DatasetFacts | None:
    return _ddl(ex).v2_drop()
