"""The work of one Spark task: read event logs and deliver their OpenLineage events.

Pure Python (no Spark): a task gets `EventLog`s and a `Target` and returns one `LogResult` per log.
Events go to a server in batches (`http`, through the replay client: retries, per-event
rejections) or to `DIR/<log name>.jsonl` (the `file` transport's format), written under a
temporary name and renamed, so extracting a log again replaces its file instead of adding to it.
A log that cannot be read is reported with its reason; what it held before the fault is kept.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plumbline.eventlogs.application import ApplicationLog, LogStats
from plumbline.eventlogs.errors import EventLogError
from plumbline.eventlogs.files import EventLog, read_events
from plumbline.transports.serialize import dumps_event

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Target:
    """Where events go: a server (`url`, `api_key`) or a folder (`out`)."""

    url: str | None = None
    api_key: str | None = None
    out: str | None = None
    namespace: str | None = None
    batch_size: int = 100


@dataclass
class LogResult:
    """What became of one log."""

    path: str
    status: str  # "ok" | "failed" | "skipped"
    reason: str = ""
    events_read: int = 0
    executions: int = 0
    actions: int = 0
    sent: int = 0  # OpenLineage events delivered
    bytes: int = 0  # the log's size on disk
    seconds: float = 0.0
    unnamed: int = 0  # writes the log cannot name (a redacted JDBC URL...)
    note: str = ""  # why, for the first of them

    def count(self, stats: LogStats) -> None:
        """Take the counts of the log's application."""
        self.events_read, self.executions, self.actions = (
            stats.events,
            stats.executions,
            stats.actions,
        )
        self.unnamed = len(stats.unnamed)
        self.note = str(stats.unnamed[0]["reason"]) if stats.unnamed else ""


def safe_name(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", path.rstrip("/").rsplit("/", 1)[-1]) or "log"


class _Reading:
    """The OpenLineage events of one log as an iterator; the fault that stopped it, if any."""

    def __init__(self, event_log: EventLog, namespace: str | None) -> None:
        self.app = ApplicationLog(event_log.path, namespace)
        self.event_log = event_log
        self.error: str | None = None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        try:
            for event in read_events(self.event_log):
                yield from self.app.feed(event)
        except EventLogError as exc:
            self.error = str(exc)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            self.error = f"{type(exc).__name__}: {exc}"


def _to_folder(events: Iterable[dict[str, Any]], folder: str, name: str) -> int:
    target = Path(folder) / f"{name}.jsonl"
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    target.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with temporary.open("w", encoding="utf-8") as stream:
        for event in events:
            stream.write(dumps_event(event) + "\n")
            count += 1
    if count:
        temporary.replace(target)
    else:
        temporary.unlink()
    return count


def to_server(events: Iterable[dict[str, Any]], target: Target) -> tuple[int, str]:
    from plumbline.transports import HttpTransport, TransportConfig
    from plumbline.transports.replay import Line, Replayer

    transport = HttpTransport(TransportConfig(type="http", url=target.url, api_key=target.api_key))
    try:
        replayer = Replayer(transport, batch_size=target.batch_size)
        lines = (
            Line(number, dumps_event(event).encode()) for number, event in enumerate(events, 1)
        )
        report = replayer.replay(lines)
    finally:
        transport.close()
    problems = report.problems
    reason = f"{len(problems)} event(s) not delivered: {problems[0].reason}" if problems else ""
    return report.sent, reason


def extract_log(event_log: EventLog, target: Target) -> LogResult:
    """Read one log and deliver its events; never raises for a bad log."""
    started = time.perf_counter()
    result = LogResult(event_log.path, "ok", bytes=event_log.size)
    reading = _Reading(event_log, target.namespace)
    try:
        if target.out is not None:
            result.sent = _to_folder(reading, target.out, safe_name(event_log.path))
        else:
            result.sent, undelivered = to_server(reading, target)
            if undelivered:
                result.status, result.reason = "failed", undelivered
    except Exception as exc:  # the target failed (a full disk, a bad URL): this log only
        result.status, result.reason = "failed", f"{type(exc).__name__}: {exc}"
    if reading.error is not None:
        result.status, result.reason = "failed", reading.error
    result.count(reading.app.stats)
    result.seconds = time.perf_counter() - started
    return result


def extract_logs(
    logs: Iterable[EventLog], target: Target, counters: tuple[Any, ...] = ()
) -> Iterator[LogResult]:
    """`extract_log` for each log (a Spark task's partition); adds each log's counts (logs,
    executions, events sent, bytes) to `counters` (Spark accumulators), when given."""
    for event_log in logs:
        result = extract_log(event_log, target)
        if counters:
            values = (1, result.executions, result.sent, result.bytes)
            for counter, value in zip(counters, values, strict=True):
                counter.add(value)
        yield result
