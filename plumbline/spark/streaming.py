"""Structured Streaming: one OpenLineage run per streaming query run, not one per micro-batch.

Every micro-batch is a SQL execution whose QueryExecution is an `IncrementalExecution` (its
query's id, run id and batch id); a `foreachBatch` function's writes are nested executions of it.
`StreamRuns` folds the batches of one query run into one OpenLineage run (its run id is the
query's run id): START with the first batch that writes, RUNNING when a batch reads or writes a
dataset the run had not seen, or at most once per `progress_seconds` with the statistics so far,
and COMPLETE (or FAIL) when the query terminates. Datasets follow the OpenLineage naming: a file
source is its folder, a file sink its path, Kafka `kafka://<first bootstrap server>` and the topic.
"""

from __future__ import annotations

import copy
import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from plumbline.spark import events, jvm
from plumbline.spark import vocabulary as v
from plumbline.spark.datasets import DatasetId, from_location
from plumbline.spark.facts import ActionFacts, DatasetFacts
from plumbline.spark.stream_batches import FACET, MAX_BATCHES, BatchLog

log = logging.getLogger(__name__)

STREAMING = "STREAMING"
_FILE_SINK = re.compile(r"^FileSink\[(.*)\]$")
_DELTA_SINK = re.compile(r"^DeltaSink\[(.*)\]$")  # Delta Lake's streaming sink (`format("delta")`)
_KAFKA_OPTION = "kafka.bootstrap.servers"


# -- naming ---------------------------------------------------------------------------------------


def kafka_namespace(bootstrap_servers: str) -> str:
    """`kafka://host:port` of the first bootstrap server (OpenLineage naming)."""
    first = bootstrap_servers.split(",")[0].strip()
    first = re.sub(r"^[A-Za-z_]+://", "", first)  # PLAINTEXT://host:port
    return f"kafka://{first}"


def kafka_datasets(options: Mapping[str, str], *, sink: bool) -> list[DatasetId]:
    """The topics a Kafka source reads or a Kafka sink writes, from its options.

    Sources: `subscribe` (comma-separated topics) or `assign` (JSON `{"topic": [partitions]}`); a
    `subscribePattern` source names no topic here (a pattern is not a dataset: the topics it
    matched come from the batch's offsets, `offset_topics`). Sinks: the `topic` option (without
    it every row names its own topic: no dataset).
    """
    lowered = {k.lower(): v for k, v in options.items()}
    servers = lowered.get(_KAFKA_OPTION)
    if not servers:
        return []
    namespace = kafka_namespace(servers)
    topics: list[str] = []
    if sink:
        topics = [lowered["topic"]] if lowered.get("topic") else []
    elif lowered.get("subscribe"):
        topics = [t.strip() for t in lowered["subscribe"].split(",") if t.strip()]
    elif lowered.get("assign"):
        try:
            topics = list(json.loads(lowered["assign"]))
        except ValueError:
            topics = []
    return [DatasetId(namespace, topic) for topic in dict.fromkeys(topics)]


def file_sink_location(sink_text: str) -> str | None:
    """The path of a file sink from its `toString()` (`FileSink[path]`)."""
    match = _FILE_SINK.match(sink_text.strip())
    return match.group(1) if match else None


def _scala_options(options: Any, keys: tuple[str, ...]) -> dict[str, str]:
    """The values of `keys` in a Scala Map or Java Map of options (one call per key)."""
    found = {}
    for key in keys:
        value = options.get(key)
        if value is not None and hasattr(value, "isDefined"):
            value = jvm.option(value)
        if value is not None:
            found[key] = str(value)
    return found


_FAIL_ON_DATA_LOSS = "failOnDataLoss"
_KAFKA_KEYS = (
    _KAFKA_OPTION, "subscribe", "assign", "subscribePattern", "topic", _FAIL_ON_DATA_LOSS
)  # fmt: skip
_OPTIONS_CLASS = "org.apache.spark.sql.util.CaseInsensitiveStringMap"


def kafka_options(options: Any) -> dict[str, str]:
    """The Kafka naming keys of a JVM map of options (a stream's, a batch read's or write's)."""
    return _scala_options(options, _KAFKA_KEYS)


