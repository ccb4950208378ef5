"""Delta Lake versions, read from the JVM objects a plan holds (py4j; no Delta import in Python).

- The version a read scans: a Delta read is a `LogicalRelation` whose `HadoopFsRelation.location()`
  is one of Delta's file indexes (`TahoeLogFileIndex`...); it holds the snapshot it was analyzed
  with (`snapshotAtAnalysis`, time travel included). The OpenLineage Spark agent reads the same
  index for its Delta input versions (`DatasetVersionDatasetFacetUtils.extractVersionFromLogicalRelation`).
- The version a write committed: the capture hears of an execution after it ended, when the job
  may already have written the table again, so the table's latest version is no witness. It is
  the newest commit of the table's history (`DeltaLog.history.getHistory(limit)`, newest first)
  whose timestamp falls within the execution's start and end.

Every function returns None (and logs one line) when the JVM does not answer as expected: a
Delta release with other names never fails the job.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from plumbline.spark import vocabulary as v

log = logging.getLogger(__name__)

HISTORY_DEPTH = 20  # commits looked at, newest first, to find the one an execution made
_CLOCK_SLACK_MS = 2  # a commit file's modification time is in whole milliseconds
# actions of one commit whose stats are read (a round trip or two each): a larger commit is not
# judged for all-null columns, so the capture's end of an action stays short
MAX_STATS_ACTIONS = 1000


def scanned_version(location: Any) -> str | None:
    """The Delta version a Delta file index reads (time travel included), or None."""
    try:
        try:
            return str(int(location.snapshotAtAnalysis().version()))
        except Exception:  # an index without an analysis snapshot (a batch of files)
            return str(int(location.version()))
    except Exception as exc:
        log.info("plumbline cannot read the Delta version of a read (%s)", _line(exc))
        return None


def committed_version(session: Any, path: str, start_ms: float | None, end_ms: float) -> str | None:
    """The version an execution running from `start_ms` to `end_ms` committed to the Delta table
    at `path` (the newest commit in that window), or None when it committed none."""
    try:
        delta_log = _jvm_of(session).org.apache.spark.sql.delta.DeltaLog.forTable(session, path)
        limit = _jvm_of(session).scala.Option.apply(HISTORY_DEPTH)
        history = delta_log.history().getHistory(limit)
        for index in range(int(history.size())):
            commit = history.apply(index)
            stamp = int(commit.timestamp().getTime())
            if stamp > end_ms + _CLOCK_SLACK_MS:
                continue  # a later write's commit
            if start_ms is not None and stamp < start_ms - _CLOCK_SLACK_MS:
                return None  # older than the execution: it committed nothing
            return str(int(commit.version().get()))
        return None
    except Exception as exc:
        log.info("plumbline cannot read the Delta version written to %s (%s)", path, _line(exc))
        return None


def null_columns(session: Any, path: str, version: str) -> list[str] | None:
    """The top-level columns null in every row of the files commit `version` of the Delta table
    at `path` added (its `add` actions' stats: `numRecords`, `nullCount`), in the order the stats
    name them; None when the commit added no rows, a file has no stats or the commit has more
    than MAX_STATS_ACTIONS actions. A column a file's stats leave out (Delta keeps them for the
    first 32 columns) is not judged."""
    try:
        delta_log = _jvm_of(session).org.apache.spark.sql.delta.DeltaLog.forTable(session, path)
        changes = delta_log.getChanges(int(version), False)
        if not changes.hasNext():
            return None
        committed = changes.next()
        if int(committed._1()) != int(version):
            return None
        actions = committed._2()
        if int(actions.size()) > MAX_STATS_ACTIONS:
            return None
        records = 0
        nulls: dict[str, None] = {}  # every column the stats name, in order
        judged: set[str] | None = None  # null in every file so far
        for index in range(int(actions.size())):
            action = actions.apply(index)
            if str(action.getClass().getSimpleName()) != v.DELTA_ADD_FILE:
                continue
            text = action.stats()
            if text is None:
                return None
            stats = json.loads(str(text))
            rows = int(stats.get("numRecords", 0))
            counts = {
                k: int(v) for k, v in (stats.get("nullCount") or {}).items() if isinstance(v, int)
            }
            records += rows
            full = {k for k, v in counts.items() if v == rows}
            for k in counts:
                nulls.setdefault(k, None)
            judged = full if judged is None else judged & full
        if not records or judged is None:
            return None
        return [k for k in nulls if k in judged]
    except Exception as exc:
        log.info("plumbline cannot read the Delta statistics of %s (%s)", path, _line(exc))
        return None


def version_at(session: Any, path: str, timestamp_ms: int) -> str | None:
    """The version of the Delta table at `path` that was current at `timestamp_ms`."""
    try:
        jvm = _jvm_of(session)
        delta_log = jvm.org.apache.spark.sql.delta.DeltaLog.forTable(session, path)
        stamp = jvm.java.sql.Timestamp(timestamp_ms)
        commit = delta_log.history().getActiveCommitAtTime(stamp, False, True, False)
        return str(int(commit.version()))
    except Exception as exc:
        log.info("plumbline cannot read the Delta version of %s at a time (%s)", path, _line(exc))
        return None


def table_location(table: Any) -> str | None:
    """The root path of a `DeltaTableV2`."""
    try:
        return str(table.path().toString())
    except Exception as exc:
        log.info("plumbline cannot read a Delta table's path (%s)", _line(exc))
        return None


def restored_version(session: Any, table: Any, path: str) -> str | None:
    """The version a RESTORE's source table (a `DeltaTableV2` with time travel) names."""
    try:
        spec = table.timeTravelOpt()
        if not spec.isDefined():
            return None
        spec = spec.get()
        if spec.version().isDefined():
            return str(int(spec.version().get()))
        if spec.timestamp().isDefined():
            moment = spec.getTimestamp(session.sessionState().conf())
            return version_at(session, path, int(moment.getTime()))
    except Exception as exc:
        log.info("plumbline cannot read the version a RESTORE restores (%s)", _line(exc))
    return None


def _jvm_of(session: Any) -> Any:
    """The py4j JVM view `enable()` bound (Delta's static entry points are reached through it)."""
    from plumbline.spark.jvm import bound_jvm  # jvm.py imports this module

    found = bound_jvm()
    if found is None:
        raise RuntimeError("no JVM bound")
    return found


def _line(exc: BaseException) -> str:
    java = getattr(exc, "java_exception", None)
    text = str(java.toString() if java is not None else exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__
