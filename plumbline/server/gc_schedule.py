"""Full garbage collections on a timer, for a long-running server process.

The server keeps large caches: validated event pieces (:mod:`plumbline.openlineage.body`) and
what the store holds (:mod:`plumbline.store.write.cache`), hundreds of thousands of objects.
CPython (up to 3.13) collects its oldest generation whenever the objects that survived into it
have grown by a quarter since the last full collection, and a full collection scans every
tracked object with the interpreter lock held. While the caches fill, that is every few hundred
milliseconds, 30-110 ms each: about a quarter of the wall time of the ingestion benchmark
(bench/RESULTS.md, session 6), with every request and the normalizer stopped meanwhile.

Here the young generations are still collected automatically (most cyclic garbage dies young);
the oldest one is collected by a daemon thread, once per interval. Cyclic garbage that lived
long enough to reach the oldest generation waits at most that long. Only for processes that
plumbline owns (``plumbline serve``, ``plumbline demo``): never installed into a user's job.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable

logger = logging.getLogger(__name__)

FULL_COLLECTION_SECONDS = 60.0
# gen-1 collections before an automatic full one: never, in practice (the timer does it)
_NO_AUTOMATIC_FULL = 2**31 - 1

_lock = threading.Lock()
_stop: Callable[[], None] | None = None


def schedule_full_collections(interval: float = FULL_COLLECTION_SECONDS) -> Callable[[], None]:
    """Collect the oldest generation every ``interval`` seconds instead of whenever CPython's
    heuristic says; returns a function that restores the thresholds and stops the timer (as
    :func:`stop_full_collections` does). Once per process: while a schedule runs, a second call
    returns the first call's stop function."""
    global _stop
    with _lock:
        if _stop is not None:
            return _stop
        young, middle, oldest = gc.get_threshold()
        gc.set_threshold(young, middle, _NO_AUTOMATIC_FULL)
        stopped = threading.Event()

        def collect_periodically() -> None:
            while not stopped.wait(interval):
                started = time.perf_counter()
                found = gc.collect()
                logger.debug(
                    "full garbage collection: %d objects freed in %.0f ms",
                    found,
                    1000 * (time.perf_counter() - started),
                )

        thread = threading.Thread(target=collect_periodically, name="plumbline-gc", daemon=True)
        thread.start()

        def stop() -> None:
            global _stop
            with _lock:
                if _stop is not stop:
                    return  # stopped already (a later schedule is not this one's to stop)
                stopped.set()
                thread.join()
                gc.set_threshold(young, middle, oldest)
                _stop = None

        _stop = stop
        return stop


def stop_full_collections() -> bool:
    """Stop the schedule, if one runs (CPython's own thresholds are back); whether one ran."""
    stop = _stop
    if stop is None:
        return False
    stop()
    return True
