"""The memory budget of ingestion, shared by all of a server process's requests (issue 15 item 3).

A request reserves what it will hold before it holds it: its body as received, the body
decompressed, each event's bytes, and its events parsed, at the costs below (measured by
bench/ingest_memory.py). Parsed events outlive the request: the store's normalizer holds them
until it has written them into the lineage tables, so that part of a reservation is handed over
when they are stored and given back part by part as the normalizer lets them go (it writes a
large request in groups of ``MAX_GROUP_BYTES``); then memory the allocator keeps free is returned
to the system (:func:`plumbline.server.malloc.trim`). The normalizer's own working set, one
group's, is a standing share of the budget (:data:`NORMALIZER_BYTES`), so the budget bounds all
that ingestion holds beyond the caches (docs/reference.md, "Ingestion memory").

A body reserves its memory as its bytes arrive (what is received, not what ``Content-Length``
declares: a client declaring 10 MB and sending 1 byte holds 2 bytes, issue 28 item 6); once it is
complete, the request reserves what parsing it will hold (:func:`request_cost`); a compressed one
reserves what decompression may hold first, then the rest once its size is known; each element
of a batch also reserves :data:`ELEMENT_COST`, accepted or rejected, before the batch is split (a
million tiny rejected elements held ~40 times their bytes); every reservation is made before
any of the request's events is stored. One client (a token; in open mode a client address)
holds at most its share of the budget (:func:`client_share`: half of it, or one largest request
when that is more): past it, its request is answered 503 at once, so one client cannot take the
budget from the others. A reservation that does not fit waits, first come first served, up to :data:`WAIT_SECONDS` for what is held to be given
back; when it still does not fit, the request is answered **503** with ``Retry-After`` set to
the wait expected from the rate at which the budget has recently been given back (producers
retry 503; the OpenLineage client does). Everything a request reserved is given back when it is
answered.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from types import TracebackType

from plumbline.server.errors import RETRY_AFTER_SECONDS, APIError
from plumbline.server.malloc import trim
from plumbline.store.write import MAX_GROUP_BYTES

TRIM_ABOVE_BYTES = 16 * 1024 * 1024  # a request that held this much returns free memory after

# bytes of memory per byte of: a body being received (the chunks, then the body), a decompressed
# body, the events split out of a batch, and an event parsed until it is normalized (models, the
# JSON as sent, canonical JSON, the normalizer's rows; bench/ingest_memory.py: ~13x as Python
# objects, tracemalloc, for a 10 MiB batch)
RECEIVE_COST = 2
DECOMPRESS_COST = 2
SPLIT_COST = 1
PARSE_COST = 16
# bytes of memory per element of a batch, whatever its size (rejected ones too): the splitter's
# view of it and its bytes (bench/bad_events.py: ~115 for a million `{}`); a batch holds at most
# MAX_BATCH_EVENTS elements (more: 413), so elements cost at most 128 MiB beside their bytes
ELEMENT_COST = 128
MAX_BATCH_EVENTS = 1_048_576
# bytes of memory per byte of events' JSON the normalizer writes in one group (rows, statements,
# results; tracemalloc peak of one group of MAX_GROUP_BYTES): its standing share of the budget
NORMALIZE_COST = 24
NORMALIZER_BYTES = NORMALIZE_COST * MAX_GROUP_BYTES

WAIT_SECONDS = 3.0  # a reservation that does not fit waits this long before the 503
MAX_WAITING = 16  # reservations waiting at once, at most (each holds a thread); more: 503 at once
RATE_SECONDS = 30.0  # Retry-After comes from what was given back in this window
MAX_RETRY_AFTER = 60


def request_cost(body_bytes: int) -> int:
    """What one request of ``body_bytes`` (uncompressed) reserves."""
    return (RECEIVE_COST + SPLIT_COST + PARSE_COST) * body_bytes


def client_share(capacity: int, max_body_bytes: int, standing: int = NORMALIZER_BYTES) -> int:
    """The most one client may hold: half of what requests may hold, or what one request of
    the largest body holds when that is more."""
    per_request = RECEIVE_COST + DECOMPRESS_COST + SPLIT_COST + PARSE_COST
    return max((capacity - min(standing, capacity)) // 2, per_request * max_body_bytes)


def minimum_budget(max_body_bytes: int) -> int:
    """The smallest budget that lets one request of the largest body through, compressed or not
    (a compressed one also holds its decompressed body), beside the normalizer's share."""
    per_request = RECEIVE_COST + DECOMPRESS_COST + SPLIT_COST + PARSE_COST
    return per_request * max_body_bytes + NORMALIZER_BYTES


