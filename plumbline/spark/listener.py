"""The py4j SparkListener that sees SQL executions start and end, and the worker behind it.

Spark calls a listener on its listener-bus thread for every task, stage, block and metrics event.
A Python listener would pay a py4j round trip (and a JVM-object release) for each, competing with
the job for CPU, so `register` puts a small JVM-side filter in front of it: a SparkListener
compiled in the driver's JVM by Janino (the compiler Spark itself uses for code generation, so no
extra jar) that forwards only SQL execution start/end events. If it cannot be compiled the Python
listener is registered directly and ignores the other events. SQL execution start/end
notifications are reduced to a few py4j calls (the QueryExecution must be fetched while the
execution is still registered) and queued for the worker thread, which reads plans and emits
events. Nothing raised here may reach Java: every callback logs and swallows its errors.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

_UI = "org.apache.spark.sql.execution.ui."
_SQL_START = "SparkListenerSQLExecutionStart"
_SQL_END = "SparkListenerSQLExecutionEnd"

# Every method of org.apache.spark.scheduler.SparkListenerInterface (Spark 3.5) but onOtherEvent.
_IGNORED_CALLBACKS = (
    "onStageCompleted onStageSubmitted onTaskStart onTaskGettingResult onTaskEnd onJobStart "
    "onJobEnd onEnvironmentUpdate onBlockManagerAdded onBlockManagerRemoved onUnpersistRDD "
    "onApplicationStart onApplicationEnd onExecutorMetricsUpdate onStageExecutorMetrics "
    "onExecutorAdded onExecutorRemoved onExecutorBlacklisted onExecutorExcluded "
    "onExecutorBlacklistedForStage onExecutorExcludedForStage onNodeBlacklistedForStage "
    "onNodeExcludedForStage onExecutorUnblacklisted onExecutorUnexcluded onNodeBlacklisted "
    "onNodeExcluded onNodeUnblacklisted onNodeUnexcluded onUnschedulableTaskSetAdded "
    "onUnschedulableTaskSetRemoved onBlockUpdated onSpeculativeTaskSubmitted "
    "onResourceProfileAdded"
).split()


_FORWARDER = "PlumblineSqlExecutionForwarder"
# Besides forwarding, the filter counts the input records read by task attempts that failed, per
# SQL execution: Spark's SQL metrics (what the capture reads) leave failed tasks out, so a failed
# action read 0 rows by them. Python takes the count of a failed execution with takeFailedReads.
_FORWARDER_SOURCE = f"""
public class {_FORWARDER} extends org.apache.spark.scheduler.SparkListener {{
  private volatile org.apache.spark.scheduler.SparkListenerInterface target;
  private final java.util.Map stageExecution = new java.util.concurrent.ConcurrentHashMap();
  private final java.util.Map failedReads = new java.util.HashMap();
  public void setTarget(org.apache.spark.scheduler.SparkListenerInterface target) {{
    this.target = target;
  }}
  public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart event) {{
    java.util.Properties properties = event.properties();
    String id = properties == null ? null : properties.getProperty("spark.sql.execution.id");
    if (id == null) return;
    Long execution = Long.valueOf(id);
    scala.collection.Iterator stages = event.stageIds().iterator();
    while (stages.hasNext()) stageExecution.put(stages.next(), execution);
  }}
  public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd event) {{
    if (event.reason() instanceof org.apache.spark.Success$) return;
    org.apache.spark.executor.TaskMetrics metrics = event.taskMetrics();
    if (metrics == null) return;
    long read = metrics.inputMetrics().recordsRead();
    Object execution = stageExecution.get(Integer.valueOf(event.stageId()));
    if (read <= 0 || execution == null) return;
    synchronized (failedReads) {{
      Long before = (Long) failedReads.get(execution);
      failedReads.put(execution, Long.valueOf(read + (before == null ? 0L : before.longValue())));
    }}
  }}
  public long takeFailedReads(long executionId) {{
    synchronized (failedReads) {{
      Long read = (Long) failedReads.remove(Long.valueOf(executionId));
      return read == null ? 0L : read.longValue();
    }}
  }}
  private void ended(long executionId, boolean failed) {{
    Long execution = Long.valueOf(executionId);
    java.util.Iterator executions = stageExecution.values().iterator();
    while (executions.hasNext()) if (execution.equals(executions.next())) executions.remove();
    synchronized (failedReads) {{
      if (!failed || failedReads.size() > 1000) failedReads.remove(execution);
    }}
  }}
  public void onOtherEvent(org.apache.spark.scheduler.SparkListenerEvent event) {{
    org.apache.spark.scheduler.SparkListenerInterface t = target;
    if (t != null && (event instanceof {_UI}{_SQL_START} || event instanceof {_UI}{_SQL_END})) {{
      t.onOtherEvent(event);
    }}
    if (event instanceof {_UI}{_SQL_END}) {{
      {_UI}{_SQL_END} end = ({_UI}{_SQL_END}) event;
      ended(end.executionId(), end.executionFailure().isDefined());
    }}
  }}
}}
"""
# The compiled forwarder class of the last JVM seen: (py4j gateway, java.lang.Class).
_compiled: list[tuple[Any, Any]] = []


def _forwarder_class(context: Any) -> Any:
    """The forwarder's JVM class, compiled once per JVM gateway."""
    gateway = context._gateway
    if _compiled and _compiled[0][0] is gateway:
        return _compiled[0][1]
    compiler = context._jvm.org.codehaus.janino.SimpleCompiler()
    compiler.setParentClassLoader(context._jsc.sc().getClass().getClassLoader())
    compiler.cook(_FORWARDER_SOURCE)
    cls = compiler.getClassLoader().loadClass(_FORWARDER)
    _compiled[:] = [(gateway, cls)]
    return cls


