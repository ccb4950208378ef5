"""Writing every lineage table to a folder, whole the first time, then incrementally.

Layout (``OUT``)::

    _plumbline_export.json                                  what was exported, when, how
    table_lineage/event_date=2024-01-01/part-0.parquet      history tables, one file per day
    table_lineage_edges/part-0.parquet                      current-state tables, one file per
    table_lineage_edges/part-1.parquet                      range of 4,096 internal ids

Current-state files hold the rows of a range of ids: jobs (``jobs``, the edge tables), datasets
(``datasets``) or versions (``dataset_versions``), so a row (an edge, a job) always lands in the
same file.
Run again, an export rewrites the days of history whose runs were written or pruned since the
last one (a day's rows are the store's, so a pruned run's rows leave with it), and the files of
the jobs and datasets those runs touched, or that were updated since: a Parquet file of which
few ids changed is patched (those rows read from the store, the others copied from the file,
:mod:`plumbline.export.patch`), any other is rewritten from the store. Hiding or showing a
dataset, job or namespace, or a catalog name given to an existing dataset, rewrites everything.
Each file is moved into place once complete.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Connection

from plumbline.export import patch
from plumbline.export.errors import ExportError
from plumbline.export.facts import FACTS, Dimensions, fact_batch, view_batch
from plumbline.export.ownership import Ownership
from plumbline.export.writers import (
    EXTENSIONS,
    FORMATS,
    FileWriter,
    arrow_schema,
    open_writer,
    pyarrow_modules,
)
from plumbline.lineage_tables import HISTORY, TABLES
from plumbline.store import Store
from plumbline.store.read import export_reads

STATE_FILE = "_plumbline_export.json"
PARTITION = "event_date"
# a write that started before an export but committed after it is caught by the next one
OVERLAP = timedelta(minutes=5)
PART_IDS = 4096  # internal ids (of jobs or datasets) per file of a current-state table
CHUNK = 5000  # ids per statement of reads by id (runs, jobs, datasets, versions)
RUN_IDS_MAX = 200_000  # history of more runs than this is read by day (a scan of runs)
LAYOUT = 2  # 1: current-state tables in one file (rewritten whole on a layout change)
EDGES = ("table_lineage_edges", "column_lineage_edges")

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
    store: Store,
    out: Path,
    *,
    file_format: str = "parquet",
    since: date | None = None,
    full: bool = False,
    progress: Progress | None = None,
    batch_size: int = 50_000,
    overlap: timedelta = OVERLAP,
) -> ExportResult:
    """Write every lineage table under ``out`` in ``file_format``. ``since``: history from that
    day on only (older days already in ``out`` stay). ``full``: rewrite everything, removing
    files no longer produced; otherwise an export over an earlier one is incremental: it
    rewrites the days, jobs and datasets changed since ``overlap`` before the last one."""
    if file_format not in FORMATS:
        raise ExportError(f"unknown format {file_format!r}: one of {', '.join(FORMATS)}")
    pyarrow_modules()
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out} exists and is not a folder")
    try:
        loaded = _load_state(out)
    except ExportError:
        if not full:
            raise
        loaded = {}  # plumbline's, unreadable: it owns the files of the layout
    owned = Ownership.of_folder(out, STATE_FILE, loaded, TABLES)
    out.mkdir(parents=True, exist_ok=True)
    state = None if full else loaded
    if state is not None and state.get("format") != file_format:
        raise ExportError(
            f"{out} holds a {state.get('format')} export: use --format {state.get('format')},"
            " or --full to rewrite it"
        )
    began, started = time.monotonic(), datetime.now(UTC)
    result = ExportResult(incremental=state is not None)
    with store.snapshot() as conn:  # one snapshot for every table
        hidden = export_reads.hidden_digest(conn)
        changes = export_reads.Changes.everything()
        if state is not None and state.get("hidden") == hidden and state.get("layout") == LAYOUT:
            changes = export_reads.changes(
                conn, datetime.fromisoformat(state["watermark"]) - overlap
            )
        result.incremental = changes.days is not None
        dims = Dimensions(conn, narrow=result.incremental)
        days = changes.days
        wanted = None if days is None else sorted(d for d in days if since is None or d >= since)
        history_runs = _history_runs(conn, wanted, since)
        for table in TABLES:
            writer = _TableExport(out / table, table, file_format, batch_size, progress, owned)
            if table in HISTORY:
                if wanted == []:
                    result.rows[table] = 0
                    continue
                writer.history(
                    conn, dims, wanted, since, history_runs, sweep=days is None and since is None
                )
            elif table in EDGES:
                writer.edges(conn, dims, changes.jobs)
            else:
                keys = {
                    "jobs": changes.jobs,
                    "datasets": changes.datasets,
                    "dataset_versions": changes.versions,
                }[table]
                writer.keyed(conn, keys)
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
            "hidden": hidden,
            "layout": LAYOUT,
            "files": owned.files(),
        },
    )
    result.seconds = time.monotonic() - began
    return result


def _history_runs(
    conn: Connection, days: list[date] | None, since: date | None
) -> list[export_reads.RunFilter]:
    """The reads of the history of ``days`` (None: every day from ``since``): their runs by id,
    :data:`CHUNK` at a time (found by one read of ``runs``), or by day when they are many."""
    if days is None:
        return [export_reads.RunFilter(since=since)]
    if not days:
        return []
    ids = export_reads.run_ids_of_days(conn, days)
    if len(ids) > RUN_IDS_MAX:
        return [export_reads.RunFilter(days=tuple(days))]
    return [export_reads.RunFilter(run_ids=tuple(chunk)) for chunk in _chunks(ids, CHUNK)]


def _chunks(ids: list[int], size: int) -> list[list[int]]:
    return [ids[start : start + size] for start in range(0, len(ids), size)]


def _parts(ids: Iterable[int]) -> list[int]:
    """The files (ranges of :data:`PART_IDS` ids) that hold ``ids``."""
    return sorted({i // PART_IDS for i in ids})


def _by_part(ids: Iterable[int]) -> dict[int, list[int]]:
    """``ids`` (sorted) by the file that holds them."""
    parts: dict[int, list[int]] = {}
    for i in sorted(ids):
        parts.setdefault(i // PART_IDS, []).append(i)
    return parts


def _range(part: int) -> tuple[int, int]:
    return part * PART_IDS, (part + 1) * PART_IDS - 1


class _TableExport:
    """One table's files: history days written in batches and published together at the end of
    the table; current-state files one range of ids at a time, each published when complete."""

    def __init__(
        self,
        folder: Path,
        table: str,
        file_format: str,
        batch_size: int,
        progress: Progress | None,
        owned: Ownership,
    ) -> None:
        self.folder, self.table, self.format, self.owned = folder, table, file_format, owned
        self.columns = TABLES[table]
        self.batch_size, self.progress = batch_size, progress
        self.extension = EXTENSIONS[file_format]
        self.rows = self.files = self.removed = 0

    def _name(self, part: int) -> str:
        return f"part-{part}.{self.extension}"

    def _tick(self, count: int) -> None:
        self.rows += count
        if self.progress is not None:
            self.progress(self.table, self.rows)

    def _batches(
        self, conn: Connection, dims: Dimensions, runs: export_reads.RunFilter
    ) -> Iterator[Any]:
        """The table's record batches for ``runs`` (history) or a range of jobs (edges)."""
        as_text = export_reads.text_values(conn)
        if self.table in export_reads.VIEW_HISTORY:
            sql, params = export_reads.runs_statement(conn, runs.days, runs.since, self.table)
        elif self.table in EDGES:
            jobs = runs.jobs if runs.jobs is not None else list(runs.job_ids or ())
            sql, params = export_reads.edge_statement(conn, self.table, jobs)
        else:
            sql, params = export_reads.fact_statement(conn, self.table, runs)
        for rows in export_reads.stream(conn, sql, params, self.batch_size):
            if self.table in FACTS:
                yield fact_batch(self.table, rows, dims)
            else:
                yield view_batch(self.table, rows, as_text)[0]

    def _write_part(self, part: int, batches: Iterable[Any]) -> bool:
        """Write one file from ``batches``; without rows, remove it. Whether it holds rows."""
        target = self.folder / self._name(part)
        writer: FileWriter | None = None
        try:
            for batch in batches:
                if batch.num_rows:
                    if writer is None:
                        self.owned.claim(target)
                        writer = open_writer(self.format, target, self.columns)
                    writer.write(batch)
                    self._tick(batch.num_rows)
        except BaseException:
            if writer is not None:
                writer.abort()
            raise
        if writer is None:
            if self.owned.remove(target):
                self.removed += 1
            return False
        writer.close()
        self.files += 1
        return True

    def _table(self, batches: Iterable[Any]) -> Any:
        """``batches`` as one Arrow table of this table's schema."""
        pa, _ = pyarrow_modules()
        return pa.Table.from_batches(list(batches), schema=arrow_schema(self.columns))

    def _worth_patching(self, part: int, changed: int) -> bool:
        """Whether the file of ``part`` is to be patched: Parquet, there, and at most half of
        its ids (``changed`` of them) changed."""
        worth = self.format == "parquet" and changed * 2 <= PART_IDS
        target = self.folder / self._name(part)
        return worth and self.owned.owns(target) and target.is_file()

    def _patchable(self, part: int, changed: int) -> Any | None:
        """The rows of the file of ``part`` when it is worth patching and can be (read back as
        this export writes it); else None."""
        if not self._worth_patching(part, changed):
            return None
        return patch.read_part(self.folder / self._name(part), self.columns)

    def _write_patched(self, part: int, old: Any, replaced: Any, fresh: Any) -> None:
        """The file of ``part``: ``old`` without the rows of ``replaced``, then ``fresh``."""
        target = self.folder / self._name(part)
        identity = patch.IDENTITY[self.table]
        self.owned.claim(target)
        if patch.write_patched(target, self.columns, old, identity, replaced, fresh):
            self.files += 1
        else:
            self.removed += 1
        self._tick(fresh.num_rows)

    def _patch_edges(self, conn: Connection, dims: Dimensions, jobs: set[int]) -> set[int]:
        """Patch the files of the changed ``jobs`` (their edges read anew, by job id, the
        other jobs' copied); the jobs left, whose files are to be rewritten whole."""
        pa, pc = pyarrow_modules()
        left = set(jobs)
        for part, ids in _by_part(jobs).items():
            old = self._patchable(part, len(ids))
            if old is None:
                continue
            where, visible = dims.find("jobs", pa.array(ids, type=pa.int64()))
            uuids = pc.take(visible["uuid"], where)
            if uuids.null_count:  # a job the tables do not show: its file is rewritten whole
                continue
            reads = [export_reads.RunFilter(job_ids=tuple(c)) for c in _chunks(ids, CHUNK)]
            fresh = self._table(b for runs in reads for b in self._batches(conn, dims, runs))
            self._write_patched(part, old, uuids, fresh)
            left -= set(ids)
        return left

    def _patch_keyed(self, conn: Connection, keys: set[int]) -> set[int]:
        """Patch the files of the changed ``keys`` (their rows read anew, by key, the other
        rows copied); the keys left, whose files are to be rewritten whole."""
        pa, pc = pyarrow_modules()
        candidates = {
            part: ids
            for part, ids in _by_part(keys).items()
            if self._worth_patching(part, len(ids))
        }
        if not candidates:
            return keys
        batches, file_keys = [], []
        wanted = sorted(key for ids in candidates.values() for key in ids)
        for chunk in _chunks(wanted, CHUNK):
            sql, params = export_reads.keyed_statement(self.table, None, chunk, conn)
            for rows in export_reads.stream(conn, sql, params, self.batch_size):
                batch, read = view_batch(self.table, rows, export_reads.text_values(conn), True)
                batches.append(batch)
                file_keys.append(read)
        fresh = self._table(batches)
        parts = pc.divide(pa.chunked_array(file_keys, type=pa.int64()), PART_IDS)
        left = set(keys)
        for part, ids in candidates.items():  # one old file in memory at a time
            piece = fresh.filter(pc.equal(parts, part))
            if piece.num_rows != len(ids):  # a key the table does not show: rewrite the file
                continue
            old = self._patchable(part, len(ids))
            if old is None:
                continue
            self._write_patched(part, old, piece[patch.IDENTITY[self.table]], piece)
            left -= set(ids)
        return left

    def edges(self, conn: Connection, dims: Dimensions, jobs: set[int] | None) -> None:
        """The edges of the jobs of ``jobs`` (None: every job), one file per range of jobs:
        patched when few of its jobs changed, else rewritten whole."""
        if jobs is not None:
            jobs = self._patch_edges(conn, dims, jobs)
        parts = (
            list(range(export_reads.max_job_id(conn) // PART_IDS + 1))
            if jobs is None
            else _parts(jobs)
        )
        written = {
            self._name(part)
            for part in parts
            if self._write_part(
                part, self._batches(conn, dims, export_reads.RunFilter(jobs=_range(part)))
            )
        }
        if jobs is None:
            self._sweep(written)

    def keyed(self, conn: Connection, keys: set[int] | None) -> None:
        """``jobs``, ``datasets`` or ``dataset_versions``: the files of ``keys`` (None: all),
        patched when few of their keys changed, else read in key order in one statement and
        cut into files by range."""
        _, pc = pyarrow_modules()
        as_text = export_reads.text_values(conn)
        if keys is not None:
            keys = self._patch_keyed(conn, keys)
        wanted = None if keys is None else _parts(keys)
        if wanted == []:
            return
        ranges = None if wanted is None else [_range(part) for part in wanted]
        sql, params = export_reads.keyed_statement(self.table, ranges)
        written: set[str] = set()
        current: tuple[int, FileWriter] | None = None
        try:
            for rows in export_reads.stream(conn, sql, params, self.batch_size):
                batch, keys_read = view_batch(self.table, rows, as_text, keyed=True)
                parts = pc.divide(keys_read, PART_IDS)  # in key order: one file after another
                for part in pc.unique(parts).to_pylist():
                    if current is None or current[0] != part:
                        if current is not None:
                            current[1].close()
                        target = self.folder / self._name(part)
                        self.owned.claim(target)
                        current = (part, open_writer(self.format, target, self.columns))
                        written.add(target.name)
                        self.files += 1
                    piece = batch.filter(pc.equal(parts, part))
                    current[1].write(piece)
                    self._tick(piece.num_rows)
        except BaseException:
            if current is not None:
                current[1].abort()
            raise
        if current is not None:
            current[1].close()
        if wanted is None:
            self._sweep(written)
            return
        for part in wanted:  # ranges left without rows
            target = self.folder / self._name(part)
            if target.name not in written and self.owned.remove(target):
                self.removed += 1

    def history(
        self,
        conn: Connection,
        dims: Dimensions,
        days: list[date] | None,
        since: date | None,
        reads: list[export_reads.RunFilter],
        sweep: bool,
    ) -> None:
        """The rows of ``days`` (None: every day from ``since``), read by ``reads`` (``runs``:
        by day, from its view), one file per day; days of ``days`` without rows lose their
        file. ``sweep``: remove every day not written."""
        _, pc = pyarrow_modules()
        kept = tuple(c for c in self.columns if c[0] != PARTITION)
        writers: dict[date, FileWriter] = {}
        name = self._name(0)
        if self.table in export_reads.VIEW_HISTORY:
            reads = [
                export_reads.RunFilter(days=None if days is None else tuple(days), since=since)
            ]
        try:
            for batch in (b for runs in reads for b in self._batches(conn, dims, runs)):
                column = batch.column(PARTITION)
                rest = batch.drop_columns([PARTITION])
                for day in pc.unique(column).to_pylist():
                    if day not in writers:
                        target = self.folder / f"{PARTITION}={day.isoformat()}" / name
                        self.owned.claim(target)
                        writers[day] = open_writer(self.format, target, kept)
                    writers[day].write(rest.filter(pc.equal(column, day)))
                self._tick(batch.num_rows)
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
                folder = f"{PARTITION}={day.isoformat()}"
                if folder not in written and self.owned.remove_folder(self.folder / folder):
                    self.removed += 1
        elif sweep and self.folder.exists():
            for child in self.folder.iterdir():
                if (
                    child.is_dir()
                    and child.name.startswith(f"{PARTITION}=")
                    and child.name not in written
                    and self.owned.remove_folder(child)
                ):
                    self.removed += 1
        for child in self.folder.glob(f"{PARTITION}=*"):
            self._sweep({name}, child)

    def _sweep(self, keep: set[str], folder: Path | None = None) -> None:
        """Remove the files a format change or an older export left beside ours (only the
        export's own: another program's stay)."""
        folder = folder or self.folder
        if not folder.exists():
            return
        for child in folder.iterdir():
            if (
                child.name.startswith("part-")
                and child.name not in keep
                and self.owned.remove(child)
            ):
                self.removed += 1
