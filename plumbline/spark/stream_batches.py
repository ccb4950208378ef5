"""Per-micro-batch records of a streaming query run: the `streamBatches` run facet.

Two witnesses describe one micro-batch and reach the capture's worker in either order:
- the query's progress (a StreamingQueryListener's `onQueryProgress`, its JSON): the batch id,
  each source's start and end offsets as Spark reports them, input rows, durations;
- the batch's SQL execution (`StreamRuns.batch`): the datasets it wrote with the versions they
  committed, the files a file source added, a Kafka source's `failOnDataLoss` option.

`BatchLog` joins them by batch id. A record is ready when its progress came and its execution
too (or the run ends, or later batches passed it); the run's next event carries the ready ones.
Offsets are recorded, not guessed: a Kafka partition whose end is before its start, or whose
start is before where the previous batch ended (a reset topic), is marked `offsetsBackward`.
Progress without an `addBatch` duration is an idle trigger, not a batch, and is skipped.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from plumbline.openlineage.schema_urls import RUN_FACET_SCHEMA_URL
from plumbline.spark.datasets import DatasetId, from_location
from plumbline.spark.facts import ActionFacts

log = logging.getLogger(__name__)

FACET = "streamBatches"
MAX_BATCHES = 100  # batch records in one event; a run with more ready sends an event early
MAX_PENDING = 1000  # records a run holds before its first event (more are counted, dropped)
MAX_PARTITIONS = 1000  # Kafka partitions listed per source and batch (more are counted)
MAX_EXECUTIONS = 64  # batch executions kept waiting for their progress, per run
STALE_AFTER = 2  # a record waits for its execution at most this many later batches
_DESCRIPTION = 500  # characters of a source's description kept

_PATH_SOURCE = re.compile(r"^(?:FileStreamSource|DeltaSource)\[(.*)\]$")
# the version fields of table formats' streaming offsets: Delta, Iceberg, Paimon
_VERSION_KEYS = ("reservoirVersion", "snapshot_id", "snapshotId")


@dataclass
class _Execution:
    """What a micro-batch's SQL execution told about it."""

    sinks: list[dict[str, Any]]
    files: dict[str, tuple[list[str], int]]  # source dataset key -> (first files, count)
    kafka_namespace: str | None
    fail_on_data_loss: str | None


@dataclass
class _Record:
    batch: dict[str, Any]
    sources: list[tuple[dict[str, Any], DatasetId | None]]
    execution: _Execution | None = None
    waited: int = 0


@dataclass
class _Run:
    records: list[_Record] = field(default_factory=list)
    executions: dict[int, _Execution] = field(default_factory=dict)
    kafka_ends: dict[tuple[str, str, int], int] = field(default_factory=dict)
    omitted: int = 0


class BatchLog:
    """The micro-batches of every open query run not yet sent (worker thread only)."""

    def __init__(self) -> None:
        self._runs: dict[str, _Run] = {}

    def execution(
        self, run_id: str, batch_id: int, facts: ActionFacts, versions: dict[str, str]
    ) -> None:
        """A micro-batch's SQL execution ended with `facts`; `versions`: the versions its outputs
        committed, by dataset key."""
        run = self._runs.setdefault(run_id, _Run())
        found = _execution(facts, versions)
        for record in run.records:
            if record.batch["batchId"] == batch_id and record.execution is None:
                record.execution = found
                return
        run.executions[batch_id] = found
        while len(run.executions) > MAX_EXECUTIONS:
            run.executions.pop(next(iter(run.executions)))

    def progress(self, run_id: str, progress: dict[str, Any]) -> None:
        """The query reported a trigger's progress (the JSON of a `StreamingQueryProgress`)."""
        if "addBatch" not in (progress.get("durationMs") or {}):
            return  # an idle trigger: no batch ran
        run = self._runs.setdefault(run_id, _Run())
        batch_id = int(progress["batchId"])
        durations = progress.get("durationMs") or {}
        batch: dict[str, Any] = {
            "batchId": batch_id,
            "timestamp": progress.get("timestamp"),
            "numInputRows": _int(progress.get("numInputRows")),
            "durationMs": _int(durations.get("triggerExecution")),
        }
        sources = [_source(s) for s in progress.get("sources") or []]
        record = _Record(batch, sources, run.executions.pop(batch_id, None))
        for older in run.records:
            older.waited += 1
        if len(run.records) >= MAX_PENDING:
            run.records.pop(0)
            run.omitted += 1
        run.records.append(record)

    def ready(self, run_id: str) -> int:
        """How many of a run's records its next event would carry."""
        run = self._runs.get(run_id)
        return sum(1 for r in run.records if _is_ready(r)) if run is not None else 0

    def take(self, run_id: str, *, final: bool = False) -> dict[str, Any] | None:
        """The `streamBatches` facet of a run's next event (None: nothing to say), in batch
        order; `final`: the run ended, every record goes."""
        run = self._runs.get(run_id)
        if run is None:
            return None
        if final:
            self._runs.pop(run_id, None)
        going = [r for r in run.records if final or _is_ready(r)][:MAX_BATCHES]
        kept = {id(r) for r in going}
        run.records = [r for r in run.records if id(r) not in kept]
        omitted, run.omitted = run.omitted, 0
        if final:
            omitted += len(run.records)
        if not going and not omitted:
            return None
        batches = [_finish(r, run) for r in sorted(going, key=lambda r: r.batch["batchId"])]
        return {
            "_producer": _producer(),
            "_schemaURL": RUN_FACET_SCHEMA_URL,
            "batches": batches,
            "omittedBatches": omitted,
        }

    def forget(self, run_id: str) -> None:
        self._runs.pop(run_id, None)