def register(context: Any, listener: SqlExecutionListener, *, filtered: bool = True) -> Any:
    """Add `listener` to the SparkContext's listener bus; returns the JVM object to `unregister`.

    Behind the JVM-side filter when it compiles (and `filtered`); else the listener's own py4j
    proxy, held as a JVM reference: passing the Python object again would make a new proxy that
    Spark could not remove.
    """
    registered = None
    if filtered:
        try:
            registered = _forwarder_class(context).newInstance()
            registered.setTarget(listener)
        except Exception:
            log.warning(
                "plumbline could not compile its JVM event filter; every Spark event will call "
                "into Python",
                exc_info=True,
            )
    if registered is None:
        registered = context._jvm.java.util.Collections.singletonList(listener).get(0)
    context._jsc.sc().addSparkListener(registered)
    return registered


def failed_reads(registered: Any, execution_id: int) -> int:
    """Input records read by the failed task attempts of a failed execution (counted by the JVM
    filter; 0 without it). Call once per execution, after its end was forwarded."""
    try:
        return int(registered.takeFailedReads(execution_id))
    except Exception:  # the Python listener (no filter): not counted
        return 0


def unregister(context: Any, registered: Any) -> None:
    """Remove what `register` added from the listener bus."""
    context._jsc.sc().removeSparkListener(registered)


