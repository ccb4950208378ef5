"""`--follow`: tail the logs of running applications and emit each execution as it ends.

Runs in the command's process (no Spark job: a running application's log grows slowly, and
tailing is waiting). Every `interval` seconds it lists the logs under the paths, and reads each
followed log on from where the last read stopped: the raw byte offset in the current file (or
rolling part), with the codec's state and the unfinished last line kept in between
(`IncrementalDecoder`), and the application's state (its running executions) in its
`ApplicationLog`. Events are delivered as the executions end. A `.inprogress` file renamed on
completion is the same log (keyed by its name without `.inprogress`); a rolling folder's next
part is read once the current one is complete (a later part exists). A log is done when its
application has ended and its log is read to the end.

Nothing is emitted twice: within a run by the offsets; with `--out`, a restarted follower first
reads the events already in the log's file and skips them; a server stores the same run ids once.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plumbline.eventlogs.application import ApplicationLog
from plumbline.eventlogs.codecs import IncrementalDecoder, codec_of
from plumbline.eventlogs.errors import EventLogError
from plumbline.eventlogs.files import (
    IN_PROGRESS,
    MAX_EVENT_BYTES,
    EventLog,
    ReadLimits,
    file_name,
    find_logs,
    open_log_file,
    parse_line,
)
from plumbline.eventlogs.incremental import why_skip
from plumbline.eventlogs.progress import Counts, Progress
from plumbline.eventlogs.task import LogResult, Target, safe_name, to_server
from plumbline.transports.serialize import dumps_event

log = logging.getLogger(__name__)

POLL_SECONDS = 5.0
_CHUNK = 1 << 20  # raw bytes read at a time
STOPPED = "still running when --follow stopped (read again whole next time)"


def log_key(path: str) -> str:
    """A log's identity across its `.inprogress` rename."""
    return path.removesuffix(IN_PROGRESS)


def _event_key(event: dict[str, Any]) -> tuple[str, str]:
    return str(event.get("run", {}).get("runId", "")), str(event.get("eventType", ""))


class Tail:
    """One application's log, read on as it grows."""

    def __init__(self, key: str, namespace: str | None, seen: set[tuple[str, str]]) -> None:
        self.key = key
        self.app = ApplicationLog(key, namespace)
        self.result = LogResult(key, "ok")
        self.done = False
        self._seen = seen  # (run id, event type) already delivered before this run
        self._part = 0
        self._offset = 0
        self._decoder: IncrementalDecoder | None = None
        self._line = bytearray()
        self._lines = 0
        self._found: list[dict[str, Any]] = []
        self._started = time.perf_counter()

    def poll(self, event_log: EventLog) -> None:
        """Read what was added to the log since the last poll; its events wait in `take()`. The
        listing (`event_log`) is taken before reading, so a part or file it shows as complete is
        read to its very end. Raises EventLogError for a corrupt log (what came before is kept)."""
        while self._part < len(event_log.files):
            path = event_log.files[self._part]
            try:
                self._read_on(path)
            except FileNotFoundError:  # renamed (completed) since the listing: next time
                break
            complete = self._part + 1 < len(event_log.files) or not event_log.in_progress
            if not complete:
                break
            if self._line or (self._decoder is not None and self._decoder.pending):
                raise EventLogError(f"{file_name(path)}: truncated (the last event is cut short)")
            if self._part + 1 == len(event_log.files):
                self.done = True
                break
            self._part, self._offset, self._decoder = self._part + 1, 0, None
        self.result.bytes = event_log.size

    def take(self) -> list[dict[str, Any]]:
        """The events read since the last `take`, but those delivered before this run."""
        found, self._found = self._found, []
        fresh = [e for e in found if _event_key(e) not in self._seen]
        self._seen.difference_update(_event_key(e) for e in found)
        self.result.seconds = time.perf_counter() - self._started
        return fresh

    def _read_on(self, path: str) -> None:
        if self._decoder is None:
            limits = ReadLimits()
            self._decoder = IncrementalDecoder(
                codec_of(file_name(path)), limits.max_ratio, limits.min_decompressed_bytes
            )
        with open_log_file(path) as stream:
            stream.seek(self._offset)
            while chunk := stream.read(_CHUNK):
                self._offset += len(chunk)
                try:
                    data = self._decoder.feed(chunk)
                except EventLogError:
                    raise
                except Exception as exc:  # a codec library's own error
                    raise EventLogError(
                        f"{file_name(path)}: corrupt ({type(exc).__name__}: {exc})"
                    ) from None
                self._feed_lines(data, file_name(path))

    def _feed_lines(self, data: bytes, name: str) -> None:
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            self._line += data[start:end]
            start = end + 1
            self._lines += 1
            if self._line.strip():
                self._found += self.app.feed(parse_line(bytes(self._line), name, self._lines))
            self._line.clear()
        self._line += data[start:]
        if len(self._line) > MAX_EVENT_BYTES:
            raise EventLogError(f"{name}: line {self._lines + 1} is larger than {MAX_EVENT_BYTES}")


