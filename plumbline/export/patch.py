"""Patching a current-state Parquet file instead of rewriting it from the store: the rows of the
changed jobs, datasets or versions are read from the store; the file's other rows are copied
from the file as it is. A file holds a range of internal ids (``run.PART_IDS``), so a row never
moves between files and a reader sees exactly one row per key in any set of files it lists.

Only Parquet files are patched (read back with their types); a file that is missing, unreadable
or of another schema is rewritten whole from the store by the caller.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from plumbline.export.writers import arrow_schema, open_writer, pyarrow_modules
from plumbline.lineage_tables import Columns

# the column that names the key (or, for edges, the job) a current-state row belongs to
IDENTITY = {
    "jobs": "job_id",
    "datasets": "dataset_id",
    "dataset_versions": "version_id",
    "table_lineage_edges": "entity_id",
    "column_lineage_edges": "entity_id",
}


def read_part(target: Path, columns: Columns) -> Any | None:
    """The rows of an earlier export's Parquet file as an Arrow table, or None when it is
    missing, unreadable or not of ``columns``' schema (then it is rewritten whole)."""
    pa, _ = pyarrow_modules()
    import pyarrow.parquet as pq

    if not target.is_file():
        return None
    try:  # the file itself, not pq.read_table (a dataset: more to import and to do)
        with pq.ParquetFile(target) as file:
            old = file.read()
    except (OSError, pa.ArrowException):
        return None
    return old if old.schema.equals(arrow_schema(columns)) else None


def write_patched(
    target: Path, columns: Columns, old: Any, identity: str, replaced: Any, fresh: Any
) -> bool:
    """Write ``target`` (atomically): ``old``'s rows whose ``identity`` is not in ``replaced``,
    then ``fresh`` (an Arrow table). Without any row, remove it. Whether it holds rows."""
    pa, pc = pyarrow_modules()
    if isinstance(replaced, pa.ChunkedArray):
        replaced = replaced.combine_chunks()
    kept = old.filter(pc.invert(pc.is_in(old[identity], value_set=replaced)))
    if kept.num_rows + fresh.num_rows == 0:
        target.unlink(missing_ok=True)
        return False
    # one row group, however often the file was patched before
    rows = pa.concat_tables([kept, fresh]).combine_chunks()
    writer = open_writer("parquet", target, columns)
    try:
        for batch in rows.to_batches():
            writer.write(batch)
    except BaseException:
        writer.abort()
        raise
    writer.close()
    return True
