"""Conflicts between events that the store resolves by a rule, reported instead of folded silently.

- ``run_id_reused``: an event names a run id that is already the run of another job (with events of
  its own). The event is not folded into the other job's run: normalizing it fails (it is kept raw,
  marked failed with the reason, see :class:`RunConflictError`).
- ``parent_job_mismatch``: a ``parent`` facet names a run of another job than the one it gives, or
  a run known only from such a facet gets its own events under another job (the run's own events
  win: the run moves to their job).
- ``complete_and_fail_same_time``: a run has COMPLETE and FAIL at the same event time; it ends
  FAILED (a failure beats a success at the same instant).
- ``weaker_source_overruled``: a weaker source (an event carrying the ``plumbline_extraction`` run
  facet: event-log extraction) gives a run a terminal state other than the one another source
  (live capture) recorded; the other source's state stays, whatever the event times.

Each is logged (one warning line) and counted per process (``plumbline_lineage_conflicts`` in
``/metrics``), once its write has committed (or, for a failed event, once it is marked failed).
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from plumbline.store.errors import StoreError

logger = logging.getLogger(__name__)

KINDS = (
    "run_id_reused",
    "parent_job_mismatch",
    "complete_and_fail_same_time",
    "weaker_source_overruled",
)

_counts: Counter[str] = Counter()
_lock = threading.Lock()


@dataclass(frozen=True)
class Conflict:
    """One conflict: its kind, the run it is about, and what happened, in words."""

    kind: str
    run_id: str
    detail: str


class RunConflictError(StoreError):
    """An event's run id belongs to another job: the event cannot be normalized as sent."""

    def __init__(self, conflict: Conflict) -> None:
        super().__init__(conflict.detail)
        self.conflict = conflict


def report(conflicts: Iterable[Conflict]) -> None:
    """Log and count ``conflicts`` (their write committed, or their event was marked failed)."""
    for conflict in conflicts:
        logger.warning("lineage conflict (%s): %s", conflict.kind, conflict.detail)
        with _lock:
            _counts[conflict.kind] += 1


def counts() -> dict[str, int]:
    """Conflicts reported by this process so far, by kind (every kind, zero included)."""
    with _lock:
        return {kind: _counts[kind] for kind in KINDS}