class IngestBudget:
    """A byte budget shared by concurrent requests: ``capacity`` in all, of which
    ``standing`` (the normalizer's working set) is held for good."""

    def __init__(
        self,
        capacity: int,
        *,
        standing: int = NORMALIZER_BYTES,
        wait_seconds: float = WAIT_SECONDS,
        share: int | None = None,
        refusal: str = "the server is ingesting as much as its memory budget allows: retry in "
        "{seconds} s (--ingest-memory-bytes sets the budget)",
    ) -> None:
        self.capacity = capacity
        self.refusal = refusal  # the 503's message, with {seconds}
        self.share = share  # the most one client may hold (None: no limit but the capacity)
        self._by_client: dict[str, int] = {}
        self.standing = min(standing, capacity)
        self.reserved = self.standing  # what requests and the normalizer hold now
        self.wait_seconds = wait_seconds
        self._changed = threading.Condition()
        self._waiting: deque[tuple[object, int]] = deque()  # (ticket, amount), first served first
        self._given: deque[tuple[float, int]] = deque()  # (when, bytes) given back lately
        self._given_bytes = 0

    @property
    def in_flight(self) -> int:
        """What requests and the events they handed over hold (the standing share apart)."""
        return self.reserved - self.standing

    @property
    def waiting(self) -> int:
        """Reservations waiting for room now."""
        return len(self._waiting)

    def reservation(self, client: str = "") -> Reservation:
        """What one request of ``client`` holds; use as a context manager, which gives it all
        back."""
        return Reservation(self, client)

    def held_by(self, client: str) -> int:
        """What ``client``'s requests hold now."""
        with self._changed:
            return self._by_client.get(client, 0)

    def _over_share(self, client: str, amount: int) -> bool:
        return self.share is not None and self._by_client.get(client, 0) + amount > self.share

    def _count(self, client: str, amount: int) -> None:
        held = self._by_client.get(client, 0) + amount
        if held > 0:
            self._by_client[client] = held
        else:
            self._by_client.pop(client, None)

    def _take(self, amount: int, wait: bool, holding: bool, client: str = "") -> int | None:
        """Reserve ``amount`` for ``client``: None once taken, else the seconds to wait before
        trying again. Waits (``wait``) behind the reservations waiting before it, up to
        ``wait_seconds``; one that already holds part of the budget (``holding``) goes first.
        Past the client's share: refused at once (only its own requests would make room)."""
        with self._changed:
            if self._over_share(client, amount):
                return RETRY_AFTER_SECONDS
            if not self._waiting and self.reserved + amount <= self.capacity:
                self.reserved += amount
                self._count(client, amount)
                return None
            if not wait or self.wait_seconds <= 0 or len(self._waiting) >= MAX_WAITING:
                return self._expected_wait(amount)
            ticket = (object(), amount)
            if holding:
                self._waiting.appendleft(ticket)
            else:
                self._waiting.append(ticket)
            deadline = time.monotonic() + self.wait_seconds
            try:
                while True:
                    if self._waiting[0] is ticket and self.reserved + amount <= self.capacity:
                        if self._over_share(client, amount):
                            return RETRY_AFTER_SECONDS
                        self.reserved += amount
                        self._count(client, amount)
                        return None
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return self._expected_wait(amount, ticket)
                    self._changed.wait(left)
            finally:
                self._waiting.remove(ticket)
                self._changed.notify_all()  # the next in line may fit now

    def _give(self, amount: int, client: str | None = None) -> None:
        """Give back ``amount``; ``client``'s share too (None: handed over, not the client's)."""
        if amount <= 0:
            return
        with self._changed:
            self.reserved -= amount
            if client is not None:
                self._count(client, -amount)
            now = time.monotonic()
            self._given.append((now, amount))
            self._given_bytes += amount
            self._changed.notify_all()

    def _expected_wait(self, amount: int, ticket: tuple[object, int] | None = None) -> int:
        """Seconds until ``amount`` (behind what waits before it) is likely to fit, from the
        rate at which the budget was given back in the last ``RATE_SECONDS``."""
        now = time.monotonic()
        while self._given and self._given[0][0] < now - RATE_SECONDS:
            self._given_bytes -= self._given.popleft()[1]
        ahead = 0
        for waiting in self._waiting:
            if waiting is ticket:
                break
            ahead += waiting[1]
        short = self.reserved + ahead + amount - self.capacity
        if short <= 0 or not self._given_bytes:
            return RETRY_AFTER_SECONDS
        span = max(1.0, now - self._given[0][0])
        seconds = math.ceil(short / (self._given_bytes / span))
        return max(RETRY_AFTER_SECONDS, min(MAX_RETRY_AFTER, seconds))


