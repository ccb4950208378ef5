"""Apache Iceberg tables, read from the JVM objects a plan holds (py4j; no Iceberg import in Python).

- A table of an Iceberg catalog (`SparkCatalog`, `SparkSessionCatalog`; Hadoop, JDBC, REST, Hive)
  is a DataSource V2 relation over a `SparkTable`, whose `table()` is the Iceberg table. Its
  dataset is named by the table's location, with the catalog table (`db.tbl`) as symlink in the
  catalog's warehouse (Hadoop) or URI (other catalogs); a metadata table (`db.tbl.snapshots`) is
  the table's location with `#snapshots`, and has no version.
- The snapshot a read scans: what the read names (`VERSION AS OF` / `TIMESTAMP AS OF`: the
  `SparkTable`'s `snapshotId()`; the `snapshot-id`, `as-of-timestamp` and `tag` read options),
  else the newest snapshot of its branch (`branch()`, the `branch` option; main by default) when
  the execution started: the capture reads it after the execution, when the table object may
  already hold the job's next commit (a MERGE reads the snapshot before its own).
- The snapshot a write committed: the newest snapshot of the table whose timestamp falls within
  the execution's start and end (none for a commit that failed or a metadata-only change, such as
  a rollback, which sets the current snapshot without making one).
- Maintenance procedures (`CALL catalog.system.rewrite_data_files(...)`): a named run on the table
  they name, no data lineage; a rollback's input is the table at the snapshot it restores.

Every function returns None (and logs one line) when the JVM does not answer as expected: an
Iceberg release with other names never fails the job.
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

from plumbline.spark import jvm
from plumbline.spark import vocabulary as v
from plumbline.spark.datasets import DatasetId, from_location, strip_credentials
from plumbline.spark.facts import DatasetFacts

log = logging.getLogger(__name__)

_CLOCK_SLACK_MS = 2  # snapshot and execution times come from the same driver clock, in whole ms
_warned: set[str] = set()


# -- catalogs ------------------------------------------------------------------------------------


def _conf(session: Any, key: str) -> str | None:
    value = session.conf().get(key, None)
    return str(value) if value is not None else None


def is_catalog(session: Any, catalog: str) -> bool:
    """Whether the Spark catalog named `catalog` is one of Iceberg's."""
    return (_conf(session, f"spark.sql.catalog.{catalog}") or "") in v.ICEBERG_CATALOGS


def _symlink_namespace(session: Any, catalog: str) -> str | None:
    """The namespace of a table's symlink: the catalog's URI (JDBC, REST, Hive), else its warehouse."""
    prefix = f"spark.sql.catalog.{catalog}"
    uri, warehouse = _conf(session, f"{prefix}.uri"), _conf(session, f"{prefix}.warehouse")
    if uri and (_conf(session, f"{prefix}.type") or "") != "hadoop":
        return strip_credentials(uri)
    if warehouse:
        warehouse = warehouse.rstrip("/")
        return warehouse if ":" in warehouse.split("/", 1)[0] else f"file:{warehouse}"
    return None


def _load(session: Any, ident: tuple[str, ...]) -> Any:
    """The Iceberg table `(catalog, *namespace, name)`, refreshed."""
    catalog = session.sessionState().catalogManager().catalog(ident[0])
    bound = jvm.bound_jvm()
    table = catalog.icebergCatalog().loadTable(
        bound.org.apache.iceberg.catalog.TableIdentifier.parse(".".join(ident[1:]))
    )
    table.refresh()
    return table


# -- datasets ------------------------------------------------------------------------------------


def table_facts(
    session: Any, catalog: str, table: Any, lifecycle: str | None, options: Any = None
) -> DatasetFacts | None:
    """The dataset of a `SparkTable` of catalog `catalog` (read with `options`, if any)."""
    try:
        return _table_facts(session, catalog, table, lifecycle, options)
    except Exception as exc:
        log.info("plumbline cannot read an Iceberg table (%s)", _line(exc))
        return None


def _table_facts(
    session: Any, catalog: str, table: Any, lifecycle: str | None, options: Any
) -> DatasetFacts:
    ice = table.table()
    location = str(ice.location()).rstrip("/")
    parts = [p for p in str(ice.name()).split(".") if p]
    if parts and parts[0] == catalog:
        parts = parts[1:]
    kind = _metadata_kind(ice)
    dataset = from_location(location)
    if kind is not None:
        dataset = DatasetId(dataset.namespace, f"{dataset.name}#{kind}")
        parts = parts[:-1] if parts and parts[-1].lower() == kind else parts
    info = jvm.TableInfo(
        ".".join(parts[:-1]) or None,
        parts[-1] + (f".{kind}" if kind else ""),
        location,
        "iceberg",
        _symlink_namespace(session, catalog),
    )
    facts = DatasetFacts(dataset, file_format="iceberg", table=info, lifecycle=lifecycle)
    facts.source_uri = dataset.namespace
    if kind is not None:
        return facts
    facts.table_format, facts.format_location = "iceberg", location
    facts.format_table = (catalog, *parts)
    facts.version, facts.format_ref = _pinned(ice, table, options)
    return facts


