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

from plumbline.spark import events, jvm
from plumbline.spark.extract import ActionFacts, add_metrics, describe_action, reusable
from plumbline.spark.versions import file_output_version

log = logging.getLogger(__name__)


@dataclass
class AppRun:
    """The Spark application's own run, parent of every action's run."""

    namespace: str
    job_name: str
    run_id: str
    spark_version: str


@dataclass
class _ActionRun:
    run_id: str
    start_ms: float | None = None
    started: bool = False
    nested: list[ActionFacts] = field(default_factory=list)
    at_start: dict[int, ActionFacts] = field(default_factory=dict)  # by execution id


class RunTracker:
    """Turns execution start/end notifications into START/COMPLETE/FAIL events."""

    def __init__(self, session: Any, app: AppRun, emit: Callable[[dict[str, Any]], None]) -> None:
        self._session = session
        self._app = app
        self._emit = emit
        self._runs: dict[int, _ActionRun] = {}
        self._root_of: dict[int, int] = {}

    def execution_started(self, execution_id: int, root_id: int, qe: Any, time_ms: float) -> None:
        """A SQL execution started; `qe` is its QueryExecution (None if already gone)."""
        self._root_of[execution_id] = root_id
        run = self._runs.setdefault(root_id, _ActionRun(events.new_run_id()))
        if execution_id != root_id:
            return
        run.start_ms = time_ms
        if qe is None:
            return
        facts = describe_action(self._session, qe, with_metrics=False)
        if reusable(facts):
            run.at_start[execution_id] = facts
        if facts.writes:
            self._send_start(run, facts)

    def execution_ended(self, execution_id: int, qe: Any, failure: Any, time_ms: float) -> None:
        """A SQL execution ended; `failure` is a JVM Throwable or None."""
        root_id = self._root_of.pop(execution_id, execution_id)
        run = self._runs.setdefault(root_id, _ActionRun(events.new_run_id()))
        facts = self._facts_at_end(run, execution_id, qe)
        if facts is not None and failure is not None:
            facts.error = jvm.failure_text(failure)
        if execution_id != root_id:
            if facts is not None:
                run.nested.append(facts)
            return
        del self._runs[root_id]
        merged = _merge(facts, run.nested)
        if merged is None or not merged.writes:
            return
        if not run.started:
            self._send_start(run, merged, time_ms if run.start_ms is None else run.start_ms)
        self._send_end(run, merged, time_ms)

    def _facts_at_end(self, run: _ActionRun, execution_id: int, qe: Any) -> ActionFacts | None:
        """The plan read at start plus the metrics, or the whole plan if it was not read then."""
        if qe is None:
            return None
        known = run.at_start.pop(execution_id, None)
        if known is None:
            return describe_action(self._session, qe, with_metrics=True)
        facts = copy.deepcopy(known)
        add_metrics(qe, facts)
        return facts

    # events -----------------------------------------------------------------------------------

    def _run_facets(self) -> dict[str, Any]:
        app = self._app
        return {
            "parent": events.parent(app.namespace, app.job_name, app.run_id),
            "processing_engine": events.processing_engine(app.spark_version),
        }

    def _send_start(
        self, run: _ActionRun, facts: ActionFacts, time_ms: float | None = None
    ) -> None:
        run.started = True
        inputs, outputs = events.datasets(facts, with_stats=False)
        self._emit(
            events.run_event(
                "START",
                time_ms if time_ms is not None else (run.start_ms or 0),
                run.run_id,
                self._app.namespace,
                events.action_job_name(self._app.job_name, facts),
                run_facets=self._run_facets(),
                job_facets=events.action_job_facets(facts),
                inputs=inputs,
                outputs=outputs,
            )
        )

    def _send_end(self, run: _ActionRun, facts: ActionFacts, time_ms: float) -> None:
        versions = {}
        if facts.error is None:
            for output in facts.outputs:
                if output.local_path and output.lifecycle != "DROP":
                    versions[output.id.key] = file_output_version(run.run_id)
        inputs, outputs = events.datasets(facts, with_stats=True, versions=versions)
        run_facets = self._run_facets()
        if facts.error is not None:
            run_facets["errorMessage"] = events.error_message(*facts.error)
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


def _merge(root: ActionFacts | None, nested: list[ActionFacts]) -> ActionFacts | None:
    """The root execution's facts, completed with what its nested executions measured."""
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
