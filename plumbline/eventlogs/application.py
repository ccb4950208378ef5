"""One Spark application's event log, read event by event, as OpenLineage run events.

`ApplicationLog.feed(event)` takes the log's events in order (parsed JSON objects) and returns the
OpenLineage events they complete: the application's START and COMPLETE, and for each action
(a root SQL execution and its nested ones) START then COMPLETE or FAIL when it ends. It keeps only
what running executions need (their latest plan, the values of their metrics), so memory follows
the number of executions running at once, not the size of the log. Actions are described as the
live capture describes them (`ActionFacts`, `events`, `lineage`) and get the same job names and
run ids, so lineage extracted from a log and captured live land on the same runs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from plumbline.eventlogs import planinfo
from plumbline.eventlogs.errors import EventLogError
from plumbline.eventlogs.outputs import LOG_OUTPUTS, format_table
from plumbline.eventlogs.planinfo import MODES, ConvertedPlan, Scan
from plumbline.openlineage.schema_urls import EXTRACTION_FACET_SCHEMA_URL
from plumbline.spark.surface import (
    DIRECT,
    IDENTITY,
    OUTPUT_COMMANDS,
    PROPERTIES_KEY,
    ActionFacts,
    DatasetFacts,
    Deps,
    Kind,
    LineageWalker,
    Node,
    TableInfo,
    captured_properties,
    column_lineage,
    events,
    from_location,
    from_table,
    merge_executions,
    output_names,
    redact_text,
)
from plumbline.spark.surface import vocabulary as v

log = logging.getLogger(__name__)

_SQL = "org.apache.spark.sql.execution.ui."
_CATALOG = "org.apache.spark.sql.catalyst.catalog."
_WRITE_METRICS = {
    "number of output rows": "rowCount",
    "written output": "size",
    "number of written files": "fileCount",
}
_SCAN_METRICS = {
    "number of output rows": "rowCount",
    "size of files read": "size",
    "number of files read": "fileCount",
}
KNOWN_SPARK_LINES = ("3.", "4.")
MAX_UNNAMED = 100  # unnamed writes listed in the application's facet


@dataclass
class _Execution:
    execution_id: int
    root_id: int
    start_ms: float
    info: dict[str, Any]  # the latest sparkPlanInfo (adaptive plans are updated while running)
    description: str
    metrics: dict[int, int] = field(default_factory=dict)  # accumulator id -> value
    catalog: set[tuple[str, str, str]] = field(default_factory=set)
    _plan: ConvertedPlan | None = None

    @property
    def plan(self) -> ConvertedPlan:
        """The latest plan as nodes, converted once, when the execution has ended."""
        if self._plan is None:
            self._plan = planinfo.convert(self.info, self.description)
        return self._plan


@dataclass
class _Query:
    """A nested execution that writes nothing: the query a V2 or JDBC write ran (its reads)."""

    root: Node
    inputs: list[DatasetFacts]
    source_of: Any


@dataclass
class _Action:
    start_ms: float
    finished: dict[int, tuple[ActionFacts, int]] = field(default_factory=dict)  # id -> truncation
    queries: dict[int, _Query] = field(default_factory=dict)


@dataclass
class LogStats:
    """What one log held: events read, executions ended, actions emitted."""

    events: int = 0
    executions: int = 0
    actions: int = 0
    unnamed: list[dict[str, Any]] = field(default_factory=list)  # writes the log cannot name


class ApplicationLog:
    """Turns one application's events into OpenLineage events (see the module docstring)."""

    def __init__(self, source: str, namespace: str | None = None) -> None:
        self.source = source
        self.stats = LogStats()
        self._namespace_option = namespace
        self.namespace = namespace or "default"
        self.spark_version = ""
        self.app_id: str | None = None
        self.attempt: str | None = None
        self.app_name = "spark_application"
        self.app_run_id = ""
        self.ended = False
        self._properties: dict[str, str] = {}
        self._warehouse: str | None = None
        self._jdbc_catalogs: dict[str, str] = {}  # V2 JDBC catalog name -> its URL
        # V2 catalogs of table formats with a warehouse: name -> (class, warehouse URI, type)
        self._format_catalogs: dict[str, tuple[str, str, str]] = {}
        self._running: dict[int, _Execution] = {}
        self._actions: dict[int, _Action] = {}
        self._owner: dict[int, int] = {}  # accumulator id -> execution id
        # the last failure of an execution or a Spark job: the application did not complete
        self._failure: tuple[str, str] | None = None

    # -- the event stream ---------------------------------------------------------------------

    def feed(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """Take the next event of the log; returns the OpenLineage events it completes."""
        self.stats.events += 1
        kind = str(event.get("Event", ""))
        if kind == "SparkListenerLogStart":
            self.spark_version = str(event.get("Spark Version", ""))
            if not self.spark_version.startswith(KNOWN_SPARK_LINES):
                raise EventLogError(
                    f"a log of Spark {self.spark_version or '?'}, which plumbline does not know"
                )
        elif kind == "SparkListenerEnvironmentUpdate":
            self._environment(event)
        elif kind == "SparkListenerApplicationStart":
            return self._application_start(event)
        elif kind == "SparkListenerApplicationEnd":
            self.ended = True
            ended = "FAIL" if self._failure is not None else "COMPLETE"
            return [self._application_event(ended, float(event.get("Timestamp", 0)))]
        elif kind == "SparkListenerJobEnd":
            self._job_end(event)

        elif kind.startswith(_SQL):
            return self._sql_event(kind[len(_SQL) :], event)
        elif kind == "SparkListenerTaskEnd":
            self._task_end(event)
        elif kind.startswith(_CATALOG) and kind[len(_CATALOG) :] in v.CATALOG_EVENTS:
            change = (
                kind[len(_CATALOG) :],
                str(event.get("database", "")).lower(),
                str(event.get("name", "")).lower(),
            )
            for execution in self._running.values():
                execution.catalog.add(change)
        return []

    def _environment(self, event: dict[str, Any]) -> None:
        raw = event.get("Spark Properties") or {}
        pairs = raw.items() if isinstance(raw, dict) else [tuple(p) for p in raw if len(p) == 2]
        conf = {str(k): str(v) for k, v in pairs}
        if self._namespace_option is None:
            self.namespace = conf.get("spark.plumbline.namespace") or "default"
        self._properties = {
            name: redact_text(conf[name])
            for name in captured_properties(conf.get(PROPERTIES_KEY, ""))
            if name in conf
        }
        self._jdbc_catalogs = {
            key.removeprefix("spark.sql.catalog."): conf.get(f"{key}.url", "")
            for key, value in conf.items()
            if key.startswith("spark.sql.catalog.")
            and key.count(".") == 3
            and v.JDBC_TABLE_CATALOG in value
        }
        self._format_catalogs = {
            key.removeprefix("spark.sql.catalog."): (
                value,
                _uri(conf.get(f"{key}.warehouse", "")),
                conf.get(f"{key}.type", ""),
            )
            for key, value in conf.items()
            if key.startswith("spark.sql.catalog.")
            and key.count(".") == 3
            and value in (*v.PAIMON_CATALOGS, *v.ICEBERG_CATALOGS)
            and conf.get(f"{key}.warehouse")
        }
        warehouse = conf.get("spark.sql.warehouse.dir")
        if warehouse:
            warehouse = warehouse.rstrip("/")
            self._warehouse = (
                warehouse if ":" in warehouse.split("/", 1)[0] else f"file:{warehouse}"
            )

    def _application_start(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        self.app_id = str(event.get("App ID") or "")
        attempt = event.get("App Attempt ID")
        self.attempt = str(attempt) if attempt else None
        self.app_name = events.normalize_name(str(event.get("App Name", ""))) or "spark_application"
        self.app_run_id = events.app_run_id(self.app_id, self.attempt)
        return [self._application_event("START", float(event.get("Timestamp", 0)))]

    def _application_event(self, event_type: str, time_ms: float) -> dict[str, Any]:
        """The application run's START, or its end: FAIL (with the last failure's error) when
        one of its executions or Spark jobs failed, even though the log ends normally."""
        run_facets = {
            "processing_engine": events.processing_engine(self.spark_version),
            "plumbline_extraction": self._extraction_facet(
                None, 0, self.stats.unnamed if event_type != "START" else None
            ),
        }
        if event_type == "FAIL" and self._failure is not None:
            run_facets["errorMessage"] = events.error_message(*self._failure)
        return events.run_event(
            event_type,
            time_ms,
            self.app_run_id,
            self.namespace,
            self.app_name,
            run_facets=run_facets,
            job_facets={"jobType": events.job_type("APPLICATION")},
        )

    def _job_end(self, event: dict[str, Any]) -> None:
        """A failed Spark job (an RDD action's, or one of an execution's) fails the application."""
        result = event.get("Job Result") or {}
        if not isinstance(result, dict) or result.get("Result") != "JobFailed":
            return
        exception = result.get("Exception") or {}
        message = str(exception.get("Message") or "a Spark job failed").partition("\n")[0]
        stack = exception.get("Stack Trace") or ""
        if isinstance(stack, list):
            stack = "\n".join(
                f"{f.get('Declaring Class')}.{f.get('Method Name')}"
                for f in stack
                if isinstance(f, dict)
            )
        self._failure = (redact_text(message), redact_text(str(stack)))

    def _sql_event(self, kind: str, event: dict[str, Any]) -> list[dict[str, Any]]:
        if kind == "SparkListenerSQLExecutionStart":
            execution_id = int(event["executionId"])
            root_id = int(event.get("rootExecutionId", execution_id))
            execution = _Execution(
                execution_id, root_id, float(event.get("time", 0)), *self._plan(event)
            )
            self._running[execution_id] = execution
            self._own(execution)
            self._actions.setdefault(root_id, _Action(execution.start_ms))
        elif kind == "SparkListenerSQLAdaptiveExecutionUpdate":
            updated = self._running.get(int(event["executionId"]))
            if updated is not None:
                updated.info, updated.description = self._plan(event)
                self._own(updated)
        elif kind == "SparkListenerDriverAccumUpdates":
            for pair in event.get("accumUpdates") or []:
                self._add_metric(int(pair[0]), int(pair[1]))
        elif kind == "SparkListenerSQLExecutionEnd":
            return self._execution_end(event)
        return []

    def _plan(self, event: dict[str, Any]) -> tuple[dict[str, Any], str]:
        info = event.get("sparkPlanInfo")
        return (info if isinstance(info, dict) else {}), str(
            event.get("physicalPlanDescription") or ""
        )

    def _own(self, execution: _Execution) -> None:
        """Follow the metrics of the plan's writes and scans (the plan is converted at the end)."""
        for accumulator in planinfo.io_metric_ids(execution.info):
            self._owner[accumulator] = execution.execution_id

    def _add_metric(self, accumulator: int, value: int) -> None:
        owner = self._owner.get(accumulator)
        execution = self._running.get(owner) if owner is not None else None
        if execution is not None:
            execution.metrics[accumulator] = execution.metrics.get(accumulator, 0) + value

    def _task_end(self, event: dict[str, Any]) -> None:
        reason = event.get("Task End Reason") or {}
        if reason.get("Reason") != "Success":
            return
        for update in (event.get("Task Info") or {}).get("Accumulables") or []:
            accumulator = update.get("ID")
            if accumulator in self._owner:
                try:
                    self._add_metric(int(accumulator), int(update.get("Update") or 0))
                except (TypeError, ValueError):
                    continue

    def _execution_end(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        execution = self._running.pop(int(event["executionId"]), None)
        if execution is None:
            return []
        self.stats.executions += 1
        for accumulator in [a for a, e in self._owner.items() if e == execution.execution_id]:
            del self._owner[accumulator]
        action = self._actions.setdefault(execution.root_id, _Action(execution.start_ms))
        facts = self._describe(execution, action)
        error = str(event.get("errorMessage") or "")
        if error:
            message, _, stack = error.partition("\n")
            facts.error = (redact_text(_cause_first(message, stack)), redact_text(stack))
            self._failure = facts.error
        action.finished[execution.execution_id] = (facts, execution.plan.truncated_nodes)
        if execution.execution_id != execution.root_id:
            return []
        del self._actions[execution.root_id]
        return self._action_events(execution.root_id, action, float(event.get("time", 0)))

    # -- one action -----------------------------------------------------------------------------

    def _describe(self, execution: _Execution, action: _Action) -> ActionFacts:
        plan = execution.plan
        reads: dict[int, list[DatasetFacts]] = {}
        inputs: dict[str, DatasetFacts] = {}
        for leaf_id, scan in plan.scans.items():
            found = self._scan_datasets(scan)
            reads[leaf_id] = found
            stats = {
                _SCAN_METRICS[name]: execution.metrics[acc]
                for name, acc in scan.metrics.items()
                if name in _SCAN_METRICS and acc in execution.metrics
            }
            for dataset in found:
                known = inputs.setdefault(dataset.id.key, dataset)
                if len(found) == 1:
                    for metric, value in stats.items():
                        known.stats[metric] = known.stats.get(metric, 0) + value

        def source_of(leaf: Any, column: str) -> Deps:
            return {(d.id.key, column): {(DIRECT, IDENTITY)} for d in reads.get(id(leaf), [])}

        if plan.write is None:
            if inputs and execution.execution_id != execution.root_id:
                query = _Query(plan.root, list(inputs.values()), source_of)
                action.queries[execution.execution_id] = query
            return ActionFacts(plan.root.name)
        facts = ActionFacts(plan.write.command)
        facts.inputs = list(inputs.values())
        output = self._write_output(execution, facts.command)
        if output is not None:
            output.lineage = column_lineage(plan.root, source_of, unhandled=False)
            output.schema = _output_schema(plan.root, output, inputs) or output.schema
            output.stats = {
                _WRITE_METRICS[name]: execution.metrics[acc]
                for name, acc in plan.write.metrics.items()
                if name in _WRITE_METRICS and acc in execution.metrics
            }
            facts.outputs = [output]
        return facts

    def _scan_datasets(self, scan: Scan) -> list[DatasetFacts]:
        parts = scan.v2_table or []
        if len(parts) > 1:  # a table of a format catalog the log names (Iceberg's Hadoop)
            name, ident = (parts[0], parts[1:]) if len(parts) > 2 else (None, parts)
            catalog = self.format_catalog_named(name, "iceberg")
            return [format_table(*catalog, ident)] if catalog is not None else []
        if scan.table is not None and scan.locations:
            database, table = scan.table
            info = TableInfo(database, table, scan.locations[0], scan.file_format)
            info.warehouse = self.warehouse_of(scan.locations[0])
            dataset = from_table(scan.locations[0], table)
            return [DatasetFacts(dataset, scan.schema, scan.file_format, info, dataset.namespace)]
        found = dict.fromkeys(from_location(p) for p in scan.locations)
        return [DatasetFacts(d, scan.schema, scan.file_format, None, d.namespace) for d in found]

    def _write_output(self, execution: _Execution, command: str) -> DatasetFacts | None:
        """The dataset a write command wrote, by the event-log handler its entry in
        `vocabulary.OUTPUT_COMMANDS` names (`outputs.LOG_OUTPUTS`)."""
        entry = OUTPUT_COMMANDS.get(command)
        if entry is None or entry.log is None:
            return None
        args = execution.plan.write.arguments if execution.plan.write else []
        mode = next((a for a in args if a in MODES), None)
        facts, mode = LOG_OUTPUTS[entry.log](self, execution, command, args, mode)
        if facts is None:
            return None
        facts.source_uri = facts.id.namespace
        facts.lifecycle = {"Overwrite": "OVERWRITE", "Create": "CREATE"}.get(mode or "")
        if entry.kind in (Kind.V2_WRITE, Kind.DDL):  # the command's own change
            facts.lifecycle = entry.lifecycle
        facts.ignore_mode = mode == "Ignore"
        return facts

    def jdbc_urls(self) -> set[str]:
        """The URLs of the JDBC catalogs the log's environment declares."""
        return {url for url in self._jdbc_catalogs.values() if url}

    def format_catalog(self, catalog_class: str) -> tuple[str, str] | None:
        """(warehouse URI, format) of the one catalog of class `catalog_class` the log's
        environment declares with a warehouse (Paimon's; Iceberg's of type hadoop), else None."""
        found = [
            _format_of(cls, warehouse, kind)
            for cls, warehouse, kind in self._format_catalogs.values()
            if cls == catalog_class
        ]
        named = [f for f in found if f is not None]
        return named[0] if len(found) == 1 and named else None

    def format_catalog_named(self, name: str | None, table_format: str) -> tuple[str, str] | None:
        """(warehouse URI, format) of the `table_format` catalog called `name` (None: the only
        one the environment declares), as `format_catalog`."""
        if name is None:  # every catalog of the format counts, whether a log names its tables
            classes = v.PAIMON_CATALOGS if table_format == "paimon" else v.ICEBERG_CATALOGS
            ours = [e for e in self._format_catalogs.values() if e[0] in classes]
            return _format_of(*ours[0]) if len(ours) == 1 else None
        entry = self._format_catalogs.get(name)
        found_one = _format_of(*entry) if entry is not None else None
        return found_one if found_one is not None and found_one[1] == table_format else None

    def warehouse_of(self, location: str) -> str:
        """The warehouse of a table at `location` (the log's, else the location's parent)."""
        return self._warehouse or location.rstrip("/").rsplit("/", 1)[0]

    def unnamed(self, execution: _Execution, command: str, reason: str, table: str = "") -> None:
        """A write the log cannot name, listed in the application's facet."""
        self._unnamed(execution, command, reason, table)

    def _unnamed(self, execution: _Execution, command: str, reason: str, table: str = "") -> None:
        entry: dict[str, Any] = {
            "executionId": execution.execution_id,
            "command": command,
            "reason": reason,
        }
        if table:
            entry["table"] = table
        self.stats.unnamed.append(entry)

    def _action_events(self, root_id: int, action: _Action, end_ms: float) -> list[dict[str, Any]]:
        ordered = [action.finished[i] for i in sorted(action.finished)]
        root_facts = action.finished.get(root_id, (None, 0))[0]
        nested = [f for i, (f, _) in sorted(action.finished.items()) if i != root_id]
        every = [f for _, (f, _) in sorted(action.finished.items())]
        for position, table_write in enumerate(every):  # Spark 4.1+: CTAS nested in a wrapper
            _complete_table_writes(table_write, every[position + 1 :])
        facts = merge_executions(root_facts, nested)
        if facts is not None and facts.writes:
            _complete_from_nested(facts, every, [action.queries[i] for i in sorted(action.queries)])
        if facts is None or not facts.writes:
            return []
        self.stats.actions += 1
        truncated = sum(t for _, t in ordered)
        run_id = events.execution_run_id(self.app_id or self.source, self.attempt, root_id)
        run_facets = {
            "parent": events.parent(self.namespace, self.app_name, self.app_run_id),
            "processing_engine": events.processing_engine(self.spark_version),
            "plumbline_extraction": self._extraction_facet(root_id, truncated),
            **events.completeness_facets(facts, truncated),
        }
        if self._properties:
            run_facets["spark_properties"] = events.spark_properties(self._properties)
        job = events.action_job_name(self.app_name, facts)
        job_facets = events.action_job_facets(facts)
        inputs, outputs = events.datasets(facts, with_stats=False)
        start = events.run_event(
            "START",
            action.start_ms,
            run_id,
            self.namespace,
            job,
            run_facets=run_facets,
            job_facets=job_facets,
            inputs=inputs,
            outputs=outputs,
        )
        versions = {}
        if facts.error is None:
            for output in facts.outputs:
                if output.local_path and (not output.ignore_mode or output.stats.get("fileCount")):
                    versions[output.id.key] = run_id
        inputs, outputs = events.datasets(facts, with_stats=True, versions=versions)
        end_facets = dict(run_facets)
        if facts.error is not None:
            end_facets["errorMessage"] = events.error_message(*facts.error)
        end = events.run_event(
            "FAIL" if facts.error is not None else "COMPLETE",
            end_ms,
            run_id,
            self.namespace,
            job,
            run_facets=end_facets,
            job_facets=job_facets,
            inputs=inputs,
            outputs=outputs,
        )
        return [start, end]

    def _extraction_facet(
        self, execution_id: int | None, truncated: int, unnamed: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        facet: dict[str, Any] = {
            "_producer": events.PRODUCER,
            "_schemaURL": EXTRACTION_FACET_SCHEMA_URL,
            "source": "eventLog",
            "log": self.source,
            "applicationId": self.app_id or "",
            "truncatedPlanNodes": truncated,
        }
        if execution_id is not None:
            facet["executionId"] = execution_id
        if unnamed:
            facet["unnamedWrites"] = unnamed[:MAX_UNNAMED]
        return facet


def _complete_table_writes(root: ActionFacts | None, nested: list[ActionFacts]) -> None:
    """A CREATE ... AS SELECT execution names its table; its nested insert knows where the table
    lives, what it read and its column lineage: give the table those."""
    if root is None or not root.outputs or root.outputs[0].table is None:
        return
    output = root.outputs[0]
    if output.table is None:
        return
    if output.table.location:  # a format's table (Iceberg): its nested append, if named, knows more
        _complete_from_same_table(root, nested)
        return
    writer = next(
        (f for f in nested if f.writes and f.outputs[0].local_path is not None or f.writes), None
    )
    if writer is None:
        return
    written = writer.outputs[0]
    location = written.table.location if written.table else None
    location = location or (f"file:{written.local_path}" if written.local_path else None)
    if location is None:
        return
    output.table.location = location
    output.table.provider = written.file_format
    output.table.warehouse = location.rstrip("/").rsplit("/", 1)[0]
    output.id = from_table(location, output.table.table)
    written.id = output.id
    output.file_format, output.local_path = written.file_format, written.local_path
    output.source_uri = output.id.namespace
    output.lineage, output.schema = written.lineage, written.schema
    root.inputs = root.inputs or writer.inputs
    root.error = root.error or writer.error


def _complete_from_same_table(root: ActionFacts, nested: list[ActionFacts]) -> None:
    """A CTAS whose table the log names, and whose nested write of the same table the log names
    too (Iceberg's `AppendData`): the table's reads, column lineage and columns are that write's."""
    output = root.outputs[0]
    if output.lineage and output.lineage.columns:
        return
    for writer in nested:
        if writer.writes and writer.outputs and writer.outputs[0].id.key == output.id.key:
            written = writer.outputs[0]
            output.lineage, output.schema = written.lineage, written.schema or output.schema
            root.inputs = root.inputs or writer.inputs
            return


def _complete_from_nested(
    facts: ActionFacts, every: list[ActionFacts], queries: list[_Query]
) -> None:
    """A V2 or JDBC write whose plan holds no query (it runs as a nested execution): its inputs
    and column lineage come from that execution, its columns from a nested write of the same table."""
    output = facts.outputs[0]
    if not output.schema:
        same = (f.outputs[0] for f in every if f.outputs and f.outputs[0].id.key == output.id.key)
        output.schema = next((o.schema for o in same if o.schema), [])
    if facts.inputs or not queries or (output.lineage and output.lineage.columns):
        return
    query = queries[0]
    facts.inputs = query.inputs
    root = query.root
    while root.name in v.OBJECT_WRAPPERS and len(root.children) == 1:
        root = root.children[0]
    names = [str(f["name"]) for f in output.schema] or None
    walker = LineageWalker(query.source_of, unhandled=False)
    output.lineage = walker.query_lineage(root, names)


def _output_schema(
    root: Any, output: DatasetFacts, inputs: dict[str, DatasetFacts]
) -> list[dict[str, Any]]:
    """The written columns by name; a type where the column is a read column as it is."""
    names = (
        output_names(root) or list(output.lineage.columns)
        if output.lineage
        else output_names(root) or []
    )
    types = {key: {f["name"]: f.get("type") for f in d.schema} for key, d in inputs.items()}
    fields: list[dict[str, Any]] = []
    for name in names:
        entry: dict[str, Any] = {"name": name}
        deps = output.lineage.columns.get(name, {}) if output.lineage else {}
        if len(deps) == 1:
            (key, column), kinds = next(iter(deps.items()))
            if kinds == {(DIRECT, IDENTITY)} and types.get(key, {}).get(column) is not None:
                entry["type"] = types[key][column]
        fields.append(entry)
    return fields


def _cause_first(message: str, stack: str) -> str:
    """An execution's error message with its innermost cause (the stack's last ``Caused by:``)
    first, as live capture gives it (:func:`plumbline.spark.jvm.failure_text`)."""
    causes = [
        line.strip()[len("Caused by: ") :]
        for line in stack.splitlines()
        if line.strip().startswith("Caused by: ")
    ]
    if not causes or causes[-1] in message:
        return message
    return f"{causes[-1]}\n{message}"


def _format_of(cls: str, warehouse: str, kind: str) -> tuple[str, str] | None:
    """(warehouse, format) of a catalog whose tables a log can name: Paimon's, Iceberg's Hadoop."""
    if cls in v.PAIMON_CATALOGS:
        return warehouse, "paimon"
    if cls in v.ICEBERG_CATALOGS and kind == "hadoop":
        return warehouse, "iceberg"
    return None


def _uri(path: str) -> str:
    """A warehouse folder as a URI (`file:` when it has no scheme)."""
    path = path.rstrip("/")
    return path if not path or ":" in path.split("/", 1)[0] else f"file:{path}"
