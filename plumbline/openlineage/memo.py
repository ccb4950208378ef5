"""A thread-safe LRU map bounded by entry count and, optionally, by the total size its callers
declare."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class BoundedLRU(Generic[V]):
    """Least-recently-used entries go first once ``max_entries`` or ``max_size`` is passed."""

    def __init__(self, max_entries: int, max_size: int | None = None) -> None:
        self.max_entries = max_entries
        self.max_size = max_size if max_size is not None else max_entries  # entries of size 1
        self.size = 0
        self._entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> V | None:
        """The value under ``key`` (now the most recently used), else None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: Hashable, value: V, size: int = 1) -> None:
        """Keep ``value`` under ``key``; ``size`` counts against ``max_size``."""
        if size > self.max_size:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size -= old[1]
            self._entries[key] = (value, size)
            self.size += size
            while self.size > self.max_size or len(self._entries) > self.max_entries:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.size -= dropped

    def pop(self, key: Hashable) -> None:
        """Forget ``key`` (nothing when absent)."""
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size -= old[1]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.size = 0