class CaptureWorker:
    """A bounded queue of notifications and one daemon thread that handles them in order."""

    def __init__(self, max_queue: int = 1000) -> None:
        self._queue: queue.Queue[Callable[[], None] | None] = queue.Queue(max_queue)
        self.dropped = 0
        self.tasks = 0
        self.busy_seconds = 0.0  # time spent reading plans and building events
        self._thread = threading.Thread(target=self._run, name="plumbline-capture", daemon=True)
        self._thread.start()

    def submit(self, task: Callable[[], None]) -> None:
        """Queue a task; never blocks (a full queue drops the task and counts it)."""
        try:
            self._queue.put_nowait(task)
        except queue.Full:
            self.dropped += 1
            log.warning("plumbline capture queue is full: %d notification(s) dropped", self.dropped)

    def drain(self, timeout: float) -> bool:
        """Wait until every queued task ran; True if that happened within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._queue.all_tasks_done:
            while self._queue.unfinished_tasks:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._queue.all_tasks_done.wait(remaining)
        return True

    def stop(self) -> None:
        """Let the thread finish after the queued tasks."""
        try:
            self._queue.put_nowait(None)
        except queue.Full:
            pass

    def _run(self) -> None:
        while True:
            task = self._queue.get()
            try:
                if task is None:
                    return
                started = time.perf_counter()
                task()
                self.busy_seconds += time.perf_counter() - started
                self.tasks += 1
            except Exception:
                log.warning("plumbline capture failed on one action", exc_info=True)
            finally:
                self._queue.task_done()


class SqlExecutionListener:
    """py4j implementation of SparkListenerInterface forwarding SQL execution start/end."""

    class Java:
        implements = ["org.apache.spark.scheduler.SparkListenerInterface"]

    def __init__(
        self,
        jvm: Any,
        on_start: Callable[[int, int, Any, float], None],
        on_end: Callable[[int, Any, Any, float], None],
        worker: CaptureWorker,
    ) -> None:
        self._sql_execution = jvm.org.apache.spark.sql.execution.SQLExecution
        self._on_start = on_start
        self._on_end = on_end
        self._worker = worker
        self.active = True
        self.callbacks = 0  # every call Spark made into this listener (a measure of its cost)

    def equals(self, other: Any) -> bool:
        """Java's `Object.equals` on this listener's proxy, which py4j forwards here.

        Spark asks it while removing a listener from its bus; the JVM compares identity before,
        so whatever reaches this method is another object.
        """
        return False

    def hashCode(self) -> int:  # noqa: N802 - Java method name
        """Java's `Object.hashCode` on this listener's proxy (identity-based, like Java's)."""
        return id(self) & 0x7FFFFFFF

    def onOtherEvent(self, event: Any) -> None:  # noqa: N802 - Java interface name
        self.callbacks += 1
        if not self.active:
            return
        try:
            kind = event.getClass().getSimpleName()
            if kind == _SQL_START:
                self._started(event)
            elif kind == _SQL_END:
                self._ended(event)
        except Exception:
            log.warning("plumbline listener failed on a Spark event", exc_info=True)

    def _started(self, event: Any) -> None:
        execution_id = int(event.executionId())
        root = event.rootExecutionId()
        root_id = int(root.get()) if root.isDefined() else execution_id
        qe = self._sql_execution.getQueryExecution(execution_id)
        when = float(event.time())
        self._worker.submit(lambda: self._on_start(execution_id, root_id, qe, when))

    def _ended(self, event: Any) -> None:
        execution_id = int(event.executionId())
        qe = event.qe()
        failure = event.executionFailure()
        error = failure.get() if failure.isDefined() else None
        when = float(event.time())
        self._worker.submit(lambda: self._on_end(execution_id, qe, error, when))


def _ignore(self: SqlExecutionListener, event: Any) -> None:
    self.callbacks += 1


for _name in _IGNORED_CALLBACKS:
    setattr(SqlExecutionListener, _name, _ignore)


class QueryEnds:
    """A StreamingQueryListener that queues `on_end(run_id, error, time_ms, execution)` when a
    query run terminates (PySpark's listener API; progress events are left to the SQL listener).

    `execution` is the query's JVM `StreamExecution`, looked up when the run started (Spark calls
    `onQueryStarted` on the query's own thread, holding no lock): a query that fails before its
    first micro-batch has no batch plan to be named after, only the query's own plan.
    """

    def __init__(
        self,
        spark: Any,
        submit: Callable[[Callable[[], None]], None],
        on_end: Callable[[str, str | None, float, Any], None],
        on_progress: Callable[[str, str, float], None] | None = None,
    ) -> None:
        self._spark = spark
        self._listener: Any = None
        executions: dict[str, Any] = {}
        try:
            from pyspark.sql.streaming.listener import StreamingQueryListener
        except ImportError:
            return

        class _Ends(StreamingQueryListener):
            def onQueryStarted(self, event: Any) -> None:  # noqa: N802 - PySpark's API
                try:
                    query = spark.streams.get(str(event.id))
                    if query is not None:
                        executions[str(event.runId)] = query._jsq.streamingQuery()
                except Exception as exc:
                    log.info("plumbline cannot read a streaming query at its start: %s", exc)

            def onQueryProgress(self, event: Any) -> None:  # noqa: N802
                if on_progress is None:
                    return
                try:  # a micro-batch's offsets: see stream_batches.py
                    progress = event.progress
                    run_id, text, when = str(progress.runId), progress.json, time.time() * 1000
                    submit(lambda: on_progress(run_id, text, when))
                except Exception as exc:
                    log.warning("plumbline listener failed on a query's progress: %s", exc)

            def onQueryIdle(self, event: Any) -> None:  # noqa: N802
                pass

            def onQueryTerminated(self, event: Any) -> None:  # noqa: N802
                try:
                    run_id, error, when = str(event.runId), event.exception, time.time() * 1000
                    execution = executions.pop(run_id, None)
                    submit(lambda: on_end(run_id, error, when, execution))
                except Exception as exc:
                    log.warning("plumbline listener failed on a query's end: %s", exc)

        try:
            self._listener = _Ends()
            spark.streams.addListener(self._listener)
        except Exception as exc:
            log.warning("plumbline cannot follow streaming queries' ends: %s", exc)
            self._listener = None

    def remove(self) -> None:
        """Stop following queries."""
        if self._listener is not None:
            try:
                self._spark.streams.removeListener(self._listener)
            except Exception:
                log.debug("could not remove the streaming listener", exc_info=True)
            self._listener = None
