"""Keep the C allocator from holding on to memory ingestion has freed (glibc only; a no-op
elsewhere).

glibc's malloc gives each thread that allocates its own arena (up to 8 per core), and keeps
freed memory in them for reuse: after a large batch, parsed on a worker thread, the server's RSS
stayed hundreds of MiB above its working set. :func:`limit_arenas` caps the arenas at two when
a server process starts; :func:`trim` hands free memory back to the system after a large
request's events are normalized.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging

logger = logging.getLogger(__name__)

_M_ARENA_MAX = -8  # glibc's mallopt parameter number
ARENAS = 2


@functools.cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.malloc_trim  # noqa: B018 - glibc has it, musl and macOS do not
        libc.mallopt  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def limit_arenas() -> None:
    """At most :data:`ARENAS` malloc arenas for the threads to come."""
    libc = _libc()
    if libc is not None and not libc.mallopt(_M_ARENA_MAX, ARENAS):
        logger.debug("mallopt(M_ARENA_MAX) refused")


def trim() -> None:
    """Return the allocator's free memory to the system."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
