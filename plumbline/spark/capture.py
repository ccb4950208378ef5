"""`enable(spark)`: switch the capture on for a SparkSession and get a handle to flush or stop it."""

from __future__ import annotations

import atexit
import logging
import threading
import time
from typing import Any

from plumbline import __version__
from plumbline.spark import connect, events, jvm, plan_reader, rdd_jobs, stream_batches
from plumbline.spark import listener as listeners
from plumbline.spark.listener import CaptureWorker, QueryEnds, SqlExecutionListener
from plumbline.spark.runs import AppRun, RunTracker
from plumbline.spark.settings import CaptureSettings, resolve

log = logging.getLogger(__name__)

_handles: dict[int, CaptureHandle] = {}
_lock = threading.Lock()
_stop_patched = False


class CaptureHandle:
    """A running capture for one SparkContext: `flush(timeout)` and `disable()`."""

    def __init__(self, spark: Any, settings: CaptureSettings, emitter: Any) -> None:
        self.settings = settings
        self._spark = spark
        self._emitter = emitter
        self._closed = False
        context = spark.sparkContext
        self._jsc = context._jsc.sc()
        jvm.bind_jvm(context._jvm)
        app_id, attempt = str(context.applicationId), context._jsc.sc().applicationAttemptId()
        attempt_id = str(attempt.get()) if attempt.isDefined() else None
        self.app = AppRun(
            settings.namespace,
            events.normalize_name(context.appName) or "spark_application",
            events.app_run_id(app_id, attempt_id),
            str(spark.version),
            app_id,
            attempt_id,
        )
        self._tracker = RunTracker(spark._jsparkSession, self.app, self._submit)
        self._worker = CaptureWorker()
        plan_reader.prepare(context._jvm)
        self.rdd_jobs = rdd_jobs.RddJobs(context, self.app, self._submit, self._tracker.run_facets)
        self._listener = SqlExecutionListener(
            context._jvm,
            self._tracker.execution_started,
            self._tracker.execution_ended,
            self._worker,
        )
        self._submit(self._app_event("START"))
        self._registered = listeners.register(context, self._listener)
        registered = self._registered
        self._tracker.failed_reads = lambda execution_id: listeners.failed_reads(
            registered, execution_id
        )
        self._queries = QueryEnds(
            spark, self._worker.submit, self._stream_ended, self._stream_progress
        )

    def _stream_progress(self, run_id: str, text: str, when_ms: float) -> None:
        """A streaming query reported a trigger's progress (worker thread)."""
        progress = stream_batches.parse_progress(text)
        if progress is not None:
            self._tracker.streams.progress(run_id, progress, when_ms)

    def _stream_ended(self, run_id: str, error: str | None, when_ms: float, execution: Any) -> None:
        """A streaming query run ended: after the batch ends Spark queued before it, complete it."""
        try:  # the batch's SQL end travels on another listener queue: let it arrive first
            self._jsc.listenerBus().waitUntilEmpty(2000)
        except Exception:
            log.debug("listener bus did not drain in time", exc_info=True)
        self._worker.submit(lambda: self._tracker.stream_ended(run_id, error, when_ms, execution))

    def _submit(self, event: dict[str, Any]) -> None:
        self._emitter.submit(event)

    def _app_event(
        self, event_type: str, error: BaseException | str | None = None
    ) -> dict[str, Any]:
        run_facets = {"processing_engine": events.processing_engine(self.app.spark_version)}
        if event_type == "FAIL":
            run_facets["errorMessage"] = events.application_error(error)
        return events.run_event(
            event_type,
            time.time() * 1000,
            self.app.run_id,
            self.app.namespace,
            self.app.job_name,
            run_facets=run_facets,
            job_facets={"jobType": events.job_type("APPLICATION")},
        )

    def _settle(self, timeout: float) -> float:
        """Wait for Spark's listener bus and the capture worker; returns the time left."""
        deadline = time.monotonic() + timeout
        try:
            self._jsc.listenerBus().waitUntilEmpty(int(max(timeout, 0.001) * 1000))
        except Exception:
            log.debug("listener bus did not drain in time", exc_info=True)
        self._worker.drain(max(0.0, deadline - time.monotonic()))
        return max(0.0, deadline - time.monotonic())

    def stats(self) -> dict[str, float]:
        """Cost of the capture so far: listener callbacks, notifications handled, worker time."""
        return {
            "listener_callbacks": self._listener.callbacks,
            "notifications": self._worker.tasks,
            "dropped_notifications": self._worker.dropped,
            "worker_seconds": self._worker.busy_seconds,
        }

    def flush(self, timeout: float = 10.0) -> bool:
        """Deliver everything captured so far; True when all of it was sent or spilled in time."""
        try:
            if self._closed:
                return bool(self._emitter.flush(timeout))
            return bool(self._emitter.flush(self._settle(timeout)))
        except Exception:
            log.warning("plumbline flush failed", exc_info=True)
            return False

    def disable(
        self,
        timeout: float = 10.0,
        *,
        failed: bool = False,
        error: BaseException | str | None = None,
    ) -> bool:
        """Capture what is pending, send the application's COMPLETE (or FAIL), stop capturing.

        ``failed`` (or an ``error``): the application failed; its FAIL event carries an
        ``errorMessage`` facet with ``error`` (an exception, with its traceback, or a reason).
        """
        failed = failed or error is not None
        with _lock:
            if self._closed:
                return True
            self._closed = True
            _handles.pop(id(self._spark.sparkContext), None)
        try:
            remaining = self._settle(timeout)
            self._listener.active = False
            self._tracker.close(time.time() * 1000)
            self._queries.remove()
            try:
                listeners.unregister(self._spark.sparkContext, self._registered)
            except Exception:
                log.debug("could not remove the listener", exc_info=True)
            self._worker.stop()
            self._submit(self._app_event("FAIL" if failed else "COMPLETE", error))
            # a close that times out spills what is queued and the event in flight
            return bool(self._emitter.close(remaining))
        except Exception:
            log.warning("plumbline disable failed", exc_info=True)
            return False


