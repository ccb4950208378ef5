"""Run the demo scenario on one SparkSession with plumbline's capture sending to a server."""

from __future__ import annotations

import logging
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

from pyspark.sql import SparkSession

from plumbline.demo import data
from plumbline.demo.errors import CaptureUnavailableError, DeliveryError, StepFailedError
from plumbline.demo.paths import DemoPaths
from plumbline.demo.scenario import Step, steps
from plumbline.demo.session import configure

logger = logging.getLogger(__name__)

DEFAULT_NAMESPACE = "plumbline_demo"
FLUSH_TIMEOUT = 120.0

_ERROR_CLASS = re.compile(r"\[[A-Z][A-Z0-9_.]+\][^\n]*")

#: PySpark 4's loggers that print a failed query's error, with its stack trace as one JSON line,
#: to stderr (``PySparkException._log_exception``); the demo writes them to SPARK_ERROR_LOG.
PYSPARK_ERROR_LOGGERS = ("DataFrameQueryContextLogger", "SQLQueryContextLogger")
SPARK_ERROR_LOG = "spark-errors.log"


@dataclass(frozen=True)
class StepOutcome:
    """How one step of the scenario went."""

    step: Step
    seconds: float
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass
class DemoRun:
    """The result of running the scenario."""

    paths: DemoPaths
    outcomes: list[StepOutcome] = field(default_factory=list)
    landed: list[data.DaySummary] = field(default_factory=list)


class Reporter(Protocol):
    """Receives progress: the CLI shows it with rich, tests ignore it."""

    def landed(self, summary: data.DaySummary) -> None: ...

    def started(self, step: Step, index: int, total: int) -> None: ...

    def finished(self, outcome: StepOutcome) -> None: ...


class SilentReporter:
    """A reporter that only logs."""

    def landed(self, summary: data.DaySummary) -> None:
        logger.info("landed raw data for %s", summary.day)

    def started(self, step: Step, index: int, total: int) -> None:
        logger.info("step %d/%d: %s", index, total, step.label)

    def finished(self, outcome: StepOutcome) -> None:
        logger.info(
            "%s done in %.1fs (error: %s)", outcome.step.label, outcome.seconds, outcome.error
        )


def short_error(exc: BaseException) -> str:
    """The Spark error class and message (e.g. `[CAST_INVALID_INPUT] ...`), else the first line."""
    text = str(exc)
    match = _ERROR_CLASS.search(text)
    if match:
        return match.group(0).strip()
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


def enable_capture(spark: SparkSession, server_url: str, namespace: str) -> Any:
    """Turn on plumbline's Spark capture, sending over HTTP to `server_url`."""
    try:
        from plumbline.spark import enable
    except ImportError as exc:
        raise CaptureUnavailableError(f"plumbline.spark.enable is not available: {exc}") from exc
    handle = enable(spark, url=server_url, namespace=namespace, transport="http")
    if handle is None:  # enable() logs why and never raises
        raise CaptureUnavailableError("plumbline's Spark capture could not be enabled (see log)")
    return handle


@contextmanager
def _quiet_spark_logs(spark: SparkSession, quiet: bool) -> Iterator[None]:
    # the scenario's deliberate failure would otherwise print Spark's executor stack traces
    if quiet:
        spark.sparkContext.setLogLevel("OFF")
    try:
        yield
    finally:
        if quiet:
            spark.sparkContext.setLogLevel("ERROR")


@contextmanager
def spark_errors_to_file(path: Path) -> Iterator[None]:
    """PySpark's error loggers write to `path` instead of the console, until the block ends.

    Only the demo's own session and run do this; the loggers get their handlers back afterwards.
    PySpark 3.5 has no such loggers, so nothing changes there.
    """
    try:
        from pyspark.logger import PySparkLogger
    except ImportError:  # pyspark 3.5
        yield
        return
    handler = logging.FileHandler(path, encoding="utf-8", delay=True)
    saved = []
    for name in PYSPARK_ERROR_LOGGERS:
        log = PySparkLogger.getLogger(name)
        saved.append((log, log.handlers, log.propagate))
        log.handlers = []
        log.addHandler(handler)  # PySparkLogger.addHandler formats it as its JSON lines
        log.propagate = False
    try:
        yield
    finally:
        for log, handlers, propagate in saved:
            log.handlers = handlers
            log.propagate = propagate
        handler.close()


def run_step(spark: SparkSession, paths: DemoPaths, step: Step) -> StepOutcome:
    """Run one job; a failure is an outcome, not an exception, so the scenario can go on."""
    started = time.monotonic()
    with _quiet_spark_logs(spark, step.expect_failure):
        try:
            step.job(spark, paths, step.day)
        except Exception as exc:  # a job failure is data for the demo, reported in the outcome
            return StepOutcome(step, time.monotonic() - started, short_error(exc))
    return StepOutcome(step, time.monotonic() - started)


def run_scenario(
    spark: SparkSession,
    paths: DemoPaths,
    scale: float,
    reporter: Reporter | None = None,
) -> DemoRun:
    """Land each day's raw data and run the scenario's jobs on `spark`.

    Raises `StepFailedError` when a job fails unexpectedly or the planned failure does not happen.
    """
    reporter = reporter or SilentReporter()
    configure(spark)
    plan = steps()
    run = DemoRun(paths)
    current_day: date | None = None
    for index, step in enumerate(plan, start=1):
        if step.day != current_day:
            current_day = step.day
            run.landed.append(data.write_day(paths, step.day, scale))
            reporter.landed(run.landed[-1])
        reporter.started(step, index, len(plan))
        outcome = run_step(spark, paths, step)
        run.outcomes.append(outcome)
        reporter.finished(outcome)
        if outcome.failed and not step.expect_failure:
            raise StepFailedError(f"{step.label} failed: {outcome.error}")
        if step.expect_failure and not outcome.failed:
            raise StepFailedError(f"{step.label} was expected to fail but succeeded")
    return run


def prepare_work_dir(root: Path) -> DemoPaths:
    """A fresh, empty work directory for the demo's files."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    return DemoPaths.under(root)


def run_demo(
    spark: SparkSession,
    paths: DemoPaths,
    server_url: str,
    scale: float = 1.0,
    namespace: str = DEFAULT_NAMESPACE,
    reporter: Reporter | None = None,
) -> DemoRun:
    """Run the scenario with capture on, sending to `server_url`, and wait until it is delivered."""
    capture = enable_capture(spark, server_url, namespace)
    try:
        with spark_errors_to_file(paths.root / SPARK_ERROR_LOG):
            run = run_scenario(spark, paths, scale, reporter)
    except BaseException as exc:
        capture.disable(FLUSH_TIMEOUT, error=exc)
        raise
    # delivers what is pending and the application run's COMPLETE
    if not capture.disable(FLUSH_TIMEOUT):
        raise DeliveryError(f"not every lineage event reached {server_url} in {FLUSH_TIMEOUT:.0f}s")
    return run
