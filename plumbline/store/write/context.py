"""The state one write shares between its steps: the new events, and the ids resolved so far."""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, overload

from plumbline.openlineage import DatasetEvent, JobEvent, ParsedEvent, RunEvent
from plumbline.openlineage.confidence import event_confidence
from plumbline.openlineage.model import Dataset
from plumbline.store.write.cache import CacheUpdate, WriteCache
from plumbline.store.write.conflicts import Conflict

Key = tuple[str, str]  # (namespace, name)
# how an event knows its edges: (edge source, completeness or None when unstated, reasons)
Confidence = tuple[str, str | None, list[str] | None]

# deterministic ids for rows derived from natural keys, so both backends agree
UUID_NAMESPACE = uuid.UUID("6f1b0a52-1c52-4c55-9d6e-1d2f3b4c5d6e")


def derived_uuid(*parts: str) -> str:
    """A stable UUID for a natural key (e.g. a dataset version)."""
    return str(uuid.uuid5(UUID_NAMESPACE, "\x00".join(parts)))


@overload
def as_utc(value: datetime) -> datetime: ...
@overload
def as_utc(value: None) -> None: ...
@overload
def as_utc(value: datetime | None) -> datetime | None: ...
def as_utc(value: datetime | None) -> datetime | None:
    """Aware UTC datetimes everywhere (SQLite hands back naive ones, which are UTC)."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


@dataclass
class Appearance:
    """One dataset as one event mentions it."""

    event: ParsedEvent
    dataset: Dataset
    raw: dict[str, Any]  # the dataset's JSON as sent
    role: str  # 'input' | 'output' | 'static'

    @functools.cached_property
    def key(self) -> Key:
        return (self.dataset.namespace, self.dataset.name)

    @property
    def time(self) -> datetime:
        return self.event.event_time


@dataclass(slots=True)
class DatasetState:
    """A dataset's row as this write loaded it, changed in place by the steps and written back
    (:func:`plumbline.store.write.datasets.update_datasets`) when ``changed``."""

    id: int
    key: Key  # the dataset's own (namespace, name): an alias resolves to it
    source_id: int | None
    description: str | None
    current_version_id: int | None
    current_version_at: datetime | None  # when the current version was made
    current_schema_version_id: int | None
    schema_fingerprint: str | None  # of the current schema
    last_modified_at: datetime | None
    stable_id: str | None
    facets_digest: str | None  # as stored
    facet_times: dict[str, str]
    # None: not loaded (no facets sent), so the stored ones stay as they are. The cached
    # documents are shared: facets are replaced (merge_facets_at), never changed in place
    facets: dict[str, Any] | None
    locked: bool  # loaded with its row lock: only such a dataset may be changed
    changed: bool = False
    facets_changed: bool = False


@dataclass(slots=True)
class JobState:
    """A job's row as this write loaded it (locked), changed in place and written back
    (:func:`plumbline.store.write.jobs.update_jobs`) when ``changed``."""

    id: int
    type: str
    description: str | None
    location: str | None
    facets: dict[str, Any]
    facet_times: dict[str, str]
    parent_job_id: int | None
    parent_job_at: datetime | None
    current_version_id: int | None
    current_version_at: datetime | None
    latest_run_uuid: str | None
    latest_run_at: datetime | None
    changed: bool = False
    # latest_run_uuid as loaded, before this write (whether another writer wrote the job since
    # this writer last did: see JobHistory)
    stored_latest_run: str | None = None
    # type as loaded (what a dataset step before apply_job_facets reads as "the stored type")
    stored_type: str | None = None
    # (job id, version hash) of the version this write makes current, until its id is known
    pending_version: tuple[int, str] | None = None


@dataclass(slots=True)
class RunState:
    """A run's row as this write loaded (locked) or created it, changed in place and written
    back (:func:`plumbline.store.write.runs.update_runs`) when the events touch it."""

    id: int
    uuid: str
    job_id: int
    job_version_id: int | None = None
    parent_run_uuid: str | None = None
    current_state: str | None = None
    nominal_start_time: datetime | None = None
    nominal_end_time: datetime | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    error_message: str | None = None
    error_stack: str | None = None
    error_language: str | None = None
    last_event_at: datetime | None = None
    # run facets and the job facets its events sent, each with their event times
    # (see plumbline.store.write.facets)
    facets: dict[str, Any] = field(default_factory=dict)
    facet_times: dict[str, str] = field(default_factory=dict)
    job_facets: dict[str, Any] = field(default_factory=dict)
    job_facet_times: dict[str, str] = field(default_factory=dict)


@dataclass
class Batch:
    """New (not yet stored) events of one request, in event-time order, and what they resolve to."""

    now: datetime
    events: list[ParsedEvent]
    appearances: list[Appearance] = field(default_factory=list)
    namespace_ids: dict[str, int] = field(default_factory=dict)
    hidden_namespaces: set[str] = field(default_factory=set)  # found soft-deleted
    source_ids: dict[str, int] = field(default_factory=dict)
    dataset_ids: dict[Key, int] = field(default_factory=dict)
    dataset_state: dict[int, DatasetState] = field(default_factory=dict)
    job_ids: dict[Key, int] = field(default_factory=dict)
    job_state: dict[int, JobState] = field(default_factory=dict)
    run_ids: dict[str, int] = field(default_factory=dict)
    run_state: dict[int, RunState] = field(default_factory=dict)
    # each new run's row as this write inserted it (its state from the write's events):
    # update_runs writes a new run again only when its state came out otherwise
    inserted_runs: dict[int, RunState] = field(default_factory=dict)
    # runs this write created (nothing of theirs is stored yet)
    created_runs: set[int] = field(default_factory=set)
    # appearance index -> schema_versions.id of the schema it carries
    schema_ids: dict[int, int] = field(default_factory=dict)
    # input appearances whose schema facet is only what their run read (of a written dataset)
    read_schemas: set[int] = field(default_factory=set)
    # appearance index -> dataset_versions.id
    version_ids: dict[int, int] = field(default_factory=dict)
    # input appearance index -> where its version came from ('datasetVersion' | 'catalog'); an
    # input without one reads the version as of its event time (plumbline.store.write.input_versions)
    version_sources: dict[int, str] = field(default_factory=dict)
    # run_io keys first seen in this write: (run_id, dataset_id, direction)
    new_io: set[tuple[int, int, str]] = field(default_factory=set)
    # every run_io row, as this write leaves it, of the runs whose events here name datasets:
    # run id -> (dataset id, direction) -> row count (what change alerts read of them)
    run_io: dict[int, dict[tuple[int, str], int | None]] = field(default_factory=dict)
    # (run uuid, dataset id, version id): what runs completing in this write wrote before
    stored_outputs: list[tuple[str, int, int]] = field(default_factory=list)
    # runs whose state this write changes (written back at the end)
    touched_runs: set[int] = field(default_factory=set)
    # runs this write ended (a new COMPLETE, FAIL or ABORT transition): what alerts look at
    ended_runs: set[int] = field(default_factory=set)
    # (dataset id, schema version id before, schema version id now, run uuid or None): current
    # schemas this write replaced (a first schema is not a change)
    schema_changes: list[tuple[int, int, int, str | None]] = field(default_factory=list)
    # conflicts resolved by a rule, reported once the write has committed (see .conflicts)
    conflicts: list[Conflict] = field(default_factory=list)
    # what the writer knows the store holds, and what this write teaches it once committed
    cache: WriteCache = field(default_factory=WriteCache)
    learned: CacheUpdate = field(default_factory=CacheUpdate)
    # id(parsed event) -> its Confidence, worked out once per event
    confidences: dict[int, Confidence] = field(default_factory=dict)

    @classmethod
    def of(cls, events: list[ParsedEvent], cache: WriteCache | None = None) -> Batch:
        ordered = sorted(events, key=lambda parsed: parsed.event_time)
        batch = cls(now=datetime.now(UTC), events=ordered, cache=cache or WriteCache())
        batch.appearances = list(_appearances(ordered))
        return batch

    def confidence(self, parsed: ParsedEvent) -> Confidence:
        """How the event knows its edges (``plumbline.openlineage.confidence``)."""
        found = self.confidences.get(id(parsed))
        if found is None:
            run = parsed.raw.get("run")
            facets = run.get("facets") if isinstance(run, dict) else None
            producer = parsed.raw.get("producer")
            found = event_confidence(producer if isinstance(producer, str) else "", facets)
            self.confidences[id(parsed)] = found
        return found

    def run_events(self) -> list[ParsedEvent]:
        return [parsed for parsed in self.events if isinstance(parsed.event, RunEvent)]

    def job_key(self, parsed: ParsedEvent) -> Key | None:
        event = parsed.event
        if isinstance(event, RunEvent | JobEvent):
            return (event.job.namespace, event.job.name)
        return None


def _appearances(events: list[ParsedEvent]) -> list[Appearance]:
    found: list[Appearance] = []
    for parsed in events:
        event, raw = parsed.event, parsed.raw
        if isinstance(event, DatasetEvent):
            found.append(Appearance(parsed, event.dataset, raw["dataset"], "static"))
            continue
        for role, models in (("input", event.inputs), ("output", event.outputs)):
            raws = raw.get(f"{role}s") or []
            for model, raw_dataset in zip(models or [], raws, strict=False):
                found.append(Appearance(parsed, model, raw_dataset, role))
    return found
