"""Rows of the store's reads turned into Arrow record batches of a lineage table, a column at a
time: ids are resolved to names by look-ups in Arrow arrays (datasets, fields, visible jobs,
read once per export), so that no Python code runs per row.

The joins repeat the views' (migration 0012): a history or edge row needs a visible job, its
datasets named (a NULL side stays NULL), and for column lineage both fields' datasets;
``tests/sqltables/test_export.py`` holds the result equal to the views on both backends.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy.engine import Connection

from plumbline.export.writers import arrow_schema, pyarrow_modules
from plumbline.lineage_tables import TABLES, Kind
from plumbline.store.read import export_reads

_NAME_COLUMNS = ("table_full_name", "path", "type", "namespace", "name")


def columns_of(
    rows: Sequence[tuple[Any, ...]], names: Sequence[str], kinds: dict[str, Kind], as_text: bool
) -> dict[str, Any]:
    """``rows`` as Arrow arrays by column name (``kinds``: the kind of each, default int)."""
    pa, _ = pyarrow_modules()
    values = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    return {
        name: to_arrow(column, kinds.get(name, "int"), as_text)
        for name, column in zip(names, values, strict=True)
    }


def to_arrow(values: Sequence[Any], kind: Kind, as_text: bool) -> Any:
    """One column of driver values as an Arrow array of ``kind``'s type. ``as_text``: the store
    hands times and dates back as text, naive UTC, and JSON as text
    (``export_reads.text_values``); else as aware times, dates and parsed JSON."""
    pa, _ = pyarrow_modules()
    if kind == "timestamp":
        target = pa.timestamp("us", tz="UTC")
        if as_text:
            return pa.array(values, type=pa.string()).cast(pa.timestamp("us")).cast(target)
        return pa.array(values, type=target)
    if kind == "date":
        return pa.array(values, type=pa.string() if as_text else pa.date32()).cast(pa.date32())
    if kind == "json":
        text = [
            None
            if v is None
            else json.dumps(json.loads(v) if as_text else v, sort_keys=True, separators=(",", ":"))
            for v in values
        ]
        return pa.array(text, type=pa.string())
    if kind == "string":
        return pa.array(values, type=pa.string())
    return pa.array(values, type=pa.int64())


_LOOKUP_COLUMNS = {
    "datasets": ("id",) + _NAME_COLUMNS,
    "fields": ("id", "dataset_id", "name"),
    "jobs": ("id", "uuid", "namespace", "name"),
}


class Dimensions:
    """The names of datasets, fields and visible jobs as Arrow arrays, with ``position``: where
    each id is, by id (a dense array, so that a look-up is one ``take``, not a hash probe per
    value). ``narrow``: read only the ids batches ask for (an incremental export touches few);
    otherwise everything, on first use."""

    def __init__(self, conn: Connection, narrow: bool = False) -> None:
        self.conn, self.narrow = conn, narrow
        self.as_text = export_reads.text_values(conn)
        self._rows: dict[str, list[tuple[Any, ...]]] = {}
        self._known: dict[str, set[int]] = {}
        self._tables: dict[str, dict[str, Any]] = {}

    def find(self, kind: str, ids: Any) -> tuple[Any, dict[str, Any]]:
        """The position of each of ``ids`` (null: not there, or a null id) and the table."""
        _, pc = pyarrow_modules()
        if kind not in self._tables:
            self._rows[kind] = (
                [] if self.narrow else export_reads.lookup_rows(self.conn, kind, None)
            )
            self._known[kind] = set()
            self._build(kind)
        if self.narrow:
            wanted = set(pc.unique(ids).drop_null().to_pylist()) - self._known[kind]
            if wanted:
                self._known[kind] |= wanted
                self._rows[kind] += export_reads.lookup_rows(self.conn, kind, sorted(wanted))
                self._build(kind)
        table = self._tables[kind]
        position = table["position"]
        inside = pc.if_else(pc.less(ids, len(position)), ids, None)
        return pc.take(position, inside), table

    def _build(self, kind: str) -> None:
        pa, _ = pyarrow_modules()
        names = _LOOKUP_COLUMNS[kind]
        rows = self._rows[kind]
        kinds: dict[str, Kind] = {n: "string" for n in names if n not in ("id", "dataset_id")}
        table = columns_of(rows, names, kinds, self.as_text)
        position: list[int | None] = [None] * (max((r[0] for r in rows), default=0) + 1)
        for n, row in enumerate(rows):
            position[row[0]] = n
        table["position"] = pa.array(position, type=pa.int32())
        self._tables[kind] = table


def _found_or_null(ids: Any, where: Any) -> Any:
    """Rows whose id is null, or found: a LEFT JOIN that drops rows naming a hidden dataset."""
    _, pc = pyarrow_modules()
    return pc.or_(pc.is_null(ids), pc.is_valid(where))


def _side(out: dict[str, Any], prefix: str, ids: Any, dims: Dimensions) -> Any:
    """The names of the datasets of ``ids`` as ``prefix``'s columns; where each was found."""
    _, pc = pyarrow_modules()
    where, names = dims.find("datasets", ids)
    for column in _NAME_COLUMNS:
        out[f"{prefix}_{column}"] = pc.take(names[column], where)
    return where


