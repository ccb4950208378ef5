"""One file writer per format: rows in (tuples in the table's column order), one file out,
written under a hidden temporary name and moved into place when closed, so that a reader never
sees a half-written file (Spark, pyarrow and Hive skip names starting with ``.`` or ``_``)."""

from __future__ import annotations

import csv
import json
import os
import uuid
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any, Protocol

from plumbline.export.errors import ExportError
from plumbline.lineage_tables import Columns, Kind

FORMATS = ("parquet", "jsonl", "csv")
EXTENSIONS = {"parquet": "parquet", "jsonl": "jsonl", "csv": "csv"}


class FileWriter(Protocol):
    """Writes one file: ``write`` batches of rows, then ``close`` (moves it into place) or
    ``abort`` (removes it)."""

    def write(self, rows: Sequence[tuple[Any, ...]]) -> None: ...
    def close(self) -> None: ...
    def abort(self) -> None: ...


def _text(value: Any, kind: Kind) -> Any:
    if value is None:
        return None
    if kind == "json":
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    return value


class _Atomic:
    def __init__(self, target: Path) -> None:
        self.target = target
        target.parent.mkdir(parents=True, exist_ok=True)
        self.temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")

    def _publish(self) -> None:
        os.replace(self.temporary, self.target)

    def abort(self) -> None:
        self.temporary.unlink(missing_ok=True)


class _JsonLines(_Atomic):
    def __init__(self, target: Path, columns: Columns) -> None:
        super().__init__(target)
        self.columns = columns
        self.file = self.temporary.open("w", encoding="utf-8")

    def write(self, rows: Sequence[tuple[Any, ...]]) -> None:
        for row in rows:
            document = {
                name: _text(v, kind) for (name, kind), v in zip(self.columns, row, strict=True)
            }
            self.file.write(json.dumps(document, ensure_ascii=False) + "\n")

    def close(self) -> None:
        self.file.close()
        self._publish()

    def abort(self) -> None:
        self.file.close()
        super().abort()


class _Csv(_Atomic):
    def __init__(self, target: Path, columns: Columns) -> None:
        super().__init__(target)
        self.columns = columns
        self.file = self.temporary.open("w", encoding="utf-8", newline="")
        self.csv = csv.writer(self.file)
        self.csv.writerow([name for name, _ in columns])

    def write(self, rows: Sequence[tuple[Any, ...]]) -> None:
        kinds = [kind for _, kind in self.columns]
        self.csv.writerows([[_text(v, k) for v, k in zip(row, kinds, strict=True)] for row in rows])

    def close(self) -> None:
        self.file.close()
        self._publish()

    def abort(self) -> None:
        self.file.close()
        super().abort()


def arrow_schema(columns: Columns) -> Any:
    """The Arrow schema of a table (timestamps in microseconds, UTC; JSON as text)."""
    pa = _pyarrow()
    types = {
        "string": pa.string(),
        "int": pa.int64(),
        "timestamp": pa.timestamp("us", tz="UTC"),
        "date": pa.date32(),
        "json": pa.string(),
    }
    return pa.schema([(name, types[kind]) for name, kind in columns])


def _pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError:
        raise ExportError(
            "Parquet needs pyarrow: pip install 'plumbline[export]' (or use --format jsonl|csv)"
        ) from None
    return pyarrow


class _Parquet(_Atomic):
    def __init__(self, target: Path, columns: Columns) -> None:
        self.pa = _pyarrow()
        import pyarrow.parquet as pq

        super().__init__(target)
        self.columns = columns
        self.schema = arrow_schema(columns)
        self.writer = pq.ParquetWriter(self.temporary, self.schema, compression="zstd")

    def write(self, rows: Sequence[tuple[Any, ...]]) -> None:
        if not rows:
            return
        arrays = []
        by_column = zip(*rows, strict=True)  # naive times are taken as UTC (the type's zone)
        for (_, kind), field, values in zip(self.columns, self.schema, by_column, strict=True):
            if kind == "json":
                values = tuple(_text(v, kind) for v in values)
            arrays.append(self.pa.array(values, type=field.type))
        self.writer.write_table(self.pa.Table.from_arrays(arrays, schema=self.schema))

    def close(self) -> None:
        self.writer.close()
        self._publish()

    def abort(self) -> None:
        self.writer.close()
        super().abort()


def open_writer(file_format: str, target: Path, columns: Columns) -> FileWriter:
    """A writer of ``target`` in ``file_format`` for rows of ``columns``."""
    if file_format == "parquet":
        return _Parquet(target, columns)
    if file_format == "jsonl":
        return _JsonLines(target, columns)
    if file_format == "csv":
        return _Csv(target, columns)
    raise ExportError(f"unknown format {file_format!r}: one of {', '.join(FORMATS)}")
