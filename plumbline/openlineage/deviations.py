"""Designed vs observed (issue 31 §3): where a run's plan and its execution metrics disagree.

The capture states them in the ``plumbline_observedDeviations`` run facet of an action's COMPLETE
event; the store raises an ``observed-deviation`` alert for each; run diff and root cause show
them. Each deviation is ``{"kind", "namespace", "name", "field"?, "detail"}`` with kind:

- ``unreadInput``: an input the plan names that the run never read (0 rows or 0 files after
  pruning, by the scan's metrics);
- ``emptyOutput``: an output the run wrote with 0 rows;
- ``allNullColumn``: a column the plan writes that is null in every row written, by the
  statistics the table format keeps of the files the write committed (Delta's per-file stats).

Pure data and a reader, no I/O.
"""

from __future__ import annotations

from typing import Any

FACET = "plumbline_observedDeviations"
UNREAD_INPUT, EMPTY_OUTPUT, ALL_NULL_COLUMN = "unreadInput", "emptyOutput", "allNullColumn"
KINDS = (UNREAD_INPUT, EMPTY_OUTPUT, ALL_NULL_COLUMN)
MAX_DEVIATIONS = 50  # per run: the facet lists at most this many
ALERT_KIND = "observed-deviation"


def run_deviations(run_facets: Any) -> list[dict[str, Any]]:
    """The well-formed deviations of a run's facets (none when the facet is absent or malformed)."""
    if not isinstance(run_facets, dict):
        return []
    facet = run_facets.get(FACET)
    items = facet.get("deviations") if isinstance(facet, dict) else None
    if not isinstance(items, list):
        return []
    found: list[dict[str, Any]] = []
    for item in items[:MAX_DEVIATIONS]:
        if not isinstance(item, dict) or item.get("kind") not in KINDS:
            continue
        namespace, name = item.get("namespace"), item.get("name")
        if not isinstance(namespace, str) or not isinstance(name, str):
            continue
        entry: dict[str, Any] = {"kind": item["kind"], "namespace": namespace, "name": name}
        if isinstance(item.get("field"), str):
            entry["field"] = item["field"]
        entry["detail"] = str(item.get("detail") or "")[:500]
        found.append(entry)
    return found