@dataclass
class StreamSource:
    """What naming needs of a streaming source leaf: its stream's class and its options."""

    stream: str  # the SparkDataStream's simple class name (`KafkaMicroBatchStream`...)
    options: dict[str, str]  # the Kafka keys among the source's options
    # the topics of the batch's end offset (Kafka's `{"topic": {"partition": offset}}`), when read
    offset_topics: list[str] | None = None


@dataclass
class StreamSink:
    """What naming needs of a micro-batch write: its table's name and class, its options."""

    table: str  # the sink table's `name()` (`KafkaTable`, `MemorySink`...)
    table_class: str  # the sink table's simple class name
    options: dict[str, str]  # the Kafka keys among `writeOptions`


def describe_source(jvm_leaf: Any) -> StreamSource:
    """A streaming DataSource V2 leaf's stream class and options, on every Spark line.

    4.x: the options of the leaf's relation (`StreamingDataSourceV2ScanRelation.relation`) or of
    the leaf itself. 3.5's `StreamingDataSourceV2Relation` has no options: they are the ones its
    scan was built with (the scan's own `CaseInsensitiveStringMap` field; Kafka's `KafkaScan`
    keeps them, as the rate source's scan does), else the stream's.
    """
    stream = jvm_leaf.stream()
    relation = (
        jvm_leaf.relation()
        if jvm.simple_name(jvm_leaf).endswith(v.SCAN_RELATION_SUFFIX)
        else jvm_leaf
    )
    try:
        options = relation.options()
    except Exception:  # py4j's error: 3.5's relation has no options()
        options = _options_field(jvm_leaf.scan()) or _options_field(stream)
    found = _scala_options(options, _KAFKA_KEYS) if options is not None else {}
    name = jvm.simple_name(stream)
    topics = None
    if name.startswith(v.KAFKA_PREFIX) and "subscribePattern" in found:
        topics = offset_topics(jvm.option(jvm_leaf.endOffset()))
    return StreamSource(name, found, topics)


def offset_topics(offset: Any) -> list[str] | None:
    """The topics of a Kafka source offset (`KafkaSourceOffset.json()`: `{"topic": {"0": 5}}`)."""
    if offset is None:
        return None
    try:
        parsed = json.loads(str(offset.json()))
    except ValueError:
        return None
    return sorted(parsed) if isinstance(parsed, dict) else None


def _options_field(obj: Any) -> Any | None:
    """The first `CaseInsensitiveStringMap` field an object of Spark's keeps (through reflection)."""
    if obj is None:
        return None
    cls = obj.getClass()
    while cls is not None:
        for declared in cls.getDeclaredFields():
            if str(declared.getType().getName()) == _OPTIONS_CLASS:
                declared.setAccessible(True)
                return declared.get(obj)
        cls = cls.getSuperclass()
    return None


def describe_sink(cmd: Any) -> StreamSink:
    """A V2 micro-batch write's (`WriteToMicroBatchDataSource`) table and Kafka options.

    Its `table` is the sink table itself on 3.5 and a relation over it on 4.x; either has a name.
    """
    table = cmd.table()
    inner = table
    try:
        inner = table.table()  # 4.x: a DataSourceV2Relation over the table
    except Exception:  # py4j's error: 3.5's table is the sink table itself
        pass
    return StreamSink(
        str(table.name()), jvm.simple_name(inner), _scala_options(cmd.writeOptions(), _KAFKA_KEYS)
    )


def kafka_sources(source: StreamSource) -> list[DatasetId]:
    """The topics a streaming source reads, if it is Kafka's.

    Only a Kafka stream (`KafkaMicroBatchStream`, `KafkaContinuousStream`) names topics: another
    source given the same options (a rate source with `subscribe`) reads no Kafka topic. A
    `subscribePattern` source names the topics its batch's end offset holds (the topics it matched).
    """
    if not source.stream.startswith(v.KAFKA_PREFIX):
        return []
    found = kafka_datasets(source.options, sink=False)
    pattern = next((v for k, v in source.options.items() if k.lower() == "subscribepattern"), None)
    if found or pattern is None or not source.offset_topics:
        return found
    return kafka_datasets(
        {**source.options, "subscribe": ",".join(source.offset_topics)}, sink=False
    )


def kafka_sink(sink: StreamSink) -> DatasetId | None:
    """The topic a micro-batch write writes, if its sink is Kafka's (and names one topic)."""
    if v.KAFKA_TABLE not in (sink.table, sink.table_class):
        return None  # another V2 sink given Kafka options writes no Kafka topic
    found = kafka_datasets(sink.options, sink=True)
    return found[0] if found else None


