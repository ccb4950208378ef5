"""The memory budget of ingestion, shared by all of a server process's requests (issue 15 item 3).

A request reserves what it will hold before it holds it: its body as received, the body
decompressed, each event's bytes, and its events parsed, at the costs below (measured by
bench/ingest_memory.py). Parsed events outlive the request: the store's normalizer holds them
until it has written them into the lineage tables, so that part of a reservation is handed over
when they are stored and given back once the normalizer is done with them; then memory the
allocator keeps free is returned to the system (:func:`plumbline.server.malloc.trim`).
A body of declared length reserves all of it (:func:`request_cost`) before a byte is read; a
compressed one reserves what decompression may hold first, then the rest once its size is known;
every reservation is made before any of the request's events is stored. When a reservation does
not fit, the request is answered **503** with ``Retry-After`` at once; producers retry 503 (the
OpenLineage client does). Everything a request reserved is given back when it is answered.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType

from plumbline.server.errors import RETRY_AFTER_SECONDS, APIError
from plumbline.server.malloc import trim

TRIM_ABOVE_BYTES = 16 * 1024 * 1024  # a request that held this much returns free memory after

# bytes of memory per byte of: a body being received (the chunks, then the body), a decompressed
# body, the events split out of a batch, and an event parsed until it is normalized (models, the
# JSON as sent, canonical JSON, the normalizer's rows; bench/ingest_memory.py: ~18x in all at
# peak for a 10 MiB batch before this budget)
RECEIVE_COST = 2
DECOMPRESS_COST = 2
SPLIT_COST = 1
PARSE_COST = 16
# a batch is parsed and stored this many bytes of events at a time


def request_cost(body_bytes: int) -> int:
    """What one request of ``body_bytes`` (uncompressed) reserves."""
    return (RECEIVE_COST + SPLIT_COST + PARSE_COST) * body_bytes


def minimum_budget(max_body_bytes: int) -> int:
    """The smallest budget that lets one request of the largest body through, compressed or not
    (a compressed one also holds its decompressed body)."""
    return (RECEIVE_COST + DECOMPRESS_COST + SPLIT_COST + PARSE_COST) * max_body_bytes


class IngestBudget:
    """A byte budget shared by concurrent requests."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.reserved = 0
        self._lock = threading.Lock()

    def reservation(self) -> Reservation:
        """What one request holds; use as a context manager, which gives it all back."""
        return Reservation(self)

    def _take(self, amount: int) -> bool:
        with self._lock:
            if self.reserved + amount > self.capacity:
                return False
            self.reserved += amount
            return True

    def _give(self, amount: int) -> None:
        with self._lock:
            self.reserved -= amount


class Reservation:
    """The part of the budget one request holds."""

    def __init__(self, budget: IngestBudget) -> None:
        self.budget = budget
        self.held = 0

    def reserve(self, amount: int) -> None:
        """Hold ``amount`` more bytes, or raise a 503 :class:`APIError` (with Retry-After)."""
        if amount <= 0:
            return
        if not self.budget._take(amount):
            raise APIError(
                503,
                "the server is ingesting as much as its memory budget allows: retry in "
                f"{RETRY_AFTER_SECONDS} s (--ingest-memory-bytes sets the budget)",
            )
        self.held += amount

    def reserve_up_to(self, total: int) -> None:
        """Hold at least ``total`` bytes in all (503 as :meth:`reserve`)."""
        self.reserve(total - self.held)

    def hand_over(self, amount: int) -> Callable[[], None]:
        """Take ``amount`` out of this reservation (its end no longer gives it back); the
        returned function gives it back to the budget, once, whenever it is called."""
        amount = min(amount, self.held)
        self.held -= amount
        given = threading.Lock()
        budget = self.budget

        def give_back() -> None:
            if given.acquire(blocking=False):
                budget._give(amount)
                if amount >= TRIM_ABOVE_BYTES:
                    trim()

        return give_back

    def release(self, amount: int) -> None:
        """Give back ``amount`` of what is held."""
        amount = min(amount, self.held)
        self.budget._give(amount)
        self.held -= amount

    def __enter__(self) -> Reservation:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release(self.held)
