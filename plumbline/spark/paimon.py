"""Apache Paimon tables, read from the JVM objects a plan holds (py4j; no Paimon import in Python).

- A table of a Paimon catalog (`org.apache.paimon.spark.SparkCatalog`, `SparkGenericCatalog`;
  filesystem warehouse) is a DataSource V2 relation over Paimon's `SparkTable`, whose `table()`
  is the Paimon table (`FileStoreTable`). Its dataset is named by the table's location, with the
  catalog table (`db.tbl`) as symlink in the catalog's warehouse; a system table (`tbl$snapshots`)
  is the table's location with `#snapshots`, and has no version.
- Versions are Paimon snapshot ids. The snapshot a read scans: what the read names (`VERSION AS
  OF` and the `scan.snapshot-id`, `scan.tag-name`, `scan.timestamp-millis` options, on the read or
  on the table Paimon copied for it), else the newest snapshot of its branch when the execution
  started. The snapshot a write committed: the newest snapshot made within the execution's start
  and end (none for a commit that failed).
- Branches (`tbl$branch_dev`) have snapshot ids of their own: such a read or write carries the
  branch as its ref and its version is the branch's snapshot id.

Every function returns None (and logs one line) when the JVM does not answer as expected: a
Paimon release with other names never fails the job.
"""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

from plumbline.spark import jvm
from plumbline.spark import vocabulary as v
from plumbline.spark.datasets import DatasetId, from_location
from plumbline.spark.facts import DatasetFacts

log = logging.getLogger(__name__)

_CLOCK_SLACK_MS = 2  # snapshot and execution times come from the same driver clock, in whole ms
_TIME_TRAVEL = ("scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis")


def _conf(session: Any, key: str) -> str | None:
    value = session.conf().get(key, None)
    return str(value) if value is not None else None


def is_catalog(session: Any, catalog: str) -> bool:
    """Whether the Spark catalog named `catalog` is one of Paimon's."""
    return (_conf(session, f"spark.sql.catalog.{catalog}") or "") in v.PAIMON_CATALOGS


def is_table(table: Any) -> bool:
    """Whether a DataSource V2 table object is Paimon's `SparkTable`."""
    try:
        return str(table.getClass().getName()) == v.PAIMON_V2_TABLE
    except Exception:
        return False


def _warehouse(session: Any, catalog: str) -> str | None:
    warehouse = (_conf(session, f"spark.sql.catalog.{catalog}.warehouse") or "").rstrip("/")
    if not warehouse:
        return None
    return warehouse if ":" in warehouse.split("/", 1)[0] else f"file:{warehouse}"


def _default_location(session: Any, catalog: str, parts: list[str]) -> str | None:
    """A filesystem catalog's place for table `db.tbl`: `<warehouse>/db.db/tbl`."""
    warehouse = _warehouse(session, catalog)
    if warehouse is None or len(parts) < 2:
        return None
    return f"{warehouse}/{parts[-2]}.db/{parts[-1]}"


def _facts(
    session: Any, catalog: str, parts: list[str], location: str, lifecycle: str | None
) -> DatasetFacts:
    location = location.rstrip("/")
    info = jvm.TableInfo(
        ".".join(parts[:-1]) or None, parts[-1], location, "paimon", _warehouse(session, catalog)
    )
    dataset = from_location(location)
    facts = DatasetFacts(dataset, file_format="paimon", table=info, lifecycle=lifecycle)
    facts.source_uri = dataset.namespace
    facts.table_format, facts.format_location = "paimon", location
    facts.format_table = (catalog, *parts)
    return facts


# -- datasets ------------------------------------------------------------------------------------


def table_facts(
    session: Any,
    catalog: str,
    parts: list[str],
    table: Any,
    lifecycle: str | None,
    options: Any = None,
) -> DatasetFacts | None:
    """The dataset of Paimon's `SparkTable` `db.tbl` (`parts`) of catalog `catalog` (read with
    `options`, if any)."""
    try:
        return _table_facts(session, catalog, parts, table, lifecycle, options)
    except Exception as exc:  # a Paimon release with other names: the table, without a version
        log.info("plumbline cannot read a Paimon table (%s)", _line(exc))
        location = _default_location(session, catalog, parts)
        return _facts(session, catalog, parts, location, lifecycle) if location else None


