"""Progress of an extraction while it runs: a line every few seconds (logs, executions, events,
MB, and each per second), written by a thread of the driver that reads counters the Spark tasks
add to (accumulators: each task adds its log's counts when it has read it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Counts = tuple[int, int, int, int]  # logs done, executions, events sent, bytes


class Progress:
    """Writes a progress line at most every `every` seconds (and when forced)."""

    def __init__(self, every: float, write: Callable[[str], None], total: int | None = None):
        self.every = every
        self.write = write
        self.total = total
        self.started = time.monotonic()
        self._last = self.started

    def update(self, counts: Counts, *, force: bool = False) -> None:
        """Write the line for `counts` if `every` seconds have passed since the last one."""
        now = time.monotonic()
        if not force and now - self._last < self.every:
            return
        self._last = now
        logs, executions, sent, size = counts
        elapsed = max(now - self.started, 1e-9)
        of = f"/{self.total}" if self.total is not None else ""
        self.write(
            f"progress: {logs}{of} logs, {executions} executions, {sent} events, "
            f"{size / 1e6:.1f} MB in {elapsed:.0f} s: {logs / elapsed:.2f} logs/s, "
            f"{executions / elapsed:.1f} executions/s, {size / 1e6 / elapsed:.2f} MB/s"
        )

    @contextmanager
    def watching(self, read: Callable[[], Counts]) -> Iterator[None]:
        """Update from `read()` every `every` seconds in a thread while the block runs."""
        done = threading.Event()

        def loop() -> None:
            while not done.wait(self.every):
                self.update(read(), force=True)

        thread = threading.Thread(target=loop, name="plumbline-progress", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join(timeout=5)