def _make_emitter(settings: CaptureSettings, transport: Any) -> Any:
    from plumbline.transports import AsyncEmitter, Transport, TransportConfig, create_transport

    if isinstance(transport, Transport):
        return AsyncEmitter(transport)
    if isinstance(transport, TransportConfig):
        return AsyncEmitter(create_transport(transport))
    return AsyncEmitter(create_transport(settings.transport_config()))


def _spark_conf(spark: Any) -> dict[str, str]:
    pairs = spark.sparkContext.getConf().getAll()
    return {k: v for k, v in pairs if k.startswith("spark.plumbline.")}


def enable(
    spark: Any,
    url: str | None = None,
    namespace: str | None = None,
    api_key: str | None = None,
    transport: Any = None,
    path: str | None = None,
) -> CaptureHandle | None:
    """Capture lineage of every action of `spark`; idempotent; never raises (returns None on error).

    A Spark Connect client session is captured through the in-process server of
    `remote("local[…]")`; a client of a server elsewhere gets one warning and None.

    `transport` is a type name (`http`, `file`, `console`), a `TransportConfig` or a `Transport`.
    """
    try:
        if connect.is_connect_session(spark):
            hosting = connect.local_server_session(spark)  # remote("local[…]"): in this process
            if hosting is None:
                log.warning(connect.NO_DRIVER_HERE)
                return None
            spark = hosting
        with _lock:
            existing = _handles.get(id(spark.sparkContext))
            if existing is not None:
                return existing
            kind = transport if isinstance(transport, str) else None
            settings = resolve(
                {
                    "type": kind,
                    "url": url,
                    "api_key": api_key,
                    "path": path,
                    "namespace": namespace,
                },
                _spark_conf(spark),
            )
            from pyspark.java_gateway import ensure_callback_server_started

            ensure_callback_server_started(spark.sparkContext._gateway)  # type: ignore[no-untyped-call]
            handle = CaptureHandle(spark, settings, _make_emitter(settings, transport))
            _handles[id(spark.sparkContext)] = handle
            _patch_stop()
            rdd_jobs.install(_rdd_capture)
            log.info("plumbline capture enabled: %r (plumbline %s)", settings, __version__)
            return handle
    except Exception:
        log.warning(
            "plumbline capture could not be enabled; the job runs without it", exc_info=True
        )
        return None


def _rdd_capture(context: Any) -> tuple[Any, Any] | None:
    """The RDD-job capture and worker queue of the capture enabled for `context`, if any."""
    handle = _handles.get(id(context))
    if handle is None or handle._closed:
        return None
    return handle.rdd_jobs, handle._worker.submit


def _patch_stop() -> None:
    """Make `SparkSession.stop()` deliver what the capture still holds before Spark stops."""
    global _stop_patched
    if _stop_patched:
        return
    from pyspark.sql import SparkSession

    original = SparkSession.stop

    def stop(self: Any) -> None:
        try:
            handle = _handles.get(id(self.sparkContext))
            if handle is not None:
                handle.disable()
        except Exception:
            log.warning("plumbline could not flush at stop", exc_info=True)
        original(self)

    stop.__doc__ = original.__doc__
    SparkSession.stop = stop  # type: ignore[method-assign]
    _stop_patched = True


@atexit.register
def _disable_all() -> None:
    for handle in list(_handles.values()):
        handle.disable(timeout=5.0)
