"""`run_extraction`: the PySpark job that extracts lineage from event logs, one task per log.

The driver lists the logs (cheap: names and sizes), skips those of applications still running
(taken next time), and hands the rest to Spark tasks, largest first, one log per partition; each
task reads its logs as streams and delivers their events itself (`task.extract_logs`), returning
only a small result per log. The driver never reads a log.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plumbline.eventlogs.files import EventLog, find_logs
from plumbline.eventlogs.incremental import read_state, why_skip, write_state
from plumbline.eventlogs.progress import Counts, Progress
from plumbline.eventlogs.task import LogResult, Target, extract_logs

log = logging.getLogger(__name__)

APP_NAME = "plumbline_extract_eventlogs"
STILL_RUNNING = "the application is still running (taken next time)"


@dataclass
class ExtractionReport:
    """Every log's result and the job's wall time."""

    results: list[LogResult] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failed(self) -> list[LogResult]:
        return [r for r in self.results if r.status == "failed"]

    def total(self, name: str) -> int:
        """The sum of one count (`events_read`, `executions`, `sent`, `bytes`...) over the logs."""
        return sum(int(getattr(r, name)) for r in self.results)


def _session(master: str | None) -> Any:
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(APP_NAME)
    if master:
        builder = builder.master(master)
    elif not SparkConf().contains("spark.master"):  # spark-submit's --master, else local
        builder = builder.master("local[*]")
    spark = (
        builder.config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.eventLog.enabled", "false")  # do not log the extraction itself
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@dataclass
class FollowOptions:
    """`--follow`: poll every `interval` seconds, until `stop` is set or `timeout` seconds."""

    interval: float
    timeout: float | None = None
    stop: threading.Event = field(default_factory=threading.Event)


def _run_job(
    context: Any, ready: list[EventLog], target: Target, progress: Progress | None
) -> list[LogResult]:
    """One task per log; the tasks add each log's counts to accumulators the progress reads."""
    counters = tuple(context.accumulator(0) for _ in range(4))

    def read() -> Counts:
        logs, executions, sent, size = (int(c.value) for c in counters)
        return logs, executions, sent, size

    rdd = context.parallelize(ready, len(ready))
    job = rdd.mapPartitions(lambda part: extract_logs(part, target, counters))
    if progress is None:
        results: list[LogResult] = job.collect()
        return results
    with progress.watching(read):
        results = job.collect()
    progress.update(read(), force=True)
    return results


def run_extraction(
    paths: list[str],
    target: Target,
    *,
    master: str | None = None,
    spark: Any = None,
    since: float | None = None,
    state_file: Path | None = None,
    progress: Progress | None = None,
    follow: FollowOptions | None = None,
) -> ExtractionReport:
    """Extract the logs under `paths` to `target` on Spark: on `spark`, else the active session
    (a notebook's, a test's: left running), else a new session on `master` (stopped at the end).
    With `progress`, a line every few seconds while the job runs. With `follow`, the logs of
    applications still running are then tailed (`follow.follow`) until it stops."""
    started = time.perf_counter()
    report = ExtractionReport()
    state = read_state(state_file)
    logs, problems = find_logs(paths)
    report.results += [LogResult(path, "failed", reason) for path, reason in problems]
    ready: list[EventLog] = []
    for event_log in logs:
        reason = why_skip(event_log, since, state)
        if event_log.in_progress:
            reason = STILL_RUNNING
        if reason is not None:
            skipped = LogResult(event_log.path, "skipped", reason, bytes=event_log.size)
            report.results.append(skipped)
        else:
            ready.append(event_log)
    if ready:
        ready.sort(key=lambda item: -item.size)
        if spark is None:
            from pyspark.sql import SparkSession

            spark = SparkSession.getActiveSession()
        owned = spark is None
        session = spark if spark is not None else _session(master)
        if progress is not None:
            progress.total = len(ready)
        try:
            report.results += _run_job(session.sparkContext, ready, target, progress)
        finally:
            if owned:
                session.stop()
    read = {r.path for r in report.results if r.status == "ok"}
    done = [event_log for event_log in ready if event_log.path in read]
    if follow is not None:
        from plumbline.eventlogs.follow import follow as tail_logs
        from plumbline.eventlogs.follow import log_key

        report.results = [r for r in report.results if r.reason != STILL_RUNNING]
        handled = {log_key(r.path) for r in report.results}
        if progress is not None:
            progress.total = None  # logs appear while following
        followed = tail_logs(
            paths,
            target,
            interval=follow.interval,
            timeout=follow.timeout,
            stop=follow.stop,
            handled=handled,
            since=since,
            state=state,
            progress=progress,
        )
        report.results += followed.results
        done += followed.done
    if state_file is not None:
        write_state(state_file, state, done)
    report.seconds = time.perf_counter() - started
    return report
