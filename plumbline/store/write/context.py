"""The state one write shares between its steps: the new events, and the ids resolved so far."""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from plumbline.openlineage import DatasetEvent, JobEvent, ParsedEvent, RunEvent
from plumbline.openlineage.model import Dataset
from plumbline.store.write.cache import CacheUpdate, WriteCache
from plumbline.store.write.conflicts import Conflict

Key = tuple[str, str]  # (namespace, name)

# deterministic ids for rows derived from natural keys, so both backends agree
UUID_NAMESPACE = uuid.UUID("6f1b0a52-1c52-4c55-9d6e-1d2f3b4c5d6e")


def derived_uuid(*parts: str) -> str:
    """A stable UUID for a natural key (e.g. a dataset version)."""
    return str(uuid.uuid5(UUID_NAMESPACE, "\x00".join(parts)))


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
    dataset_state: dict[int, dict[str, Any]] = field(default_factory=dict)
    job_ids: dict[Key, int] = field(default_factory=dict)
    job_state: dict[int, dict[str, Any]] = field(default_factory=dict)
    run_ids: dict[str, int] = field(default_factory=dict)
    run_state: dict[int, dict[str, Any]] = field(default_factory=dict)
    # appearance index -> schema_versions.id of the schema it carries
    schema_ids: dict[int, int] = field(default_factory=dict)
    # appearance index -> dataset_versions.id
    version_ids: dict[int, int] = field(default_factory=dict)
    # input appearance index -> where its version came from ('datasetVersion' | 'catalog'); an
    # input without one reads the version as of its event time (plumbline.store.write.input_versions)
    version_sources: dict[int, str] = field(default_factory=dict)
    # run_io keys first seen in this write: (run_id, dataset_id, direction)
    new_io: set[tuple[int, int, str]] = field(default_factory=set)
    # runs whose state this write changes (written back at the end)
    touched_runs: set[int] = field(default_factory=set)
    # conflicts resolved by a rule, reported once the write has committed (see .conflicts)
    conflicts: list[Conflict] = field(default_factory=list)
    # what the writer knows the store holds, and what this write teaches it once committed
    cache: WriteCache = field(default_factory=WriteCache)
    learned: CacheUpdate = field(default_factory=CacheUpdate)

    @classmethod
    def of(cls, events: list[ParsedEvent], cache: WriteCache | None = None) -> Batch:
        ordered = sorted(events, key=lambda parsed: parsed.event_time)
        batch = cls(now=datetime.now(UTC), events=ordered, cache=cache or WriteCache())
        batch.appearances = list(_appearances(ordered))
        return batch

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
