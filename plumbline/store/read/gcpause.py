"""Pausing Python's cyclic garbage collector while a large graph document is built.

A depth-5 lineage answer allocates tens of thousands of dicts and lists; each 700 allocations wake the
collector, which then scans every young container, and now and then the whole heap. The documents
are trees (freed by reference counting alone), so those scans find nothing. The pause is
process-wide: a counter keeps the collector off while any thread is building, and it is switched
back on (if it was on) when the last one finishes.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_builders = 0
_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Keep the cyclic garbage collector off inside the block (reentrant and thread-safe)."""
    global _builders, _was_enabled
    with _lock:
        if _builders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _builders += 1
    try:
        yield
    finally:
        with _lock:
            _builders -= 1
            if _builders == 0 and _was_enabled:
                gc.enable()
