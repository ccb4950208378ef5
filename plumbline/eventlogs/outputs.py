"""The event-log handlers of output commands, by the name `vocabulary.OUTPUT_COMMANDS` gives them.

A command's entry names its live handler (`plumbline.spark.outputs`) and its event-log handler
(here), or says why a log cannot name what it writes (`no_log`). An event-log handler reads the
write command at the top of an execution's `sparkPlanInfo` (`planinfo.Write`: its arguments as
the plan string gives them) and returns the dataset written and the SaveMode it was written with
(None when the log does not name it); `ApplicationLog._write_output` adds the lifecycle change,
the column lineage, the schema and the metrics.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from plumbline.eventlogs import planinfo
from plumbline.eventlogs.expressions import split_top
from plumbline.eventlogs.planinfo import MODES
from plumbline.spark.surface import (
    CREATE_TABLE_EVENT,
    DatasetFacts,
    DatasetId,
    TableInfo,
    from_jdbc,
    from_location,
)

if TYPE_CHECKING:
    from plumbline.eventlogs.application import ApplicationLog, _Execution

Written = tuple[DatasetFacts | None, str | None]  # the dataset, the SaveMode
LogHandler = Callable[["ApplicationLog", "_Execution", str, list[str], str | None], Written]
LOG_OUTPUTS: dict[str, LogHandler] = {}
_FORMAT_NAMES = {"parquet", "json", "csv", "orc", "text", "avro", "hive", "delta", "iceberg"}


def log_output(name: str) -> Callable[[LogHandler], LogHandler]:
    """Register the event-log handler `name` (the `log` of vocabulary.OUTPUT_COMMANDS entries)."""

    def register(handler: LogHandler) -> LogHandler:
        if name in LOG_OUTPUTS:
            raise ValueError(f"two event-log handlers named {name}")
        LOG_OUTPUTS[name] = handler
        return handler

    return register


@log_output("insert_files")
def _insert_files(
    app: ApplicationLog, execution: _Execution, command: str, args: list[str], mode: str | None
) -> Written:
    if not args:
        return None, mode
    location = args[0]
    file_format = _format_argument(args)
    facts = DatasetFacts(from_location(location), file_format=file_format)
    table = next((planinfo.table_argument(a) for a in args if planinfo.table_argument(a)), None)
    if table is not None:
        facts.table = TableInfo(table[0], table[1], location, file_format)
        facts.table.warehouse = app.warehouse_of(location)
    facts.local_path = _local(location)
    return facts, mode


@log_output("create_table_as_select")
def _create_table_as_select(
    app: ApplicationLog, execution: _Execution, command: str, args: list[str], mode: str | None
) -> Written:
    described = planinfo.argument_after(execution.description, command)
    table = planinfo.table_argument(described[0]) if described else None
    if table is None:
        return None, mode
    mode = next((a for a in described if a in MODES), None)
    facts = DatasetFacts(DatasetId("file", table[1]), table=TableInfo(table[0], table[1], None))
    if mode != "Overwrite":
        change = (CREATE_TABLE_EVENT, (table[0] or "default").lower(), table[1].lower())
        mode = "Create" if change in execution.catalog else None
    return facts, mode


@log_output("save_into_data_source")
def _save_into_data_source(
    app: ApplicationLog, execution: _Execution, command: str, args: list[str], mode: str | None
) -> Written:
    facts, why = _data_source_output(args)
    if why:
        app.unnamed(execution, command, why)
    return facts, mode


def _v2(
    app: ApplicationLog,
    execution: _Execution,
    command: str,
    kind: str,
    parts: list[str] | None,
    schema: str,
) -> Written:
    """The table of a V2 write: named as live capture names a JDBC catalog's table, by the URL
    the log's environment gives the catalog; said so (`unnamedWrites`) when it cannot be."""
    urls = app.jdbc_urls()
    why = ""
    if parts is None:
        why = "the log does not show the table a V2 write wrote"
    elif "JDBC" not in kind:
        why = f"a DataSource V2 table ({kind or 'unknown'}) plumbline does not name from a log"
    elif not urls:
        why = "the log's environment holds no JDBC catalog's URL (spark.sql.catalog.NAME.url)"
    elif len(urls) > 1:
        why = "several JDBC catalogs: the log does not say which one the table is in"
    if why or parts is None:
        app.unnamed(execution, command, why, ".".join(parts or []))
        return None, None
    facts = DatasetFacts(from_jdbc(urls.pop(), ".".join(parts)))
    facts.schema = [{"name": name} for name in planinfo.struct_type_names(schema)]
    return facts, None