def _metadata_kind(ice: Any) -> str | None:
    """`snapshots`, `history`... for a metadata table, None for the table itself."""
    try:
        return str(ice.metadataTableType().name()).lower()
    except Exception:
        return None


def _option(options: Any, key: str) -> str | None:
    if options is None:
        return None
    value = options.get(key)
    return str(value) if value is not None else None


def _pinned(ice: Any, table: Any, options: Any) -> tuple[str | None, str | None]:
    """(snapshot a read names, branch or tag it reads): time travel, read options, refs."""
    named = table.snapshotId()
    if named is not None:
        return str(int(named)), None
    snapshot = _option(options, "snapshot-id")
    if snapshot is not None:
        return str(int(snapshot)), None
    stamp = _option(options, "as-of-timestamp")
    if stamp is not None:
        return _at(ice, None, int(stamp)), None
    tag = _option(options, "tag")
    if tag is not None:
        return _ref_head(ice, tag), tag
    branch = table.branch()  # a String (None: main)
    ref = _option(options, "branch") or (str(branch) if branch else None)
    return None, ref


def _ref_head(ice: Any, ref: str) -> str | None:
    found = ice.refs().get(ref)
    return str(int(found.snapshotId())) if found is not None else None


def _at(ice: Any, ref: str | None, time_ms: float) -> str | None:
    """The snapshot of branch `ref` (main: the table's snapshot log) current at `time_ms`."""
    limit = time_ms + _CLOCK_SLACK_MS
    if ref in (None, "main"):
        found = None
        for entry in ice.history():
            if int(entry.timestampMillis()) <= limit:
                found = str(int(entry.snapshotId()))
        return found
    head = ice.refs().get(ref)
    snapshot = ice.snapshot(head.snapshotId()) if head is not None else None
    while snapshot is not None and int(snapshot.timestampMillis()) > limit:
        parent = snapshot.parentId()
        snapshot = ice.snapshot(parent) if parent is not None else None
    return str(int(snapshot.snapshotId())) if snapshot is not None else None


def created_table_facts(
    session: Any, catalog: str, parts: list[str], lifecycle: str | None
) -> DatasetFacts | None:
    """The table a CREATE [OR REPLACE] TABLE [AS SELECT] in an Iceberg catalog makes (or a DDL
    command such as TRUNCATE changes): loaded once it exists, else at the catalog's default
    location (the warehouse's `ns/…/table`)."""
    if not is_catalog(session, catalog):
        return None
    try:
        spark_catalog = session.sessionState().catalogManager().catalog(catalog)
        bound = jvm.bound_jvm()
        ident = bound.org.apache.iceberg.catalog.TableIdentifier.parse(".".join(parts))
        if spark_catalog.icebergCatalog().tableExists(ident):
            table = spark_catalog.icebergCatalog().loadTable(ident)
            location = str(table.location())
        else:
            warehouse = (_conf(session, f"spark.sql.catalog.{catalog}.warehouse") or "").rstrip("/")
            if not warehouse:
                return None
            location = "/".join([warehouse, *parts])
    except Exception as exc:
        log.info("plumbline cannot read the Iceberg table %s (%s)", ".".join(parts), _line(exc))
        return None
    location = location.rstrip("/")
    dataset = from_location(location)
    info = jvm.TableInfo(
        ".".join(parts[:-1]) or None,
        parts[-1],
        location,
        "iceberg",
        _symlink_namespace(session, catalog),
    )
    facts = DatasetFacts(dataset, file_format="iceberg", table=info, lifecycle=lifecycle)
    facts.source_uri = dataset.namespace
    facts.table_format, facts.format_location = "iceberg", location
    facts.format_table = (catalog, *parts)
    return facts


# -- versions ------------------------------------------------------------------------------------


def committed_version(
    session: Any, ident: tuple[str, ...], start_ms: float | None, end_ms: float
) -> str | None:
    """The snapshot an execution running from `start_ms` to `end_ms` committed (the newest
    snapshot of the table made in that window), or None when it made none."""
    try:
        ice = _load(session, ident)
        best: tuple[int, str] | None = None
        iterator = ice.snapshots().iterator()
        while iterator.hasNext():
            snapshot = iterator.next()
            stamp = int(snapshot.timestampMillis())
            if stamp > end_ms + _CLOCK_SLACK_MS:
                continue
            if start_ms is not None and stamp < start_ms - _CLOCK_SLACK_MS:
                continue
            if best is None or stamp >= best[0]:
                best = (stamp, str(int(snapshot.snapshotId())))
        return best[1] if best is not None else None
    except Exception as exc:
        log.info("plumbline cannot read the Iceberg snapshot written to %s (%s)", ident, _line(exc))
        return None