def parse_progress(text: str) -> dict[str, Any] | None:
    """A progress's JSON text as a dict (None, and one log line, when it is not JSON)."""
    try:
        found = json.loads(text)
    except ValueError as exc:
        log.info("plumbline cannot read a streaming progress (%s)", exc)
        return None
    return found if isinstance(found, dict) else None


def _producer() -> str:
    from plumbline.spark.events import PRODUCER  # events imports the capture's modules

    return PRODUCER


def _is_ready(record: _Record) -> bool:
    return record.execution is not None or record.waited >= STALE_AFTER


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _execution(facts: ActionFacts, versions: dict[str, str]) -> _Execution:
    sinks = [
        {"namespace": d.id.namespace, "name": d.id.name, "version": versions.get(d.id.key)}
        for d in facts.outputs
    ]
    files = {
        d.id.key: (list(d.stream_files), d.stream_file_count)
        for d in facts.inputs
        if d.stream_files is not None
    }
    kafka = [d for d in facts.inputs if d.id.namespace.startswith("kafka://")]
    return _Execution(
        sinks,
        files,
        kafka[0].id.namespace if kafka else None,
        next((d.fail_on_data_loss for d in kafka if d.fail_on_data_loss is not None), None),
    )


def _source(source: dict[str, Any]) -> tuple[dict[str, Any], DatasetId | None]:
    """A progress source's entry (offsets as Spark reported them) and its dataset, if named."""
    description = str(source.get("description") or "")
    entry: dict[str, Any] = {
        "description": description[:_DESCRIPTION],
        "numInputRows": _int(source.get("numInputRows")),
        "startOffset": source.get("startOffset"),
        "endOffset": source.get("endOffset"),
    }
    start, end = _version(source.get("startOffset")), _version(source.get("endOffset"))
    if end is not None:
        entry["startVersion"], entry["endVersion"] = start, end
    match = _PATH_SOURCE.match(description)
    return entry, from_location(match.group(1)) if match else None


def _version(offset: Any) -> str | None:
    if isinstance(offset, dict):
        for key in _VERSION_KEYS:
            if isinstance(offset.get(key), int):
                return str(offset[key])
    return None


def _kafka_offsets(offset: Any) -> dict[tuple[str, int], int] | None:
    """{(topic, partition): offset} of a Kafka source's offset JSON, None if it is not one."""
    if not isinstance(offset, dict) or not offset:
        return None
    found: dict[tuple[str, int], int] = {}
    for topic, partitions in offset.items():
        if not isinstance(partitions, dict):
            return None
        for partition, value in partitions.items():
            if not (isinstance(value, int) and str(partition).lstrip("-").isdigit()):
                return None
            found[(str(topic), int(partition))] = value
    return found


def _finish(record: _Record, run: _Run) -> dict[str, Any]:
    """A record as the facet carries it: sources with their datasets, files or partitions."""
    execution = record.execution
    batch = dict(record.batch)
    sources = []
    backward = False
    for index, (entry, dataset) in enumerate(record.sources):
        entry = dict(entry)
        if dataset is not None:
            entry["namespace"], entry["name"] = dataset.namespace, dataset.name
            if execution is not None and dataset.key in execution.files:
                files, count = execution.files[dataset.key]
                entry["files"], entry["fileCount"] = files, count
        ends = _kafka_offsets(entry["endOffset"])
        if ends is not None:  # the partitions say it all (and stay bounded)
            starts = _kafka_offsets(entry.pop("startOffset")) or {}
            del entry["endOffset"]
            if execution is not None:
                entry["namespace"] = execution.kafka_namespace
                entry["failOnDataLoss"] = execution.fail_on_data_loss
            partitions = []
            for (topic, partition), end in sorted(ends.items()):
                start = starts.get((topic, partition))
                previous = run.kafka_ends.get((str(index), topic, partition))
                run.kafka_ends[(str(index), topic, partition)] = end
                row: dict[str, Any] = {
                    "topic": topic,
                    "partition": partition,
                    "startOffset": start,
                    "endOffset": end,
                }
                if (start is not None and end < start) or (
                    previous is not None and start is not None and start < previous
                ):
                    row["offsetsBackward"] = backward = True
                partitions.append(row)
            entry["partitions"] = partitions[:MAX_PARTITIONS]
            entry["partitionCount"] = len(partitions)
        sources.append(entry)
    batch["sources"] = sources
    batch["sinks"] = execution.sinks if execution is not None else []
    if backward:
        batch["offsetsBackward"] = True
    return batch
