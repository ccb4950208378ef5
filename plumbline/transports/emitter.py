"""AsyncEmitter: deliver events from a background thread, spilling what cannot be delivered."""

from __future__ import annotations

import atexit
import collections
import logging
import threading
import time
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plumbline.transports.base import Transport
from plumbline.transports.errors import TransportError
from plumbline.transports.file import JsonLinesWriter
from plumbline.transports.spill import default_spill_path
from plumbline.transports.throttle import ThrottledLog

logger = logging.getLogger(__name__)

_ATEXIT_TIMEOUT = 5.0
_live: weakref.WeakSet[AsyncEmitter] = weakref.WeakSet()


@dataclass(frozen=True)
class EmitterStats:
    """Counts since the emitter started.

    Once idle, `submitted == sent + spilled + dropped`. `failed` counts events the transport gave up
    on (each then spilled); `dropped` counts events neither sent nor spilled (not serializable, or
    the spill file could not be written).
    """

    submitted: int = 0
    sent: int = 0
    spilled: int = 0
    failed: int = 0
    dropped: int = 0


class AsyncEmitter:
    """Bounded queue + one daemon background thread that calls `transport.emit`.

    Never blocks the caller, never raises into it. Retryable failures (connection errors, 5xx) are
    retried `retries` times with exponential backoff starting at `backoff` seconds; a 4xx is final.
    Events the transport gave up on, events that find the queue full, and events still queued when
    `close` times out are appended to the spill file (JSON Lines; created only when needed).
    """

    def __init__(
        self,
        transport: Transport,
        *,
        max_queue: int = 10_000,
        spill_path: str | Path | None = None,
        retries: int = 3,
        backoff: float = 0.5,
        max_backoff: float = 10.0,
        log_interval: float = 30.0,
    ) -> None:
        if max_queue < 1:
            raise ValueError("max_queue must be at least 1")
        self._transport = transport
        self._max_queue = max_queue
        self._retries = max(0, retries)
        self._backoff = max(0.0, backoff)
        self._max_backoff = max_backoff
        self._spill = JsonLinesWriter(
            spill_path if spill_path is not None else default_spill_path()
        )
        self._log = ThrottledLog(logger, log_interval)

        self._lock = threading.Lock()
        self._wakeup = threading.Condition(self._lock)  # the worker waits for events or stop
        self._idle = threading.Condition(self._lock)  # flush waits for pending == 0
        self._queue: collections.deque[Mapping[str, Any]] = collections.deque()
        self._pending = 0  # queued + in flight
        # the event the worker is sending, and whether close already spilled it (see close)
        self._in_flight: Mapping[str, Any] | None = None
        self._in_flight_spilled = False
        self._stopping = False
        self._closed = False
        self._close_result: bool | None = None
        self._abort = threading.Event()  # close timed out: stop retrying, spill instead
        self._transport_closed = False
        self._counts = {"submitted": 0, "sent": 0, "spilled": 0, "failed": 0, "dropped": 0}

        self._thread = threading.Thread(target=self._run, name="plumbline-emitter", daemon=True)
        self._thread.start()
        _live.add(self)

    @property
    def spill_path(self) -> Path:
        """Where undeliverable events go (the file exists only once something spilled)."""
        return self._spill.path

    @property
    def stats(self) -> EmitterStats:
        with self._lock:
            return EmitterStats(**self._counts)

    def submit(self, event: Mapping[str, Any]) -> None:
        """Queue `event` for delivery; spills it at once if the queue is full or the emitter closed."""
        try:
            with self._lock:
                self._counts["submitted"] += 1
                if not self._stopping and len(self._queue) < self._max_queue:
                    self._queue.append(event)
                    self._pending += 1
                    self._wakeup.notify()
                    return
                reason = "emitter is closed" if self._stopping else "queue is full"
            self._spill_event(event, reason)
        except Exception:  # never raise into the caller
            logger.exception("plumbline emitter: unexpected error in submit")

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every submitted event was sent or spilled; True when that happened in time."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while self._pending:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._idle.wait(remaining)
            return True

    def close(self, timeout: float | None = 10.0) -> bool:
        """Flush, stop the thread, close the transport; True when all that finished in `timeout`.

        Events still queued at the deadline are spilled. Idempotent: later calls return the first
        call's result.
        """
        with self._lock:
            if self._closed:
                return bool(self._close_result)
            self._closed = True
        _live.discard(self)
        deadline = None if timeout is None else time.monotonic() + timeout
        drained = self.flush(timeout)
        with self._lock:
            self._stopping = True
            self._wakeup.notify_all()
        if not drained:
            self._abort.set()
            self._spill_queued("emitter closed before delivery")
            self._spill_in_flight()
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        self._thread.join(remaining)
        result = drained and not self._thread.is_alive() and self._transport_closed
        with self._lock:
            self._close_result = result
        if not result:
            logger.warning(
                "plumbline emitter closed before all events were delivered (%s)", self.stats
            )
        spilled = self.stats.spilled
        if spilled:
            logger.warning(
                "plumbline: %d event(s) were spilled to %s; send them with `plumbline replay %s`",
                spilled,
                self._spill.path,
                self._spill.path,
            )
        return result

    def __enter__(self) -> AsyncEmitter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the worker thread -------------------------------------------------------------------

    def _run(self) -> None:
        try:
            while True:
                with self._lock:
                    while not self._queue and not self._stopping:
                        self._wakeup.wait()
                    if not self._queue:
                        break
                    event = self._queue.popleft()
                    self._in_flight, self._in_flight_spilled = event, False
                try:
                    self._deliver(event)
                except Exception:
                    logger.exception("plumbline emitter: unexpected error delivering an event")
                finally:
                    with self._lock:
                        self._in_flight = None
                    self._done(1)
        finally:
            self._transport_closed = self._close_transport()
            self._spill.close()  # reopened by a later write, if any

    def _deliver(self, event: Mapping[str, Any]) -> None:
        if self._abort.is_set():  # close already gave up waiting: do not start a slow request
            self._spill_from_worker(event, "emitter closed before delivery")
            return
        attempt = 0
        while True:
            try:
                self._transport.emit(event)
            except TransportError as exc:
                if exc.retryable and attempt < self._retries and not self._abort.is_set():
                    delay = min(self._backoff * (2**attempt), self._max_backoff)
                    attempt += 1
                    logger.debug("retrying in %.2fs after: %s", delay, exc)
                    if not self._abort.wait(delay):
                        continue
                if not exc.retryable:
                    logger.debug("event rejected: %s", exc)
                    self._log.log("rejected", logging.WARNING, "plumbline event rejected: %s", exc)
                self._count("failed")
                self._spill_from_worker(event, str(exc))
                return
            except Exception as exc:  # a bug in a transport must not kill the worker
                logger.exception("plumbline transport raised unexpectedly")
                self._count("failed")
                self._spill_from_worker(event, f"{type(exc).__name__}: {exc}")
                return
            self._count("sent")
            return

    def _close_transport(self) -> bool:
        try:
            return bool(self._transport.close(timeout=None))
        except Exception:
            logger.exception("plumbline transport failed to close")
            return False

    # -- shared helpers ----------------------------------------------------------------------

    def _spill_queued(self, reason: str) -> None:
        """Move everything still queued to the spill file (called from close, in the caller's thread)."""
        while True:
            with self._lock:
                if not self._queue:
                    return
                event = self._queue.popleft()
            try:
                self._spill_event(event, reason)
            finally:
                self._done(1)

    def _spill_in_flight(self) -> None:
        """Spill the event still being sent when close gave up waiting.

        The process may exit as soon as close returns, before that request ends: writing it now
        means it is never lost; if the request then succeeds, it simply arrives twice.
        """
        with self._lock:
            event, already = self._in_flight, self._in_flight_spilled
            self._in_flight_spilled = True
        if event is not None and not already:
            self._spill_event(
                event, "still being sent when the emitter closed (it may also arrive)"
            )

    def _spill_from_worker(self, event: Mapping[str, Any], reason: str) -> None:
        with self._lock:
            if event is self._in_flight:
                if self._in_flight_spilled:
                    return  # close already spilled it
                # claimed under the lock, as close claims it: one of the two spills it, never both
                self._in_flight_spilled = True
        self._spill_event(event, reason)

    def _spill_event(self, event: Mapping[str, Any], reason: str) -> None:
        try:
            self._spill.write(event)
        except Exception as exc:
            self._count("dropped")
            self._log.log(
                "dropped",
                logging.ERROR,
                "plumbline event lost (%s); could not spill it: %s",
                reason,
                exc,
            )
            return
        spilled = self._count("spilled")
        self._log.log(
            "spilled",
            logging.WARNING,
            "plumbline: %d event(s) spilled to %s so far (last reason: %s)",
            spilled,
            self._spill.path,
            reason,
        )

    def _count(self, name: str) -> int:
        with self._lock:
            self._counts[name] += 1
            return self._counts[name]

    def _done(self, n: int) -> None:
        with self._lock:
            self._pending -= n
            if not self._pending:
                self._idle.notify_all()


@atexit.register
def _close_live_emitters() -> None:
    """Give queued events a last chance (then the spill file) when the interpreter exits."""
    for emitter in list(_live):
        emitter.close(_ATEXIT_TIMEOUT)