def scanned_version(
    session: Any, ident: tuple[str, ...], ref: str | None, start_ms: float
) -> str | None:
    """The snapshot of branch `ref` of the table that was current when the read's execution
    started (`start_ms`)."""
    try:
        return _at(_load(session, ident), ref, start_ms)
    except Exception as exc:
        log.info("plumbline cannot read the Iceberg snapshot read from %s (%s)", ident, _line(exc))
        return None


# -- procedures ----------------------------------------------------------------------------------


def procedure_name(analyzed: Any) -> str | None:
    """The class of a `Call`'s procedure (`RewriteDataFilesProcedure`...)."""
    try:
        return jvm.simple_name(analyzed.procedure())
    except Exception:
        return None


def procedure(
    session: Any, analyzed: Any, sql: str | None
) -> tuple[DatasetFacts | None, DatasetFacts | None]:
    """(output, input) of a `CALL` of an Iceberg procedure: the table it names; a rollback's
    input is the table at the snapshot it restores. A procedure plumbline does not know (it may
    only read, as `ancestors_of`): nothing, and one log line."""
    name = procedure_name(analyzed)
    if name is None:
        return None, None
    if name not in v.ICEBERG_PROCEDURES:
        if name not in _warned:
            _warned.add(name)
            log.warning(
                "plumbline does not know the procedure %s: what it changes is not captured", name
            )
        return None, None
    try:
        args = _arguments(analyzed)
        catalog = _procedure_catalog(session, analyzed.procedure(), sql)
        table = args.get("table")
        if catalog is None or not isinstance(table, str):
            return None, None
        parts = [p.strip("`") for p in table.split(".")]
        if len(parts) > 1 and is_catalog(session, parts[0]):
            catalog, parts = parts[0], parts[1:]
        output = created_table_facts(session, catalog, parts, v.ICEBERG_PROCEDURES.get(name))
        if output is None or name not in v.ICEBERG_ROLLBACKS:
            return output, None
        restored = copy.copy(output)
        restored.lifecycle = None
        restored.version = _restored(session, output, name, args)
        return output, restored
    except Exception as exc:
        log.info("plumbline cannot read the Iceberg procedure %s (%s)", name, _line(exc))
        return None, None


def _arguments(analyzed: Any) -> dict[str, Any]:
    """A `Call`'s arguments by parameter name (literals only)."""
    parameters = [str(p.name()) for p in analyzed.procedure().parameters()]
    found: dict[str, Any] = {}
    for name, expr in zip(parameters, jvm.scala_seq(analyzed.args()), strict=False):
        try:
            value = expr.value()
        except Exception:
            continue
        if value is not None:
            found[name] = value if isinstance(value, int) else str(value)
    return found


def _procedure_catalog(session: Any, proc: Any, sql: str | None) -> str | None:
    """The catalog a procedure was called in: its `tableCatalog` (Iceberg's BaseProcedure), else
    the `CALL catalog.system.` of the statement."""
    try:
        cls = proc.getClass()
        while cls is not None and str(cls.getSimpleName()) != v.ICEBERG_BASE_PROCEDURE:
            cls = cls.getSuperclass()
        if cls is not None:
            field = cls.getDeclaredField("tableCatalog")
            field.setAccessible(True)
            return str(field.get(proc).name())
    except Exception:
        log.debug("no tableCatalog field on %s", proc, exc_info=True)
    match = re.search(r"(?i)\bCALL\s+`?([\w-]+)`?\.`?system`?\.", sql or "")
    return match.group(1) if match else None


def _restored(session: Any, output: DatasetFacts, name: str, args: dict[str, Any]) -> str | None:
    snapshot = args.get("snapshot_id")
    if snapshot is not None:
        return str(int(snapshot))
    ident = output.format_table
    if ident is None:
        return None
    ice = _load(session, ident)
    if args.get("ref"):
        return _ref_head(ice, str(args["ref"]))
    stamp = args.get("timestamp")
    if stamp is not None:  # a TimestampType literal: microseconds
        return _at(ice, None, int(stamp) / 1000 - _CLOCK_SLACK_MS)
    return None


def _line(exc: BaseException) -> str:
    java = getattr(exc, "java_exception", None)
    text = str(java.toString() if java is not None else exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


__all__ = [
    "committed_version",
    "created_table_facts",
    "is_catalog",
    "procedure",
    "procedure_name",
    "scanned_version",
    "table_facts",
]