def sink_output(cmd: Any, name: str) -> DatasetFacts | None:
    """The dataset a micro-batch write writes (None: a foreachBatch or unknown sink)."""
    if name == v.V1_STREAM_WRITE:
        text = str(cmd.sink().toString()).strip()
        location = file_sink_location(text)
        if location is not None:
            dataset = from_location(location)
            return DatasetFacts(dataset, source_uri=dataset.namespace)
        delta_sink = _DELTA_SINK.match(text)
        if delta_sink is None:
            return None  # ForeachBatchSink, memory, console: the writes inside are the outputs
        dataset = from_location(delta_sink.group(1))
        facts = DatasetFacts(dataset, file_format="delta", source_uri=dataset.namespace)
        facts.table_format, facts.format_location = "delta", delta_sink.group(1)
        return facts
    topic = kafka_sink(describe_sink(cmd))
    return DatasetFacts(topic, source_uri=topic.namespace) if topic is not None else None


def source_datasets(jvm_leaf: Any) -> list[DatasetFacts]:
    """The datasets of a streaming DataSource V2 relation (Kafka topics)."""
    source = describe_source(jvm_leaf)
    found = [DatasetFacts(d, source_uri=d.namespace) for d in kafka_sources(source)]
    for facts in found:
        facts.fail_on_data_loss = source.options.get(_FAIL_ON_DATA_LOSS)
    return found


def batch_of(qe: Any) -> str | None:
    """The streaming query's run id when `qe` runs one of its micro-batches, else None."""
    if qe is None or jvm.simple_name(qe) != v.STREAM_EXECUTION:
        return None
    return str(qe.runId().toString())


def foreach_batch_facts(batch: ActionFacts | None, nested: list[ActionFacts]) -> ActionFacts | None:
    """A `foreachBatch` micro-batch: every write of the batch function is an output, and the
    stream's sources (read by the micro-batch itself) are inputs before what the writes read
    (their DataFrame is an RDD of the batch). None when `batch` is not such a micro-batch."""
    writers = [f for f in nested if f.writes]
    if batch is None or batch.writes or not writers:
        return None
    merged = copy.copy(writers[0])
    merged.inputs, merged.outputs = list(batch.inputs), list(writers[0].outputs)
    for facts in writers:
        _absorb(merged, ActionFacts(facts.command, inputs=facts.inputs, outputs=facts.outputs))
        merged.error = merged.error or facts.error
    merged.error = merged.error or batch.error
    return merged


def batch_id_of(qe: Any) -> int | None:
    """The batch id of the micro-batch an `IncrementalExecution` runs (None if unknown)."""
    try:
        return int(qe.currentBatchId())
    except Exception:  # py4j's error: not an IncrementalExecution of this line
        return None


# -- runs -----------------------------------------------------------------------------------------


@dataclass
class _Stream:
    run_id: str
    job_name: str
    facts: ActionFacts
    batches: int = 0
    last_sent_ms: float = 0.0
    stats_in: dict[str, dict[str, int]] = field(default_factory=dict)
    stats_out: dict[str, dict[str, int]] = field(default_factory=dict)


