"""Post a JSON Lines file of events (file transport output or a spill file) to a server, in batches.

Bad lines are reported, not fatal; 5xx and connection errors are retried with backoff. A batch the
server accepts in part is reported per event; a batch it rejects as a whole is retried event by
event, so one bad event does not hold back its neighbours.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from plumbline.transports.errors import TransportError
from plumbline.transports.http import HttpTransport

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Line:
    """One non-blank line of the input: its 1-based number and its bytes (without the newline)."""

    number: int
    raw: bytes


@dataclass(frozen=True)
class Problem:
    line: Line
    reason: str


@dataclass
class ReplayReport:
    """What happened to each line: sent, rejected by the server, unparsable, or not delivered."""

    sent: int = 0
    rejected: list[Problem] = field(default_factory=list)
    unparsable: list[Problem] = field(default_factory=list)
    undelivered: list[Problem] = field(default_factory=list)  # retries exhausted or not attempted

    @property
    def problems(self) -> list[Problem]:
        """Every line that did not reach the server, in file order."""
        return sorted(
            self.rejected + self.unparsable + self.undelivered, key=lambda p: p.line.number
        )

    @property
    def ok(self) -> bool:
        return not (self.rejected or self.unparsable or self.undelivered)


def read_lines(path: Path, progress: Callable[[int], None] | None = None) -> Iterator[Line]:
    """The non-blank lines of `path`; `progress` gets the number of bytes consumed as it goes."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if progress is not None:
                progress(len(raw))
            stripped = raw.rstrip(b"\r\n")
            if stripped.strip():
                yield Line(number, stripped)


def parse_line(line: Line) -> dict[str, Any]:
    """The event on `line`; raises ValueError with a readable reason."""
    try:
        text = line.raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    return value


class Replayer:
    """Sends events through an HttpTransport in batches, with retries, recording every outcome."""

    def __init__(
        self,
        transport: HttpTransport,
        *,
        batch_size: int = 100,
        retries: int = 5,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._transport = transport
        self._batch_size = batch_size
        self._retries = max(0, retries)
        self._backoff = max(0.0, backoff)
        self._max_backoff = max_backoff
        self._gave_up: str | None = None  # set once the server stayed unavailable

    def replay(self, lines: Iterator[Line]) -> ReplayReport:
        report = ReplayReport()
        batch: list[tuple[Line, dict[str, Any]]] = []
        for line in lines:
            try:
                event = parse_line(line)
            except ValueError as exc:
                report.unparsable.append(Problem(line, str(exc)))
                continue
            batch.append((line, event))
            if len(batch) >= self._batch_size:
                self._send(batch, report)
                batch = []
        if batch:
            self._send(batch, report)
        return report

    def _send(self, batch: list[tuple[Line, dict[str, Any]]], report: ReplayReport) -> None:
        if self._gave_up is not None:
            report.undelivered.extend(Problem(line, self._gave_up) for line, _ in batch)
            return
        payload: Any = batch[0][1] if len(batch) == 1 else [event for _, event in batch]
        response, error = self._post(payload)
        if response is not None:
            # A server may accept a batch in part (plumbline answers 201 listing rejected indexes).
            rejected = _rejected_in(response, len(batch))
            known = _listed_up_to(response, rejected, len(batch))
            for index, (line, _) in enumerate(batch[:known]):
                if index in rejected:
                    report.rejected.append(Problem(line, rejected[index]))
                else:
                    report.sent += 1
            if known < len(batch):
                # the answer lists only the first rejected events (plumbline: 1,000): the
                # events after the last one listed are sent again (the accepted ones are
                # duplicates, stored once), so that each rejected one is named
                self._send(batch[known:], report)
        elif error is not None and error.retryable:
            self._gave_up = f"not sent: server unavailable ({error})"
            report.undelivered.extend(Problem(line, str(error)) for line, _ in batch)
        elif len(batch) > 1 and error is not None and error.status_code != 401:
            # Rejected as a whole (some servers take no arrays or reject batches atomically):
            # one by one, so the good events still get in and each bad one gets its own reason.
            logger.info("batch rejected (%s); sending its events one by one", error)
            for item in batch:
                self._send([item], report)
        else:  # one event, or a batch refused for its credentials (401): same answer one by one
            report.rejected.extend(Problem(line, str(error)) for line, _ in batch)

    def _post(self, payload: Any) -> tuple[httpx.Response | None, TransportError | None]:
        attempt = 0
        while True:
            try:
                return self._transport.post(payload), None
            except TransportError as exc:
                if not exc.retryable or attempt >= self._retries:
                    return None, exc
                delay = min(self._backoff * 2**attempt, self._max_backoff)
                attempt += 1
                logger.info("retrying in %.2fs after: %s", delay, exc)
                time.sleep(delay)


def _rejected_in(response: httpx.Response, count: int) -> dict[int, str]:
    """Indexes of the events a 2xx answer says it rejected (`rejected`, `errors[].index`), with reasons."""
    try:
        body = response.json()
    except ValueError:
        return {}
    if not isinstance(body, Mapping):
        return {}
    reasons: dict[int, list[str]] = {}
    for index in body.get("rejected") or []:
        if _is_index(index, count):
            reasons.setdefault(index, [])
    for error in body.get("errors") or []:
        if isinstance(error, Mapping) and _is_index(error.get("index"), count):
            field_name, message = error.get("field"), error.get("message")
            reasons.setdefault(error["index"], []).append(
                f"{field_name}: {message}" if field_name else str(message)
            )
    return {index: "; ".join(texts) or "no reason given" for index, texts in reasons.items()}


def _listed_up_to(response: httpx.Response, rejected: dict[int, str], count: int) -> int:
    """How many of the batch's events the answer accounts for: all of them, or, when it counts
    more rejected events (``rejectedCount``) than it lists, those up to the last one listed."""
    try:
        body = response.json()
    except ValueError:
        return count
    total = body.get("rejectedCount") if isinstance(body, Mapping) else None
    if not isinstance(total, int) or total <= len(rejected) or not rejected:
        return count
    return max(rejected) + 1


def _is_index(value: Any, count: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < count


def write_failed(path: Path, problems: list[Problem]) -> None:
    """Write the original bytes of every problem line to `path`, one per line, in file order."""
    with path.open("wb") as handle:
        for problem in problems:
            handle.write(problem.line.raw + b"\n")