@log_output("v2_write")
def _v2_write(
    app: ApplicationLog, execution: _Execution, command: str, args: list[str], mode: str | None
) -> Written:
    for arg in args:  # Iceberg's: `IcebergWrite(table=[catalog.]db.tbl, format=PARQUET)`
        match = re.match(r"^IcebergWrite\(table=([^,()]+),", arg.strip())
        table = [p.strip("`") for p in match.group(1).split(".")] if match else []
        if len(table) < 2:
            continue
        # a CTAS's nested write names no catalog: the only Iceberg one with a warehouse
        name, table = (table[0], table[1:]) if len(table) > 2 else (None, table)
        catalog = app.format_catalog_named(name, "iceberg")
        if catalog is not None:
            return format_table(*catalog, table), None
    found = planinfo.v2_table(args[0]) if args else None
    kind, parts = found if found is not None else ("", None)
    return _v2(app, execution, command, kind, parts, args[0] if args else "")


@log_output("v2_truncate")
def _v2_truncate(
    app: ApplicationLog, execution: _Execution, command: str, args: list[str], mode: str | None
) -> Written:
    """TRUNCATE TABLE of a V2 catalog's table (`TruncateTable JDBCTable(public.t,StructType(...),
    ...), <refresh>`): the table, with its columns, emptied (the entry's lifecycle)."""
    return _v2_write(app, execution, command, args, mode)


@log_output("v2_create_as_select")
def _v2_create_as_select(
    app: ApplicationLog, execution: _Execution, command: str, args: list[str], mode: str | None
) -> Written:
    catalog_class = args[0].split("@", 1)[0] if args else ""
    kind = catalog_class.rsplit(".", 1)[-1]
    parts = [p.strip("`") for p in args[1].split(".")] if len(args) > 1 else None
    found = app.format_catalog(catalog_class) if parts else None
    if found is not None and parts:
        return format_table(*found, parts), None
    return _v2(app, execution, command, kind, parts, "")


def format_table(warehouse: str, table_format: str, parts: list[str]) -> DatasetFacts:
    """A table of a Paimon filesystem catalog (or an Iceberg Hadoop catalog), named as live
    capture names it: its location in the catalog's warehouse (`db.db/tbl`; Iceberg: `db/tbl`),
    the catalog table as symlink; no version (the log holds none)."""
    if table_format == "paimon":
        location = "/".join([warehouse, *(f"{p}.db" for p in parts[:-1]), parts[-1]])
    else:
        location = "/".join([warehouse, *parts])
    dataset = from_location(location)
    table = TableInfo(".".join(parts[:-1]) or None, parts[-1], location, table_format, warehouse)
    return DatasetFacts(dataset, file_format=table_format, table=table)


def _format_argument(args: list[str]) -> str | None:
    for arg in args[1:]:
        if arg.lower() in _FORMAT_NAMES:
            return arg.lower()
    for before, after in zip(args, args[1:], strict=False):
        if after.startswith("[") and "=" in after and not before.startswith(("[", "`")):
            return before.lower()
    return None


def _data_source_output(args: list[str]) -> tuple[DatasetFacts | None, str]:
    """A `SaveIntoDataSourceCommand`'s output from its options, or why it has none."""
    options: dict[str, str] = {}
    for arg in args:
        if arg.startswith("[") and "=" in arg:
            for pair in split_top(arg[1:-1]):
                key, _, value = pair.partition("=")
                options[key.strip().lower()] = value.strip()
    url, table = options.get("url", ""), options.get("dbtable", "")
    if url.startswith("jdbc:") and table:
        return DatasetFacts(from_jdbc(url, table)), ""
    if table and "redacted" in url:
        return None, (
            f"the JDBC URL of table {table} is redacted in the log "
            "(spark.sql.redaction.options.regex, by default (?i)url)"
        )
    if options.get("path"):
        return DatasetFacts(from_location(options["path"])), ""
    return None, ""


def _local(location: str) -> str | None:
    dataset = from_location(location) if location else None
    return dataset.name if dataset is not None and dataset.namespace == "file" else None


__all__ = ["LOG_OUTPUTS", "LogHandler", "Written", "format_table", "log_output"]