def _table_facts(
    session: Any, catalog: str, parts: list[str], table: Any, lifecycle: str | None, options: Any
) -> DatasetFacts | None:
    paimon = table.table()
    name = parts[-1]
    base, _, suffix = name.partition("$")
    parts = [*parts[:-1], base]
    if suffix and not suffix.startswith("branch_"):  # a system table: `tbl$snapshots`
        location = _default_location(session, catalog, parts)
        if location is None:
            return None
        facts = _facts(session, catalog, parts, location, lifecycle)
        facts.id = DatasetId(facts.id.namespace, f"{facts.id.name}#{suffix}")
        if facts.table is not None:
            facts.table.table = f"{base}${suffix}"
        facts.table_format = facts.format_location = facts.format_table = None
        return facts
    facts = _facts(session, catalog, parts, str(paimon.location().toString()), lifecycle)
    facts.format_ref = _branch(paimon)
    facts.version = _pinned(paimon, options)
    return facts


def _branch(paimon: Any) -> str | None:
    branch = _table_option(paimon, "branch")
    return branch if branch and branch != "main" else None


def _table_option(paimon: Any, key: str) -> str | None:
    value = paimon.options().get(key)
    return str(value) if value is not None else None


def _pinned(paimon: Any, options: Any) -> str | None:
    """The snapshot a read names (its options first, then the table's: time travel)."""
    found: dict[str, str] = {}
    for key in _TIME_TRAVEL:
        value = _table_option(paimon, key)
        if options is not None and options.get(key) is not None:
            value = str(options.get(key))
        if value is not None:
            found[key] = value
    if "scan.snapshot-id" in found:
        return str(int(found["scan.snapshot-id"]))
    if "scan.tag-name" in found:
        return str(int(paimon.tagManager().taggedSnapshot(found["scan.tag-name"]).id()))
    if "scan.timestamp-millis" in found:
        return _at(paimon, int(found["scan.timestamp-millis"]))
    return None


def created_table_facts(
    session: Any, catalog: str, parts: list[str], lifecycle: str | None
) -> DatasetFacts | None:
    """The table a CREATE [OR REPLACE] TABLE [AS SELECT] in a Paimon catalog makes: its location
    once it exists, else the warehouse's `db.db/tbl`."""
    if not is_catalog(session, catalog):
        return None
    try:
        location = str(_load(session, (catalog, *parts)).location().toString())
    except Exception:
        location = _default_location(session, catalog, parts) or ""
    return _facts(session, catalog, parts, location, lifecycle) if location else None


# -- versions ------------------------------------------------------------------------------------


def _load(session: Any, ident: tuple[str, ...], branch: str | None = None) -> Any:
    """The Paimon table `(catalog, *namespace, name)` as it is now (of `branch`, if any)."""
    catalog = session.sessionState().catalogManager().catalog(ident[0])
    name = ".".join(ident[1:]) + (f"$branch_{branch}" if branch else "")
    paimon_ident = jvm.bound_jvm().org.apache.paimon.catalog.Identifier.fromString(name)
    return catalog.paimonCatalog().getTable(paimon_ident)


def _snapshots(paimon: Any) -> list[tuple[int, int]]:
    """(id, commit time in ms) of every snapshot the table still has, oldest first."""
    manager = paimon.snapshotManager()
    latest, earliest = manager.latestSnapshotId(), manager.earliestSnapshotId()
    if latest is None or earliest is None:
        return []
    found = []
    for snapshot_id in range(int(earliest), int(latest) + 1):
        if manager.snapshotExists(snapshot_id):
            found.append((snapshot_id, int(manager.snapshot(snapshot_id).timeMillis())))
    return found


def _at(paimon: Any, time_ms: float) -> str | None:
    """The newest snapshot committed at or before `time_ms`."""
    found = None
    for snapshot_id, stamp in _snapshots(paimon):
        if stamp <= time_ms + _CLOCK_SLACK_MS:
            found = str(snapshot_id)
    return found