class Reservation:
    """The part of the budget one request holds."""

    def __init__(self, budget: IngestBudget, client: str = "") -> None:
        self.budget = budget
        self.client = client
        self.held = 0

    def reserve(self, amount: int, *, wait: bool = False) -> None:
        """Hold ``amount`` more bytes, waiting for room when ``wait`` (call from a thread, not
        the event loop), or raise a 503 :class:`APIError` with Retry-After."""
        if amount <= 0:
            return
        retry_after = self.budget._take(amount, wait, holding=self.held > 0, client=self.client)
        if retry_after is not None:
            raise APIError(
                503, self.budget.refusal.format(seconds=retry_after), retry_after=retry_after
            )
        self.held += amount

    def reserve_up_to(self, total: int, *, wait: bool = False) -> None:
        """Hold at least ``total`` bytes in all (503 as :meth:`reserve`)."""
        self.reserve(total - self.held, wait=wait)

    def hand_over(self, amount: int) -> Handover:
        """Take ``amount`` out of this reservation (its end no longer gives it back): the
        :class:`Handover` gives it back to the budget as the normalizer lets the events go."""
        amount = min(amount, self.held)
        self.held -= amount
        with self.budget._changed:  # the normalizer's now: no longer the client's share
            self.budget._count(self.client, -amount)
        return Handover(self.budget, amount)

    def release(self, amount: int) -> None:
        """Give back ``amount`` of what is held."""
        amount = min(amount, self.held)
        self.budget._give(amount, self.client)
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


class Handover:
    """The share of a reservation that parsed events hold until they are normalized: given back
    in proportion as they are (:meth:`progress`), all of it at the end (calling it)."""

    def __init__(self, budget: IngestBudget, amount: int) -> None:
        self.budget = budget
        self.amount = amount
        self.given = 0
        self._lock = threading.Lock()

    def progress(self, done: int, total: int) -> None:
        """``done`` of ``total`` events are normalized and let go."""
        self._give_up_to(self.amount if done >= total else self.amount * done // max(total, 1))

    def __call__(self) -> None:
        """The normalizer is done with every event (or the write failed): give back the rest."""
        self._give_up_to(self.amount)

    def _give_up_to(self, total: int) -> None:
        with self._lock:
            amount, self.given = total - self.given, max(self.given, total)
            finished = amount > 0 and self.given == self.amount
        if amount > 0:
            self.budget._give(amount)
        if finished and self.amount >= TRIM_ABOVE_BYTES:
            trim()
