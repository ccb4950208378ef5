"""What a store writer knows the store already holds, so that repeated events skip the work.

Steady-state ingestion sends the same fields, column-lineage edges and dataset facets again and
again (every run of a job). The writer remembers them here and leaves them out of its statements.

The cache is a conservative view of the store, safe with other writers on the same database:
- it learns only from transactions that committed (:meth:`WriteCache.learn` after the commit);
- it only holds facts that stay true: field ids (fields are never deleted), column-lineage shape
  ids by digest (shapes are never deleted), and for each edge a
  time span the stored span contains (edge spans only widen; ``last_seen`` by the hour) and the masking flag last written;
- dataset facets are looked up by the digest stored beside them, so a stale entry is never used;
- each job's newest ended runs (what change alerts compare a run with), with the job's latest run
  as the write left it: a write that finds the job's latest run changed by another writer does
  not use them, one that touches a run they hold drops them, and they are read again from the
  store every ``HISTORY_REFRESH`` uses (see :mod:`.run_history`).
Dropping entries (it is bounded in entries and in estimated bytes, and per process) costs time,
never correctness.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from plumbline.openlineage.memo import BoundedLRU

FieldKey = tuple[int, str]  # (dataset_id, field name)


def hour(time: datetime) -> datetime:
    """The start of the hour of ``time``: edges' ``last_seen`` moves on only hour by hour."""
    return time.replace(minute=0, second=0, microsecond=0)


# how an edge was last reported: (edge source, completeness or None: unstated, reasons)
EdgeConfidence = tuple[str, str | None, tuple[str, ...] | None]


def confidence_covered(stored: EdgeConfidence | None, reported: EdgeConfidence) -> bool:
    """Whether writing ``reported`` over ``stored`` would change nothing (an unstated
    completeness leaves the stored one)."""
    if stored is None or stored[0] != reported[0]:
        return False
    return reported[1] is None or (stored[1], stored[2]) == (reported[1], reported[2])


def confidence_after(stored: EdgeConfidence | None, reported: EdgeConfidence) -> EdgeConfidence:
    """The confidence the store holds after ``reported`` (a newer report) was written."""
    if reported[1] is None and stored is not None:
        return (reported[0], stored[1], stored[2])
    return reported


# ('f', output_field_id, input_field_id, type, subtype) for field->field edges,
# ('d', output_dataset_id, input_field_id, type, subtype) for field->dataset edges
EdgeKey = tuple[str, int, int, str, str]


@dataclass(frozen=True)
class EdgeSeen:
    """What the store holds at least for one edge: a span within its stored first/last seen."""

    first_seen: datetime
    last_seen: datetime
    description: str | None
    masking: bool
    confidence: EdgeConfidence | None = None  # as the last write left it (None: unknown)

    def covers(
        self,
        first_seen: datetime,
        last_seen: datetime,
        description: str | None,
        masking: bool,
        confidence: EdgeConfidence | None = None,
    ) -> bool:
        """Whether writing these values would change nothing in the stored edge."""
        return (
            self.first_seen <= first_seen
            and hour(last_seen) <= hour(self.last_seen)
            and masking == self.masking
            and (description is None or description == self.description)
            and (confidence is None or confidence_covered(self.confidence, confidence))
        )

    def widened(self, other: EdgeSeen) -> EdgeSeen:
        """The edge after ``other`` was written over it (the stored update's rules)."""
        confidence = self.confidence
        if other.confidence is not None and other.last_seen >= self.last_seen:
            confidence = confidence_after(self.confidence, other.confidence)
        return EdgeSeen(
            min(self.first_seen, other.first_seen),
            max(self.last_seen, other.last_seen),
            other.description if other.description is not None else self.description,
            other.masking,
            confidence,
        )