def committed_version(
    session: Any, ident: tuple[str, ...], ref: str | None, start_ms: float | None, end_ms: float
) -> str | None:
    """The snapshot an execution running from `start_ms` to `end_ms` committed to branch `ref`
    (the newest snapshot made in that window), or None when it made none."""
    try:
        best = None
        for snapshot_id, stamp in _snapshots(_load(session, ident, ref)):
            if stamp > end_ms + _CLOCK_SLACK_MS:
                continue
            if start_ms is not None and stamp < start_ms - _CLOCK_SLACK_MS:
                continue
            best = str(snapshot_id)
        return best
    except Exception as exc:
        log.info("plumbline cannot read the Paimon snapshot written to %s (%s)", ident, _line(exc))
        return None


def scanned_version(
    session: Any, ident: tuple[str, ...], ref: str | None, start_ms: float
) -> str | None:
    """The snapshot of branch `ref` that was current when the read's execution started."""
    try:
        return _at(_load(session, ident, ref), start_ms)
    except Exception as exc:
        log.info("plumbline cannot read the Paimon snapshot read from %s (%s)", ident, _line(exc))
        return None


# -- procedures ----------------------------------------------------------------------------------

_warned: set[str] = set()


def procedure_name(analyzed: Any) -> str | None:
    """The class of a `PaimonCallCommand`'s procedure (`CompactProcedure`...)."""
    try:
        return jvm.simple_name(analyzed.procedure())
    except Exception:
        return None


def procedure(
    session: Any, analyzed: Any, sql: str | None
) -> tuple[DatasetFacts | None, DatasetFacts | None]:
    """(output, input) of a `CALL catalog.sys.name(...)` of a Paimon maintenance procedure: the
    table it names; a rollback's input is the table at the snapshot (or tag) it restores. A
    procedure plumbline does not know (tags, branches...): nothing, and one log line."""
    name = procedure_name(analyzed)
    if name is None:
        return None, None
    if name not in v.PAIMON_PROCEDURES:
        if name not in _warned:
            _warned.add(name)
            log.warning(
                "plumbline does not know the procedure %s: what it changes is not captured", name
            )
        return None, None
    try:
        args = _arguments(analyzed)
        catalog, table = _procedure_catalog(analyzed.procedure(), sql), args.get("table")
        if catalog is None or not isinstance(table, str):
            return None, None
        parts = [p.strip("`") for p in table.split(".")]
        output = created_table_facts(session, catalog, parts, v.PAIMON_PROCEDURES[name])
        if output is None or name not in v.PAIMON_ROLLBACKS:
            return output, None
        restored = copy.copy(output)
        restored.lifecycle = None
        restored.version = _restored(session, output, args)
        return output, restored
    except Exception as exc:
        log.info("plumbline cannot read the Paimon procedure %s (%s)", name, _line(exc))
        return None, None


def _procedure_catalog(proc: Any, sql: str | None) -> str | None:
    """The catalog a procedure was called in: its `tableCatalog` (Paimon's BaseProcedure), else
    the `CALL catalog.sys.` of the statement."""
    try:
        found = jvm.inherited_field(proc, "tableCatalog")
        if found is not None:
            return str(found.name())
    except Exception:
        log.debug("no tableCatalog field on %s", proc, exc_info=True)
    match = re.search(r"(?i)\bCALL\s+`?([\w-]+)`?\.`?sys`?\.", sql or "")
    return match.group(1) if match else None


def _arguments(analyzed: Any) -> dict[str, Any]:
    """A `PaimonCallCommand`'s arguments by parameter name (literals only)."""
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


def _restored(session: Any, output: DatasetFacts, args: dict[str, Any]) -> str | None:
    """The snapshot a rollback restores: its `version` (a snapshot id, else a tag's name)."""
    version = str(args.get("version") or "")
    if version.isdigit():
        return version
    if not version or output.format_table is None:
        return None
    paimon = _load(session, output.format_table)
    return str(int(paimon.tagManager().taggedSnapshot(version).id()))


def _line(exc: BaseException) -> str:
    java = getattr(exc, "java_exception", None)
    text = str(java.toString() if java is not None else exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


__all__ = [
    "committed_version",
    "created_table_facts",
    "is_catalog",
    "is_table",
    "procedure",
    "procedure_name",
    "scanned_version",
    "table_facts",
]
