"""Run lifecycle: Spark executions grouped into one OpenLineage run per logical action.

Spark reports some actions as several executions (`saveAsTable` and CTAS run a nested insert).
Nested executions carry their root's id; their facts are merged into the root's run, which
emits START when the root starts (or just before its end, if the plan was no longer
reachable at start) and COMPLETE or FAIL when the root ends. All methods run on the capture's
worker thread, never on Spark's listener thread.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from plumbline.spark import catalog_events, events, formats, jvm, streaming
from plumbline.spark.datasets import redact_text
from plumbline.spark.extract import (
    ActionFacts,
    TableMemory,
    add_metrics,
    add_nested_scan_metrics,
    describe_action,
    describe_plan,
)
from plumbline.spark.settings import PROPERTIES_KEY, captured_properties
from plumbline.spark.vocabulary import SAVE_AS_TABLE_WRAPPERS

log = logging.getLogger(__name__)


@dataclass
class AppRun:
    """The Spark application's own run, parent of every action's run."""

    namespace: str
    job_name: str
    run_id: str
    spark_version: str
    app_id: str = ""  # SparkContext.applicationId: with an execution id, an action's run id
    attempt: str | None = None


@dataclass
class _ActionRun:
    run_id: str
    start_ms: float | None = None
    started: bool = False
    command: str | None = None  # the root execution's command, when read at its start
    nested: dict[int, ActionFacts] = field(default_factory=dict)  # by execution id
    at_start: dict[int, ActionFacts] = field(default_factory=dict)  # by execution id
    readers: list[Any] = field(default_factory=list)  # QueryExecutions of nested reads
    stream: str | None = None  # the streaming query's run id, for a micro-batch
    batch_id: int | None = None  # and the micro-batch's id
    failed_reads: int = 0  # input records read by task attempts that failed (not in SQL metrics)


class RunTracker:
    """Turns execution start/end notifications into START/COMPLETE/FAIL events."""

    def __init__(self, session: Any, app: AppRun, emit: Callable[[dict[str, Any]], None]) -> None:
        self._session = session
        self._app = app
        self._emit = emit
        self._runs: dict[int, _ActionRun] = {}
        self._root_of: dict[int, int] = {}
        self._tables = TableMemory()
        # without Spark's catalog events an IF [NOT] EXISTS statement counts as a change
        self._catalog = catalog_events.attach(session, jvm._JVM[0])
        self._properties: dict[str, str] | None = None
        self.streams = streaming.StreamRuns(app.namespace, app.job_name, emit, self.run_facets)
        # input records read by the failed task attempts of an execution (see listener.py)
        self.failed_reads: Callable[[int], int] = lambda execution_id: 0

    def _run_id(self, root_id: int) -> str:
        """The action's run id: from the application and root execution ids (as extraction
        from the event log makes it), random when the application id is not known."""
        if not self._app.app_id:
            return events.new_run_id()
        return events.execution_run_id(self._app.app_id, self._app.attempt, root_id)

    def spark_properties(self) -> dict[str, str]:
        """The allow-listed Spark properties (read once; see `settings.captured_properties`)."""
        if self._properties is None:
            self._properties = {}
            try:
                conf = self._session.conf()
                extra = conf.get(PROPERTIES_KEY, "")
                for key in captured_properties(str(extra) if extra else ""):
                    value = conf.get(key, None)
                    if value is not None:
                        self._properties[key] = redact_text(str(value))
            except Exception:
                log.debug("cannot read the Spark properties", exc_info=True)
        return self._properties

    def stream_ended(self, run_id: str, error: str | None, time_ms: float, execution: Any) -> None:
        """A streaming query run terminated. One that failed before any micro-batch wrote is
        named after the query's own plan (`execution`: its StreamExecution), START then FAIL."""
        if error and execution is not None and not self.streams.knows(run_id):
            try:
                facts = describe_plan(self._session, execution.logicalPlan())
            except Exception as exc:
                log.info("plumbline cannot read the plan of a failed streaming query: %s", exc)
            else:
                facts.error = (error.splitlines()[0], error)
                self.streams.batch(run_id, facts, time_ms)
        self.streams.terminated(run_id, error, time_ms)

    def close(self, time_ms: float) -> None:
        """Stop following the catalog's events; streaming query runs still open complete."""
        self.streams.close(time_ms)
        if self._catalog is not None:
            self._catalog.detach()

    def execution_started(self, execution_id: int, root_id: int, qe: Any, time_ms: float) -> None:
        """A SQL execution started; `qe` is its QueryExecution (None if already gone)."""
        self._root_of[execution_id] = root_id
        run = self._runs.setdefault(root_id, _ActionRun(self._run_id(root_id)))
        if execution_id != root_id:
            # a wrapper's first nested write is the action (Spark 4.1's saveAsTable): START now
            if run.command in SAVE_AS_TABLE_WRAPPERS and not run.started and qe is not None:
                facts = describe_action(self._session, qe, with_metrics=False, memory=self._tables)
                run.at_start[execution_id] = facts
                if facts.writes:
                    self._send_start(run, facts, time_ms)
            return
        run.start_ms = time_ms
        if qe is None:
            return
        facts = describe_action(self._session, qe, with_metrics=False, memory=self._tables)
        run.at_start[execution_id] = facts  # the plan does not change: read once
        run.command = facts.command
        run.stream = streaming.batch_of(qe)
        if run.stream is not None:  # micro-batches are folded into the query's run at their end
            run.batch_id = streaming.batch_id_of(qe)
            return
        # a conditional DDL may be a no-op: its START waits for the verdict at the end
        if facts.writes and not any(_conditional_ddl(d) for d in facts.outputs):
            self._send_start(run, facts)

    def execution_ended(self, execution_id: int, qe: Any, failure: Any, time_ms: float) -> None:
        """A SQL execution ended; `failure` is a JVM Throwable or None."""
        root_id = self._root_of.pop(execution_id, execution_id)
        run = self._runs.setdefault(root_id, _ActionRun(self._run_id(root_id)))
        if execution_id == root_id and execution_id not in run.at_start:  # START not read
            run.stream = streaming.batch_of(qe)
            if run.stream is not None:
                run.batch_id = streaming.batch_id_of(qe)
        facts = self._facts_at_end(run, execution_id, qe)
        if failure is not None:
            run.failed_reads += self.failed_reads(execution_id)
        if facts is not None and failure is not None:
            facts.error = jvm.failure_text(failure)
        if execution_id != root_id:
            if facts is not None:
                run.nested[execution_id] = facts
                if not facts.writes:
                    run.readers.append(qe)
            return
        del self._runs[root_id]
        changes = None
        if self._catalog is not None:  # a nested execution may have made them (4.1 saveAsTable)
            changes = self._catalog.take(root_id)
            for nested_id in run.nested:
                changes |= self._catalog.take(nested_id)
        nested = [run.nested[i] for i in sorted(run.nested)]
        merged = streaming.foreach_batch_facts(facts, nested) if run.stream else None
        if merged is None:
            merged = merge_executions(facts, nested)
        if merged is not None:
            for reader in run.readers:
                add_nested_scan_metrics(reader, merged)
            if changes is not None:
                _apply_catalog_changes(merged, changes)
            self._tables.remember(merged, changes)
        if merged is not None and run.stream is not None:
            _add_nested_outputs(merged, [run.nested[i] for i in sorted(run.nested)])
            versions = self._committed(run, merged, time_ms) if run.batch_id is not None else {}
            self.streams.batch(run.stream, merged, time_ms, run.batch_id, versions)
            return
        if merged is None or not merged.writes:
            return
        if merged.error is not None and run.failed_reads:
            _add_failed_reads(merged, run.failed_reads)
        if not run.started:
            self._send_start(run, merged, time_ms if run.start_ms is None else run.start_ms)
        self._send_end(run, merged, time_ms)

    def _facts_at_end(self, run: _ActionRun, execution_id: int, qe: Any) -> ActionFacts | None:
        """The plan read at start plus the metrics, or the whole plan if it was not read then."""
        if qe is None:
            return None
        known = run.at_start.pop(execution_id, None)
        if known is None:
            return describe_action(self._session, qe, with_metrics=True, memory=self._tables)
        facts = copy.deepcopy(known)
        add_metrics(qe, facts)
        return facts

    # events -----------------------------------------------------------------------------------

    def run_facets(self) -> dict[str, Any]:
        """Run facets every action's run carries: parent, processing engine, Spark properties."""
        app = self._app
        facets = {
            "parent": events.parent(app.namespace, app.job_name, app.run_id),
            "processing_engine": events.processing_engine(app.spark_version),
        }
        properties = self.spark_properties()
        if properties:
            facets["spark_properties"] = events.spark_properties(properties)
        return facets

    def _send_start(
        self, run: _ActionRun, facts: ActionFacts, time_ms: float | None = None
    ) -> None:
        run.started = True
        if any(d.needs_catalog_event for d in facts.outputs):  # CREATE not known yet
            facts = copy.copy(facts)
            facts.outputs = [copy.copy(d) for d in facts.outputs]
            for output in facts.outputs:
                if output.needs_catalog_event:
                    output.lifecycle = None
        inputs, outputs = events.datasets(facts, with_stats=False)
        self._emit(
            events.run_event(
                "START",
                time_ms if time_ms is not None else (run.start_ms or 0),
                run.run_id,
                self._app.namespace,
                events.action_job_name(self._app.job_name, facts),
                run_facets={**self.run_facets(), **events.completeness_facets(facts)},
                job_facets=events.action_job_facets(facts),
                inputs=inputs,
                outputs=outputs,
            )
        )

    def _committed(self, run: _ActionRun, facts: ActionFacts, time_ms: float) -> dict[str, str]:
        """The versions a micro-batch's table-format outputs committed, by dataset key (a file
        sink's batch has no version of its own)."""
        versions = {}
        if facts.error is None:
            for output in facts.outputs:
                if output.table_format is not None:
                    committed = formats.committed_version(
                        self._session, output, run.start_ms, time_ms
                    )
                    if committed is not None:
                        versions[output.id.key] = committed
        return versions

    def _send_end(self, run: _ActionRun, facts: ActionFacts, time_ms: float) -> None:
        versions = self._committed(run, facts, time_ms)
        if facts.error is None:
            for output in facts.outputs:
                # files have no versions of their own: each write makes one, named by its run
                # (a digest of the files would race with the job's next write to them)
                if output.table_format is None and output.local_path:
                    if output.lifecycle != "DROP" and _wrote(output):
                        versions[output.id.key] = run.run_id
        formats.read_versions(self._session, facts.inputs, run.start_ms)
        inputs, outputs = events.datasets(facts, with_stats=True, versions=versions)
        run_facets = {**self.run_facets(), **events.completeness_facets(facts)}
        if facts.error is not None:
            run_facets["errorMessage"] = events.error_message(*facts.error)
        else:
            formats.null_columns(self._session, facts.outputs, versions)
            run_facets.update(events.deviation_facets(facts))
        self._emit(
            events.run_event(
                "FAIL" if facts.error is not None else "COMPLETE",
                time_ms,
                run.run_id,
                self._app.namespace,
                events.action_job_name(self._app.job_name, facts),
                run_facets=run_facets,
                job_facets=events.action_job_facets(facts),
                inputs=inputs,
                outputs=outputs,
            )
        )


