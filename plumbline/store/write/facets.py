"""Facet maps merged by facet name: a newer facet replaces the older one; ``_deleted`` removes it.

"Newer" is by event time when the times are known (:func:`merge_facets_at`): the store keeps,
beside each facets map, ``{facet name: event time}`` of the value kept, so that an older event
arriving late changes nothing. A name in the times whose facet is absent was deleted at that
time (a tombstone: an older value arriving later does not bring the facet back). A facet with
no time (stored before times were kept) is older than anything.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from plumbline.store.write.context import as_utc


def _is_deletion(facet: Any) -> bool:
    return isinstance(facet, dict) and facet.get("_deleted") is True


def time_key(time: datetime) -> str:
    """An event time as the facet times keep it: UTC ISO 8601 to the microsecond, which sorts
    as text in time order."""
    utc = as_utc(time)
    assert utc is not None
    return utc.isoformat(timespec="microseconds").replace("+00:00", "Z")


def merge_facets_at(
    current: dict[str, Any] | None,
    times: dict[str, str] | None,
    sent: dict[str, Any] | None,
    time: str,
) -> tuple[dict[str, Any], dict[str, str], set[str]]:
    """``current`` (with its facet ``times``) updated with the facets ``sent`` by an event at
    ``time`` (a :func:`time_key`): each sent facet replaces (or, ``_deleted``, removes) the
    kept one unless the kept one's event is newer; at the same time the later arrival wins.

    Returns the new facets, the new times (new dicts; no argument changes) and the names of
    the sent facets that were taken.
    """
    merged = dict(current or {})
    merged_times = dict(times or {})
    taken: set[str] = set()
    for name, facet in (sent or {}).items():
        kept_at = merged_times.get(name)
        if kept_at is not None and kept_at > time:
            continue  # the kept value (or deletion) comes from a newer event
        if _is_deletion(facet):
            merged.pop(name, None)
        else:
            merged[name] = facet
        merged_times[name] = time
        taken.add(name)
    return merged, merged_times, taken