@dataclass(frozen=True)
class LineageSeen:
    """One ``columnLineage`` facet object, written for one output: every edge it makes is stored
    with a span (``last_seen`` by the hour) containing this one. Keyed by the object's identity, which it keeps alive."""

    lineage: Any  # the facet object (events whose bytes repeat share it: see the parse cache)
    names: tuple[tuple[str, str], ...]  # the input datasets it names
    input_ids: tuple[int, ...]  # the datasets those names resolved to
    first_seen: datetime
    last_seen: datetime
    confidence: EdgeConfidence | None = None  # how the events that wrote it knew its edges

    def covers(
        self, input_ids: tuple[int, ...], time: datetime, confidence: EdgeConfidence | None = None
    ) -> bool:
        """Whether writing the facet's edges again at ``time`` would change nothing."""
        return (
            self.input_ids == input_ids
            and self.first_seen <= time
            and hour(time) <= hour(self.last_seen)
            and (confidence is None or confidence_covered(self.confidence, confidence))
        )

    def widened(self, other: LineageSeen) -> LineageSeen:
        """Both spans in one, when both describe the same facet object, inputs and confidence."""
        if (
            other.lineage is not self.lineage
            or other.input_ids != self.input_ids
            or other.confidence != self.confidence
        ):
            return other
        return LineageSeen(
            self.lineage,
            self.names,
            self.input_ids,
            min(self.first_seen, other.first_seen),
            max(self.last_seen, other.last_seen),
            self.confidence,
        )


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass
class EndedRun:
    """An ended run of a job as change alerts look at it: its row and what it read and wrote."""

    id: int
    uuid: str
    job_id: int
    state: str
    started_at: datetime | None
    ended_at: datetime | None
    at: datetime | None  # last_event_at: what orders a job's runs
    error: str | None
    io: set[tuple[int, str]] = field(default_factory=set)  # (dataset id, direction)
    rows: dict[int, int] = field(default_factory=dict)  # output dataset id -> row count
    order: tuple[datetime, int] = field(init=False, compare=False)  # how a job's runs sort
    seconds: float | None = field(init=False, compare=False)  # how long it ran, when known

    def __post_init__(self) -> None:
        self.order = (self.at or _EPOCH, self.id)
        self.seconds = (
            None
            if self.started_at is None or self.ended_at is None
            else (self.ended_at - self.started_at).total_seconds()
        )


@dataclass(frozen=True)
class JobHistory:
    """A job's newest ended runs as a committed write left them (newest first): every ended run
    of the job ordered at or after the last of them is among them; ``complete``: the job has no
    other ended runs. ``latest_run`` is the job's latest run uuid after that write; ``uses``
    counts the writes that used them since they were read from the store."""

    runs: tuple[EndedRun, ...]
    complete: bool
    latest_run: str | None
    uses: int = 0


@dataclass
class CacheUpdate:
    """What one write will teach the cache once its transaction has committed."""

    field_ids: dict[FieldKey, int] = field(default_factory=dict)
    edges: dict[EdgeKey, EdgeSeen] = field(default_factory=dict)
    # digest -> (facets, the length of their canonical JSON)
    facets: dict[str, tuple[dict[str, Any], int]] = field(default_factory=dict)
    lineages: dict[tuple[int, int], LineageSeen] = field(default_factory=dict)
    histories: dict[int, JobHistory | None] = field(default_factory=dict)  # None: forget it
    shapes: dict[str, int] = field(default_factory=dict)  # column-lineage shape digest -> id


# The writer's caches together hold at most this much, as estimated Python object sizes (below):
# with the parse memo's 64 MiB (plumbline.openlineage.fast), what a server process keeps resident
# besides the ingestion budget's requests in flight (docs/reference.md, "Ingestion memory").
DEFAULT_MAX_BYTES = 128 * 1024 * 1024
# the share of the bound each map gets
_SHARES = {
    "field_ids": 0.15,
    "edges": 0.2,
    "facets": 0.28,
    "lineages": 0.25,
    "histories": 0.1,
    "shapes": 0.02,
}
# estimated bytes of one entry as Python objects (key, value, and the LRU's own entry)
FIELD_ID_BYTES = 260  # + the field name's length
EDGE_BYTES = 480
JSON_OBJECT_FACTOR = 6  # a decoded JSON map takes ~6x its canonical JSON's bytes
LINEAGE_INPUT_BYTES = 400  # per input field named, the facet object being kept alive by the entry
HISTORY_RUN_BYTES = 600
SHAPE_BYTES = 250


