"""One file writer per format: Arrow record batches in (the table's columns, in order), one file
out, written under a hidden temporary name and moved into place when closed, so that a reader
never sees a half-written file (Spark, pyarrow and Hive skip names starting with ``.`` or
``_``). Parquet is written a row group per batch; the text formats a line per row."""

from __future__ import annotations

import csv
import json
import os
import uuid
from datetime import date, datetime
from pathlib import Path
from typing import Any, Protocol

from plumbline.export.errors import ExportError
from plumbline.lineage_tables import Columns

FORMATS = ("parquet", "jsonl", "csv")
EXTENSIONS = {"parquet": "parquet", "jsonl": "jsonl", "csv": "csv"}


class FileWriter(Protocol):
    """Writes one file: ``write`` record batches, then ``close`` (moves it into place) or
    ``abort`` (removes it)."""

    def write(self, batch: Any) -> None: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...


def _text(value: Any) -> Any:
    """A value as text formats write it (JSON columns are text already)."""
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    return value


def _rows(batch: Any) -> list[list[Any]]:
    columns = [[_text(v) for v in column.to_pylist()] for column in batch.columns]
    return [list(row) for row in zip(*columns, strict=True)]


class _Atomic:
    def __init__(self, target: Path) -> None:
        self.target = target
        target.parent.mkdir(parents=True, exist_ok=True)
        self.temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")

    def _publish(self) -> None:
        os.replace(self.temporary, self.target)

    def abort(self) -> None:
        self.temporary.unlink(missing_ok=True)


class _TextFile(_Atomic):
    """A text file written through ``self.file``: closed, then published or removed."""

    def __init__(self, target: Path, columns: Columns, newline: str | None = None) -> None:
        super().__init__(target)
        self.names = [name for name, _ in columns]
        self.file = self.temporary.open("w", encoding="utf-8", newline=newline)

    def close(self) -> None:
        self.file.close()
        self._publish()

    def abort(self) -> None:
        self.file.close()
        super().abort()


class _JsonLines(_TextFile):
    def write(self, batch: Any) -> None:
        self.file.writelines(
            json.dumps(dict(zip(self.names, row, strict=True)), ensure_ascii=False) + "\n"
            for row in _rows(batch)
        )


class _Csv(_TextFile):
    def __init__(self, target: Path, columns: Columns) -> None:
        super().__init__(target, columns, newline="")
        self.csv = csv.writer(self.file)
        self.csv.writerow(self.names)

    def write(self, batch: Any) -> None:
        self.csv.writerows(_rows(batch))


def pyarrow_modules() -> tuple[Any, Any]:
    """``pyarrow`` and ``pyarrow.compute``, or an :class:`ExportError` saying how to get them."""
    try:
        import pyarrow
        import pyarrow.compute
    except ImportError:
        raise ExportError("the export needs pyarrow: pip install 'plumbline[export]'") from None
    return pyarrow, pyarrow.compute


def arrow_schema(columns: Columns) -> Any:
    """The Arrow schema of a table (timestamps in microseconds, UTC; JSON as text)."""
    pa, _ = pyarrow_modules()
    types = {
        "string": pa.string(),
        "int": pa.int64(),
        "timestamp": pa.timestamp("us", tz="UTC"),
        "date": pa.date32(),
        "json": pa.string(),
    }
    return pa.schema([(name, types[kind]) for name, kind in columns])


class _Parquet(_Atomic):
    def __init__(self, target: Path, columns: Columns) -> None:
        pyarrow_modules()
        import pyarrow.parquet as pq

        super().__init__(target)
        self.writer = pq.ParquetWriter(self.temporary, arrow_schema(columns), compression="zstd")

    def write(self, batch: Any) -> None:
        if batch.num_rows:
            self.writer.write_batch(batch)

    def close(self) -> None:
        self.writer.close()
        self._publish()

    def abort(self) -> None:
        self.writer.close()
        super().abort()


def open_writer(file_format: str, target: Path, columns: Columns) -> FileWriter:
    """A writer of ``target`` in ``file_format`` for batches of ``columns``."""
    if file_format == "parquet":
        return _Parquet(target, columns)
    if file_format == "jsonl":
        return _JsonLines(target, columns)
    if file_format == "csv":
        return _Csv(target, columns)
    raise ExportError(f"unknown format {file_format!r}: one of {', '.join(FORMATS)}")
