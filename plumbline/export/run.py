"""Writing every lineage table to a folder, whole the first time, then incrementally.

Layout (``OUT``)::

    _plumbline_export.json                       what was exported, when, in which format
    table_lineage/event_date=2024-01-01/part-0.parquet    history tables, one file per day
    table_lineage_edges/part-0.parquet                     current-state tables, one file

Run again, an export rewrites the days of history whose runs were written or pruned since the
last one (a day's rows are the store's, so a pruned run's rows leave with it), and rewrites the
current-state tables whole. Each file is moved into place once complete.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from plumbline.export.errors import ExportError
from plumbline.export.writers import EXTENSIONS, FORMATS, FileWriter, open_writer
from plumbline.lineage_tables import HISTORY, TABLES
from plumbline.store.read import sql_tables

STATE_FILE = "_plumbline_export.json"
PARTITION = "event_date"
# a write that started before an export but committed after it is caught by the next one
OVERLAP = timedelta(minutes=5)

Progress = Callable[[str, int], None]  # (table, rows written so far)


@dataclass
class ExportResult:
    """What an export wrote."""

    incremental: bool
    rows: dict[str, int] = field(default_factory=dict)  # per table
    files: int = 0
    removed: int = 0  # day partitions that no longer have rows
    seconds: float = 0.0


def _load_state(out: Path) -> dict[str, Any] | None:
    path = out / STATE_FILE
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        datetime.fromisoformat(state["watermark"])
        return dict(state)
    except (ValueError, KeyError, TypeError):
        raise ExportError(
            f"{path} is not a plumbline export state file: remove it or use --full"
        ) from None


def _save_state(out: Path, state: dict[str, Any]) -> None:
    temporary = out / f".{STATE_FILE}.tmp"
    temporary.write_text(json.dumps(state, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(temporary, out / STATE_FILE)


def export_tables(
    engine: Engine,
    out: Path,
    *,
    file_format: str = "parquet",
    since: date | None = None,
    full: bool = False,
    progress: Progress | None = None,
    batch_size: int = 20_000,
    overlap: timedelta = OVERLAP,
) -> ExportResult:
    """Write every lineage table under ``out`` in ``file_format``. ``since``: history from that
    day on only (older days already in ``out`` stay). ``full``: rewrite everything, removing
    files no longer produced; otherwise an export over an earlier one is incremental: it
    rewrites the days of the runs written or pruned since ``overlap`` before the last one."""
    if file_format not in FORMATS:
        raise ExportError(f"unknown format {file_format!r}: one of {', '.join(FORMATS)}")
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    state = None if full else _load_state(out)
    if state is not None and state.get("format") != file_format:
        raise ExportError(
            f"{out} holds a {state.get('format')} export: use --format {state.get('format')},"
            " or --full to rewrite it"
        )
    began, started = time.monotonic(), datetime.now(UTC)
    result = ExportResult(incremental=state is not None)
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":  # one snapshot for every table
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        days: set[date] | None = None
        if state is not None:
            days = sql_tables.changed_days(
                conn, datetime.fromisoformat(state["watermark"]) - overlap
            )
            if days is None:
                result.incremental = False
        for table in TABLES:
            writer = _TableExport(out / table, table, file_format, batch_size, progress)
            if table in HISTORY:
                wanted = (
                    None if days is None else sorted(d for d in days if since is None or d >= since)
                )
                if wanted == []:
                    result.rows[table] = 0
                    continue
                writer.history(conn, wanted, since, sweep=days is None and since is None)
            else:
                writer.whole(conn)
            result.rows[table] = writer.rows
            result.files += writer.files
            result.removed += writer.removed
    _save_state(
        out,
        {
            "format": file_format,
            "watermark": started.isoformat(),
            "exported_at": datetime.now(UTC).isoformat(),
            "rows": result.rows,
            "incremental": result.incremental,
        },
    )
    result.seconds = time.monotonic() - began
    return result


class _TableExport:
    """One table's files: written in batches, published together at the end of the table."""

    def __init__(
        self, folder: Path, table: str, file_format: str, batch_size: int, progress: Progress | None
    ) -> None:
        self.folder, self.table, self.format = folder, table, file_format
        self.columns = TABLES[table]
        self.batch_size, self.progress = batch_size, progress
        self.file_name = f"part-0.{EXTENSIONS[file_format]}"
        self.rows = self.files = self.removed = 0

    def _tick(self, count: int) -> None:
        self.rows += count
        if self.progress is not None:
            self.progress(self.table, self.rows)

    def whole(self, conn: Any) -> None:
        """The table in one file, replacing the one before."""
        writer = open_writer(self.format, self.folder / self.file_name, self.columns)
        try:
            for rows in sql_tables.read_table(
                conn, self.table, batch_size=self.batch_size, naive_utc=self.format == "parquet"
            ):
                writer.write(rows)
                self._tick(len(rows))
        except BaseException:
            writer.abort()
            raise
        writer.close()
        self.files += 1
        self._sweep({self.file_name})

    def history(self, conn: Any, days: list[date] | None, since: date | None, sweep: bool) -> None:
        """The rows of ``days`` (None: every day from ``since``), one file per day; days of
        ``days`` without rows lose their file. ``sweep``: remove every day not written."""
        where = self.columns.index((PARTITION, "date"))
        kept = [c for c in self.columns if c[0] != PARTITION]
        writers: dict[date, FileWriter] = {}
        buffers: dict[date, list[tuple[Any, ...]]] = {}

        def flush(day: date) -> None:
            if day not in writers:
                target = self.folder / f"{PARTITION}={day.isoformat()}" / self.file_name
                writers[day] = open_writer(self.format, target, tuple(kept))
            writers[day].write(buffers.pop(day))

        try:
            for rows in sql_tables.read_table(
                conn,
                self.table,
                event_dates=days,
                since=since,
                batch_size=self.batch_size,
                naive_utc=self.format == "parquet",
            ):
                for row in rows:
                    day = row[where]
                    buffer = buffers.setdefault(day, [])
                    buffer.append(row[:where] + row[where + 1 :])
                    if len(buffer) >= self.batch_size:
                        flush(day)
                self._tick(len(rows))
            for day in list(buffers):
                flush(day)
        except BaseException:
            for writer in writers.values():
                writer.abort()
            raise
        for writer in writers.values():
            writer.close()
        self.files += len(writers)
        written = {f"{PARTITION}={day.isoformat()}" for day in writers}
        if days is not None:
            for day in days:
                name = f"{PARTITION}={day.isoformat()}"
                if name not in written and (self.folder / name).exists():
                    shutil.rmtree(self.folder / name)
                    self.removed += 1
        elif sweep and self.folder.exists():
            for child in self.folder.iterdir():
                if (
                    child.is_dir()
                    and child.name.startswith(f"{PARTITION}=")
                    and child.name not in written
                ):
                    shutil.rmtree(child)
                    self.removed += 1
        for child in self.folder.glob(f"{PARTITION}=*"):
            self._sweep({self.file_name}, child)

    def _sweep(self, keep: set[str], folder: Path | None = None) -> None:
        """Remove the files a format change or an older export left beside ours."""
        folder = folder or self.folder
        for child in folder.iterdir():
            if child.is_file() and child.name.startswith("part-") and child.name not in keep:
                child.unlink()
