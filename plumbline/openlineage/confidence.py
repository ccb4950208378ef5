"""Confidence on lineage edges (issue 31 §2): how an edge is known and how complete that is.

Shared by the capture (which states its completeness in the ``plumbline_completeness`` run facet),
the store (which keeps it on every edge) and the analyses (``minConfidence``). Pure data and two
small functions, no I/O.

- ``edge source``: ``capture`` (plumbline's live capture), ``eventLog`` (plumbline's event-log
  extraction: its events carry the ``plumbline_extraction`` run facet), ``declared`` (a user's
  expectations file, ``declare`` section) or ``producer:<name>`` for any other producer, named
  from its producer URI (``producer:dbt``, ``producer:openlineage-spark``...).
- ``completeness``: ``inferred`` < ``partial`` < ``complete``. A producer that does not state it
  (no ``plumbline_completeness`` facet) is ``inferred``; ``partial`` comes with its reasons, each
  ``"<kind>: <detail>"`` with kind one of :data:`REASON_KINDS`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

FACET = "plumbline_completeness"  # the run facet the capture states its completeness in
EXTRACTION_FACET = "plumbline_extraction"  # the run facet of event-log extraction's events

INFERRED, PARTIAL, COMPLETE = "inferred", "partial", "complete"
COMPLETENESS = (INFERRED, PARTIAL, COMPLETE)  # in order: a path is as good as its weakest edge
RANK = {name: rank for rank, name in enumerate(COMPLETENESS)}

CAPTURE, EVENT_LOG, DECLARED = "capture", "eventLog", "declared"
PRODUCER_PREFIX = "producer:"

# why lineage is partial (the capture's reasons) or inferred (the store's)
UNHANDLED_NODE = "unhandledNode"  # a plan node passed through without a handler
TRUNCATED_PLAN = "truncatedPlan"  # Spark cut the plan (or a list in it) short
PYTHON_UDF = "pythonUdf"  # Python code computed columns plumbline cannot look into
RDD = "rdd"  # an RDD step: its columns come from code, not from a plan
UNATTESTED = "unattested"  # the producer does not say how complete its lineage is
REASON_KINDS = (UNHANDLED_NODE, TRUNCATED_PLAN, PYTHON_UDF, RDD, UNATTESTED, DECLARED)
MAX_REASONS = 10  # reasons kept per edge (the capture lists at most this many)

_PLUMBLINE = "https://github.com/plumbline/plumbline/"
# well-known producers by a part of their URI -> the name an edge says
_KNOWN = (
    ("/integration/dbt", "dbt"),
    ("/integration/spark", "openlineage-spark"),
    ("/integration/airflow", "airflow"),
    ("/integration/flink", "flink"),
    ("apache/airflow", "airflow"),
    ("/marquezproject/", "marquez"),
)


@lru_cache(maxsize=256)
def producer_source(producer: str) -> str:
    """The edge source of an event by its producer URI (event-log extraction aside)."""
    if producer.startswith(_PLUMBLINE) and producer.rstrip("/").endswith("/plumbline/spark"):
        return CAPTURE
    if producer.startswith(_PLUMBLINE) and producer.rstrip("/").endswith("/plumbline/expectations"):
        return DECLARED
    lowered = producer.lower()
    for part, name in _KNOWN:
        if part in lowered:
            return PRODUCER_PREFIX + name
    parts = [p for p in lowered.split("?")[0].split("/") if p and ":" not in p]
    name = parts[-1] if parts else "unknown"
    return (PRODUCER_PREFIX + name)[:64]


def event_confidence(producer: str, run_facets: Any) -> tuple[str, str | None, list[str] | None]:
    """(edge source, completeness or None when unstated, its reasons) of one event, from its
    producer URI and its raw run facets."""
    facets = run_facets if isinstance(run_facets, dict) else {}
    source = EVENT_LOG if EXTRACTION_FACET in facets else producer_source(producer)
    stated = facets.get(FACET)
    if not isinstance(stated, dict) or stated.get("completeness") not in RANK:
        return source, None, None
    reasons = stated.get("reasons")
    kept = [str(r)[:200] for r in reasons[:MAX_REASONS]] if isinstance(reasons, list) else []
    return source, str(stated["completeness"]), kept


def completeness_of(stored: str | None) -> str:
    """An edge's completeness: what its producer stated, else ``inferred``."""
    return stored if stored in RANK else INFERRED


def reasons_of(source: str | None, completeness: str | None, reasons: Any) -> list[str]:
    """An edge's reasons: the producer's, or why it is ``inferred`` when none was stated."""
    if completeness in RANK:
        return [str(r) for r in reasons] if isinstance(reasons, list) else []
    if source == DECLARED:
        return [f"{DECLARED}: in an expectations file, not observed"]
    if source is None:
        return [f"{UNATTESTED}: recorded before edges kept their confidence"]
    return [f"{UNATTESTED}: {source} does not state how complete its lineage is"]


def at_least(completeness: str | None, minimum: str) -> bool:
    """Whether an edge's completeness is ``minimum`` or better."""
    return RANK[completeness_of(completeness)] >= RANK[minimum]