@dataclass
class FollowReport:
    """The logs followed to their end (or to the stop), and those of them done."""

    results: list[LogResult] = field(default_factory=list)
    done: list[EventLog] = field(default_factory=list)


class _Delivery:
    """Appends to `DIR/<log name>.jsonl`, or posts to the server."""

    def __init__(self, target: Target) -> None:
        self.target = target

    def already(self, key: str) -> set[tuple[str, str]]:
        """What an earlier run wrote to the log's file (nothing known for a server)."""
        if self.target.out is None:
            return set()
        path = self._file(key)
        if not path.exists():
            return set()
        seen = set()
        with path.open(encoding="utf-8") as stream:
            for line in stream:
                try:
                    seen.add(_event_key(json.loads(line)))
                except ValueError:
                    continue
        return seen

    def _file(self, key: str) -> Path:
        assert self.target.out is not None
        return Path(self.target.out) / f"{safe_name(key)}.jsonl"

    def send(self, key: str, events: list[dict[str, Any]]) -> tuple[int, str]:
        if not events:
            return 0, ""
        if self.target.out is None:
            return to_server(events, self.target)
        path = self._file(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as stream:
            stream.write("".join(dumps_event(e) + "\n" for e in events))
        return len(events), ""


def follow(
    paths: list[str],
    target: Target,
    *,
    interval: float = POLL_SECONDS,
    timeout: float | None = None,
    stop: threading.Event | None = None,
    handled: set[str] | None = None,
    since: float | None = None,
    state: dict[str, dict[str, float]] | None = None,
    progress: Progress | None = None,
) -> FollowReport:
    """Tail the logs under `paths` (but those in `handled`, keyed by `log_key`) until `stop` is
    set or `timeout` seconds have passed; see the module docstring."""
    stop = stop or threading.Event()
    deadline = None if timeout is None else time.monotonic() + timeout
    delivery = _Delivery(target)
    finished = set(handled or ())
    tails: dict[str, Tail] = {}
    report = FollowReport()
    problems: dict[str, str] = {}
    while True:
        logs, found_problems = find_logs(paths)
        problems = dict(found_problems)
        for event_log in logs:
            key = log_key(event_log.path)
            if key in finished:
                continue
            tail = tails.get(key)
            if tail is None:
                if why_skip(event_log, since, state or {}) is not None:
                    finished.add(key)
                    continue
                tail = tails[key] = Tail(key, target.namespace, delivery.already(key))
            _poll(tail, event_log, delivery)
            if tail.done or tail.result.status == "failed":
                finished.add(key)
                report.results.append(tails.pop(key).result)
                if tail.result.status == "ok":
                    report.done.append(event_log)
        if progress is not None:
            progress.update(_counts(report.results, tails.values()))
        if stop.is_set() or (deadline is not None and time.monotonic() >= deadline):
            break
        wait = interval if deadline is None else min(interval, deadline - time.monotonic())
        stop.wait(max(wait, 0.0))
    if progress is not None:  # the totals, also when it stopped before a line was due
        progress.update(_counts(report.results, tails.values()), force=True)
    for tail in tails.values():
        tail.result.status, tail.result.reason = "skipped", STOPPED
        report.results.append(tail.result)
    report.results += [LogResult(p, "failed", reason) for p, reason in problems.items()]
    return report


def _counts(done: list[LogResult], running: Iterable[Tail]) -> Counts:
    """Logs followed to their end, and executions, events and bytes of every log followed."""
    every = [*done, *(t.result for t in running)]
    return (
        len(done),
        sum(r.executions for r in every),
        sum(r.sent for r in every),
        sum(r.bytes for r in every),
    )


def _poll(tail: Tail, event_log: EventLog, delivery: _Delivery) -> None:
    """One read of one log; its fault is its own (reported, the others go on)."""
    result = tail.result
    try:
        tail.poll(event_log)
    except EventLogError as exc:
        result.status, result.reason = "failed", str(exc)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        result.status, result.reason = "failed", f"{type(exc).__name__}: {exc}"
    events = tail.take()
    try:
        sent, undelivered = delivery.send(tail.key, events)
    except Exception as exc:  # the target failed: this log only
        sent, undelivered = 0, f"{type(exc).__name__}: {exc}"
    result.sent += sent
    if undelivered:
        result.status, result.reason = "failed", undelivered
    result.count(tail.app.stats)