class StreamRuns:
    """Folds micro-batches into one run per streaming query run (worker thread only)."""

    def __init__(
        self,
        app_namespace: str,
        app_job: str,
        emit: Callable[[dict[str, Any]], None],
        run_facets: Callable[[], dict[str, Any]],
        progress_seconds: float = 60.0,
    ) -> None:
        self._namespace = app_namespace
        self._app_job = app_job
        self._emit = emit
        self._run_facets = run_facets
        self._progress_ms = progress_seconds * 1000
        self._streams: dict[str, _Stream] = {}
        self._ended: set[str] = set()
        self.batches = BatchLog()

    def batch(
        self,
        run_id: str,
        facts: ActionFacts,
        time_ms: float,
        batch_id: int | None = None,
        versions: dict[str, str] | None = None,
    ) -> None:
        """One micro-batch ended with `facts` (already merged with its nested writes);
        `versions`: those its outputs committed, by dataset key."""
        if run_id in self._ended:
            return
        if batch_id is not None:
            self.batches.execution(run_id, batch_id, facts, versions or {})
        if not facts.writes:
            return
        facts.processing_type = STREAMING
        stream = self._streams.get(run_id)
        if stream is None:
            stream = _Stream(run_id, events.action_job_name(self._app_job, facts), facts)
            self._streams[run_id] = stream
            new = True
        else:
            new = _absorb(stream.facts, facts)
        _add_stats(stream.stats_in, facts.inputs)
        _add_stats(stream.stats_out, facts.outputs)
        stream.batches += 1
        if facts.error is not None:
            stream.facts.error = facts.error
        if stream.batches == 1:
            self._send("START", stream, time_ms)
        elif (
            new
            or time_ms - stream.last_sent_ms >= self._progress_ms
            or self.batches.ready(run_id) >= MAX_BATCHES
        ):
            self._send("RUNNING", stream, time_ms)

    def progress(self, run_id: str, progress: dict[str, Any], time_ms: float) -> None:
        """The query reported a trigger's progress: a micro-batch's offsets (see stream_batches)."""
        if run_id in self._ended:
            return
        self.batches.progress(run_id, progress)
        stream = self._streams.get(run_id)
        if stream is not None and self.batches.ready(run_id) >= MAX_BATCHES:
            self._send("RUNNING", stream, time_ms)

    def knows(self, run_id: str) -> bool:
        """Whether a batch of the query run wrote (its run started)."""
        return run_id in self._streams

    def terminated(self, run_id: str, error: str | None, time_ms: float) -> None:
        """The query run ended (with its exception's text, if it failed)."""
        self._ended.add(run_id)
        stream = self._streams.pop(run_id, None)
        if stream is None:
            self.batches.forget(run_id)
            return
        # the query's own end decides: `stop()` interrupts a batch that is running (its execution
        # ends with an InterruptedException) yet the query ends without an exception
        stream.facts.error = (error.splitlines()[0], error) if error else None
        self._send("FAIL" if stream.facts.error else "COMPLETE", stream, time_ms)

    def close(self, time_ms: float) -> None:
        """The capture stops: every query run still open completes."""
        for run_id in list(self._streams):
            self.terminated(run_id, None, time_ms)

    def _send(self, event_type: str, stream: _Stream, time_ms: float) -> None:
        stream.last_sent_ms = time_ms
        facts = copy.copy(stream.facts)
        facts.inputs = [_with_stats(d, stream.stats_in) for d in facts.inputs]
        facts.outputs = [_with_stats(d, stream.stats_out) for d in facts.outputs]
        inputs, outputs = events.datasets(facts, with_stats=event_type != "START")
        run_facets = {**self._run_facets(), **events.completeness_facets(facts)}
        batches = self.batches.take(stream.run_id, final=event_type in ("COMPLETE", "FAIL"))
        if batches is not None:
            run_facets[FACET] = batches
        if facts.error is not None and event_type == "FAIL":
            run_facets["errorMessage"] = events.error_message(*facts.error)
        self._emit(
            events.run_event(
                event_type,
                time_ms,
                stream.run_id,
                self._namespace,
                stream.job_name,
                run_facets=run_facets,
                job_facets=events.action_job_facets(facts),
                inputs=inputs,
                outputs=outputs,
            )
        )


def _absorb(into: ActionFacts, batch: ActionFacts) -> bool:
    """Add a batch's datasets to the run's; True when one of them is new to it."""
    new = False
    for mine, theirs in ((into.inputs, batch.inputs), (into.outputs, batch.outputs)):
        known = {d.id.key: i for i, d in enumerate(mine)}
        for dataset in theirs:
            if dataset.id.key in known:
                old = mine[known[dataset.id.key]]
                if dataset.lineage is not None and old.lineage is None:
                    old.lineage = dataset.lineage
            else:
                mine.append(dataset)
                new = True
    return new


def _add_stats(totals: dict[str, dict[str, int]], datasets: list[DatasetFacts]) -> None:
    for dataset in datasets:
        sums = totals.setdefault(dataset.id.key, {})
        for name, value in dataset.stats.items():
            sums[name] = sums.get(name, 0) + value


def _with_stats(dataset: DatasetFacts, totals: dict[str, dict[str, int]]) -> DatasetFacts:
    copied = copy.copy(dataset)
    copied.stats = dict(totals.get(dataset.id.key, {}))
    return copied