def facets_size(canonical_length: int) -> int:
    """The estimated size of a facet map whose canonical JSON is ``canonical_length`` bytes."""
    return 200 + JSON_OBJECT_FACTOR * canonical_length


def lineage_size(lineage: Any) -> int:
    """The estimated size of a ``columnLineage`` facet object and its cache entry."""
    inputs = sum(len(f.get("inputFields") or ()) for f in lineage.fields.values())
    return 300 + LINEAGE_INPUT_BYTES * (inputs + len(lineage.dataset or ()) + len(lineage.fields))


class WriteCache:
    """One writer's memory of the store (see the module's docstring), bounded in entries and in
    estimated bytes (``max_bytes`` in all, shared among its maps)."""

    def __init__(
        self,
        *,
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_fields: int = 200_000,
        max_edges: int = 200_000,
        max_facets: int = 1_024,
        max_lineages: int = 4_096,
        max_histories: int = 4_096,
        max_shapes: int = 10_000,
    ) -> None:
        share = {name: int(max_bytes * part) for name, part in _SHARES.items()}
        self.max_bytes = max_bytes
        self.field_ids: BoundedLRU[int] = BoundedLRU(max_fields, share["field_ids"])
        self.edges: BoundedLRU[EdgeSeen] = BoundedLRU(max_edges, share["edges"])
        # digest -> a dataset's facets (a 20-column schema and its lineage: ~100 KiB)
        self.facets: BoundedLRU[dict[str, Any]] = BoundedLRU(max_facets, share["facets"])
        # (output dataset id, id(columnLineage facet)) -> what is stored of it
        self.lineages: BoundedLRU[LineageSeen] = BoundedLRU(max_lineages, share["lineages"])
        # job id -> its newest ended runs (change alerts' history)
        self.histories: BoundedLRU[JobHistory] = BoundedLRU(max_histories, share["histories"])
        # column-lineage shape digest -> its id (shapes are never deleted)
        self.shapes: BoundedLRU[int] = BoundedLRU(max_shapes, share["shapes"])

    @property
    def size(self) -> int:
        """The estimated bytes its maps hold together (at most ``max_bytes``)."""
        maps = (
            self.field_ids,
            self.edges,
            self.facets,
            self.lineages,
            self.histories,
            self.shapes,
        )
        return sum(m.size for m in maps)

    def learn(self, update: CacheUpdate) -> None:
        """Take in what a committed write stored."""
        for field_key, field_id in update.field_ids.items():
            self.field_ids.put(field_key, field_id, FIELD_ID_BYTES + len(field_key[1]))
        for edge_key, seen in update.edges.items():
            known = self.edges.get(edge_key)
            self.edges.put(edge_key, seen if known is None else known.widened(seen), EDGE_BYTES)
        for digest, (facets, length) in update.facets.items():
            self.facets.put(digest, facets, facets_size(length))
        for lineage_key, lineage in update.lineages.items():
            known_lineage = self.lineages.get(lineage_key)
            self.lineages.put(
                lineage_key,
                lineage if known_lineage is None else known_lineage.widened(lineage),
                lineage_size(lineage.lineage),
            )
        for job_id, history in update.histories.items():
            if history is None:
                self.histories.pop(job_id)
            else:
                self.histories.put(job_id, history, HISTORY_RUN_BYTES * (1 + len(history.runs)))
        for digest, shape_id in update.shapes.items():
            self.shapes.put(digest, shape_id, SHAPE_BYTES)