def _add_nested_outputs(facts: ActionFacts, nested: list[ActionFacts]) -> None:
    """A micro-batch's `foreachBatch` may write several datasets: each is an output."""
    known = {d.id.key for d in facts.outputs}
    for other in nested:
        for output in other.outputs:
            if output.id.key not in known:
                known.add(output.id.key)
                facts.outputs.append(output)


def _add_failed_reads(facts: ActionFacts, records: int) -> None:
    """Count in a failed action's input the records its failed task attempts read, which Spark's
    SQL metrics leave out (a job whose only task failed read '0 rows'). Only with one input:
    task metrics do not say which of several inputs the records came from."""
    if len(facts.inputs) == 1:
        stats = facts.inputs[0].stats
        stats["rowCount"] = stats.get("rowCount", 0) + records


def _wrote(output: Any) -> bool:
    """False when an Ignore-mode write found its target there and wrote nothing (no new version)."""
    return not output.ignore_mode or bool(
        output.stats.get("fileCount") or output.stats.get("rowCount")
    )


def _conditional_ddl(output: Any) -> bool:
    return output.needs_catalog_event is not None and output.lineage is None


def _apply_catalog_changes(facts: ActionFacts, changes: set[tuple[str, str, str]]) -> None:
    """Drop the outputs of IF [NOT] EXISTS DDL that changed nothing; a CREATE ... AS SELECT
    into a table that already existed (saveAsTable in append mode) creates nothing."""
    if facts.error is not None:
        return
    kept = []
    for output in facts.outputs:
        expected = output.needs_catalog_event
        if expected is not None:
            kind, database, table = expected
            if (kind, database.lower(), table.lower()) not in changes:
                if _conditional_ddl(output):  # a no-op
                    continue
                output.lifecycle = None
        kept.append(output)
    facts.outputs = kept


def merge_executions(root: ActionFacts | None, nested: list[ActionFacts]) -> ActionFacts | None:
    """The root execution's facts, completed with what its nested executions measured.

    `nested` in the order the executions started: when the root writes nothing (a wrapper like
    `SaveAsV1TableCommand`), the first nested write (the outermost) is the action.
    """
    writers = [f for f in nested if f.writes]
    if root is None or not root.writes:
        root = writers[0] if writers else root
    if root is None:
        return None
    for other in nested:
        if other is root:
            continue
        root.error = root.error or other.error
        outputs = {d.id.key: d for d in other.outputs}
        for output in root.outputs:
            match = outputs.get(output.id.key)
            if match is not None:
                output.stats = output.stats or match.stats
                output.file_format = output.file_format or match.file_format
                output.local_path = output.local_path or match.local_path
        inputs = {d.id.key: d for d in other.inputs}
        for dataset in root.inputs:
            match = inputs.get(dataset.id.key)
            if match is not None and not dataset.stats:
                dataset.stats = match.stats
    return root