def _entity(out: dict[str, Any], facts: dict[str, Any], dims: Dimensions) -> Any:
    pa, pc = pyarrow_modules()
    job, jobs = dims.find("jobs", facts["job_id"])
    out["entity_type"] = pa.repeat(pa.scalar("JOB"), len(job))
    out["entity_id"] = pc.take(jobs["uuid"], job)
    out["entity_namespace"] = pc.take(jobs["namespace"], job)
    out["entity_name"] = pc.take(jobs["name"], job)
    return pc.is_valid(job)


def _run(out: dict[str, Any], facts: dict[str, Any]) -> None:
    pa, _ = pyarrow_modules()
    out["entity_run_id"], out["run_state"] = facts["run_uuid"], facts["run_state"]
    out["event_time"] = facts["event_time"]
    out["event_date"] = facts["event_time"].cast(pa.date32())


def _tail(out: dict[str, Any], facts: dict[str, Any]) -> None:
    for name in export_reads.EDGE_TAIL:
        out[name] = facts[name]


def _table_sides(out: dict[str, Any], facts: dict[str, Any], dims: Dimensions) -> Any:
    """Source and target dataset names of a table-level row; which rows keep both."""
    _, pc = pyarrow_modules()
    source = _side(out, "source", facts["source_id"], dims)
    target = _side(out, "target", facts["target_id"], dims)
    return pc.and_(
        _found_or_null(facts["source_id"], source), _found_or_null(facts["target_id"], target)
    )


def _column_sides(out: dict[str, Any], facts: dict[str, Any], dims: Dimensions) -> Any:
    """Source and target names of a column-level row; which rows have both fields' datasets."""
    pa, pc = pyarrow_modules()
    ids = pa.concat_arrays([facts["input_field_id"], facts["output_field_id"]])
    dims.find("fields", ids)  # one read of both sides' fields
    field_in, fields = dims.find("fields", facts["input_field_id"])
    field_out, fields = dims.find("fields", facts["output_field_id"])
    source = _side(out, "source", pc.take(fields["dataset_id"], field_in), dims)
    target = _side(out, "target", facts["output_dataset_id"], dims)
    out["source_column_name"] = pc.take(fields["name"], field_in)
    out["target_column_name"] = pc.take(fields["name"], field_out)
    out["transformation_type"] = facts["transformation_type"]
    out["transformation_subtype"] = facts["transformation_subtype"]
    return pc.and_(pc.is_valid(source), pc.is_valid(target))


def _snapshot_sides(out: dict[str, Any], facts: dict[str, Any], dims: Dimensions) -> Any:
    keep = _table_sides(out, facts, dims)
    for side in ("source", "target"):
        for column in ("version_id", "version", "snapshot_id"):
            out[f"{side}_{column}"] = facts[f"{side}_{column}"]
    out["source_version_source"] = facts["source_version_source"]
    out["source_read_at"] = facts["source_read_at"]
    return keep


_FACT_KINDS: dict[str, Kind] = {
    "run_uuid": "string",
    "run_state": "string",
    "event_time": "timestamp",
    "transformation_type": "string",
    "transformation_subtype": "string",
    "first_seen": "timestamp",
    "last_seen": "timestamp",
    "last_run_id": "string",
    "last_run_state": "string",
    "edge_source": "string",
    "completeness": "string",
    "target_version_id": "string",
    "target_version": "string",
    "target_snapshot_id": "string",
    "source_version_id": "string",
    "source_version": "string",
    "source_snapshot_id": "string",
    "source_version_source": "string",
    "source_read_at": "timestamp",
}

FACTS = {
    "table_lineage": export_reads.TABLE_FACTS,
    "column_lineage": export_reads.COLUMN_FACTS,
    "snapshot_lineage": export_reads.SNAPSHOT_FACTS,
    "table_lineage_edges": export_reads.TABLE_EDGE_FACTS,
    "column_lineage_edges": export_reads.COLUMN_EDGE_FACTS,
}


def fact_batch(table: str, rows: Sequence[tuple[Any, ...]], dims: Dimensions) -> Any:
    """A record batch of ``table`` from rows of its fact read: names looked up, rows the views
    would not show (a hidden job or dataset) left out."""
    pa, pc = pyarrow_modules()
    facts = columns_of(rows, FACTS[table], _FACT_KINDS, dims.as_text)
    out: dict[str, Any] = {}
    if table in ("table_lineage", "table_lineage_edges"):
        keep = _table_sides(out, facts, dims)
    elif table == "snapshot_lineage":
        keep = _snapshot_sides(out, facts, dims)
    else:
        keep = _column_sides(out, facts, dims)
    keep = pc.and_(keep, _entity(out, facts, dims))
    if table.endswith("_edges"):
        _tail(out, facts)
    else:
        _run(out, facts)
    schema = arrow_schema(TABLES[table])
    batch = pa.RecordBatch.from_arrays([out[name] for name in schema.names], schema=schema)
    return batch.filter(pc.fill_null(keep, False))


def view_batch(
    table: str, rows: Sequence[tuple[Any, ...]], as_text: bool, keyed: bool = False
) -> tuple[Any, Any]:
    """A record batch of ``table`` from rows of its view (``keyed``: each led by its file key),
    and the keys (None when not keyed)."""
    pa, _ = pyarrow_modules()
    names = [name for name, _ in TABLES[table]]
    kinds = dict(TABLES[table])
    read = columns_of(rows, (["file_key"] if keyed else []) + names, kinds, as_text)
    schema = arrow_schema(TABLES[table])
    batch = pa.RecordBatch.from_arrays([read[name] for name in names], schema=schema)
    return batch, read.get("file_key")
