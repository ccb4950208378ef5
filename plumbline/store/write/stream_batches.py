"""The micro-batches of streaming runs: the ``streamBatches`` run facet into ``stream_batches``
and ``stream_batch_parts``.

A stream is one long run whose events each carry the batches since the previous event; a batch
is stored once per run and batch id (the first event naming it wins), so the same event posted
twice, or a batch repeated by a later event, adds nothing. Rows go with their run, or earlier by
``db prune``'s batch retention.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.openlineage.limits import number_violation
from plumbline.store.read.idlist import in_ids
from plumbline.store.schema import stream_batch_parts, stream_batches
from plumbline.store.write.context import Batch, as_utc
from plumbline.store.write.upsert import insert_ignore

FACET = "streamBatches"
_EXISTING = sa.select(stream_batches.c.run_id, stream_batches.c.batch_id, stream_batches.c.id)


def write_stream_batches(connection: Connection, batch: Batch) -> None:
    """Store the batches the write's run events carry that their runs do not have yet."""
    found: dict[tuple[int, int], dict[str, Any]] = {}
    for parsed in batch.run_events():
        run = parsed.raw.get("run")
        facets = run.get("facets") if isinstance(run, dict) else None
        facet = facets.get(FACET) if isinstance(facets, dict) else None
        if not isinstance(facet, dict) or not parsed.run_id:
            continue
        run_pk = batch.run_ids.get(parsed.run_id)
        if run_pk is None:
            continue
        for item in _list(facet.get("batches")):
            batch_id = _int(item.get("batchId")) if isinstance(item, dict) else None
            if batch_id is not None:
                found.setdefault((run_pk, batch_id), item)
    if not found:
        return
    run_pks = sorted({run_pk for run_pk, _ in found})
    stored = {
        (r, b)
        for r, b, _ in connection.execute(
            _EXISTING.where(in_ids(stream_batches.c.run_id)), {"ids": run_pks}
        )
    }
    new = sorted(key for key in found if key not in stored)
    if not new:
        return
    insert_ignore(
        connection,
        stream_batches,
        [
            _batch_row(run_pk, batch_id, found[(run_pk, batch_id)], batch.now)
            for run_pk, batch_id in new
        ],
    )
    ids = {
        (r, b): row_id
        for r, b, row_id in connection.execute(
            _EXISTING.where(in_ids(stream_batches.c.run_id)), {"ids": run_pks}
        )
    }
    parts = [part for key in new for part in _parts(ids[key], found[key])]
    insert_ignore(connection, stream_batch_parts, parts)


def _batch_row(run_pk: int, batch_id: int, item: dict[str, Any], now: datetime) -> dict[str, Any]:
    return {
        "run_id": run_pk,
        "batch_id": batch_id,
        "batch_time": _time(item.get("timestamp")),
        "num_input_rows": _int(item.get("numInputRows")),
        "duration_ms": _int(item.get("durationMs")),
        "offsets_backward": item.get("offsetsBackward") is True,
        "recorded_at": now,
    }


def _parts(row_id: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per source (per Kafka partition) and per sink, in the facet's order."""
    rows: list[dict[str, Any]] = []

    def add(role: str, index: int, **values: Any) -> None:
        row = dict.fromkeys(_PART_COLUMNS)
        row.update(values, stream_batch_id=row_id, seq=len(rows), role=role, source_index=index)
        row["offsets_backward"] = values.get("offsets_backward") is True
        rows.append(row)

    for index, source in enumerate(_list(item.get("sources"))):
        if not isinstance(source, dict):
            continue
        common = {
            "namespace": _text(source.get("namespace"), 1024),
            "name": _text(source.get("name"), 2048),
            "description": _text(source.get("description"), 500),
            "start_version": _text(source.get("startVersion"), 255),
            "end_version": _text(source.get("endVersion"), 255),
            "files_added": _int(source.get("fileCount")),
            "fail_on_data_loss": _flag(source.get("failOnDataLoss")),
        }
        partitions = [p for p in _list(source.get("partitions")) if isinstance(p, dict)]
        if not partitions:
            add("source", index, **common)
        for partition in partitions:
            add(
                "source",
                index,
                **common
                | {
                    "name": _text(partition.get("topic"), 2048),
                    "kafka_partition": _int(partition.get("partition"), bits=31),
                    "start_offset": _int(partition.get("startOffset")),
                    "end_offset": _int(partition.get("endOffset")),
                    "offsets_backward": partition.get("offsetsBackward") is True,
                },
            )
    for index, sink in enumerate(_list(item.get("sinks"))):
        if isinstance(sink, dict):
            add(
                "sink",
                index,
                namespace=_text(sink.get("namespace"), 1024),
                name=_text(sink.get("name"), 2048),
                end_version=_text(sink.get("version"), 255),
            )
    return rows


_PART_COLUMNS = tuple(str(column.name) for column in stream_batch_parts.columns)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any, bits: int = 63) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    if number_violation(value) is not None or abs(value) >= 2**bits:
        return None
    return value


def _text(value: Any, size: int) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        value = str(value)
    return value[:size] if isinstance(value, str) else None


def _flag(value: Any) -> str | None:
    """failOnDataLoss as the query set it: the option's text ("true", "false"), None if unset."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return _text(value, 16)


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return as_utc(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        return None
