"""Datasets: identity (names and symlink aliases), facets, schema history, fields and versions."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.openlineage import RunEvent, event_digest
from plumbline.openlineage.canonical import canonical_json
from plumbline.store.schema import (
    dataset_fields,
    dataset_symlinks,
    dataset_versions,
    datasets,
    namespaces,
    run_io,
    runs,
    schema_versions,
)
from plumbline.store.write import driver
from plumbline.store.write.context import (
    Appearance,
    Batch,
    DatasetState,
    Key,
    as_utc,
    derived_uuid,
)
from plumbline.store.write.facets import merge_facets_at, time_key
from plumbline.store.write.namespaces import source_of
from plumbline.store.write.runs import is_weaker
from plumbline.store.write.upsert import (
    execute_many,
    insert_ignore,
    insert_returning,
    is_sqlite_connection,
    key_arrays,
    keyed_by_arrays,
    select_in,
    sqlite_key_filters,
    update_many,
)


def lineage_refs(batch: Batch) -> set[Key]:
    """Datasets named only inside column lineage (input fields of an output's columns)."""
    refs: set[Key] = set()
    for appearance in batch.appearances:
        facets = appearance.dataset.facets
        lineage = facets.column_lineage if facets is not None else None
        if lineage is None or lineage.deleted:
            continue
        refs.update(lineage.dataset_names)
    return refs


def _symlinks(appearance: Appearance) -> list[tuple[str, str, str]]:
    facets = appearance.dataset.facets
    symlinks = facets.symlinks if facets is not None else None
    if symlinks is None or symlinks.deleted:
        return []
    return [(i.namespace, i.name, i.type) for i in symlinks.identifiers or []]


# the facet catalog enrichment puts on a catalog table (see plumbline.server.catalog); the store
# reads it here rather than importing the server
IDENTITY_FACET = "plumbline_catalogTable"
# the producer of the facets catalog enrichment fills in (its `version` facet: a snapshot id)
CATALOG_PRODUCER_SUFFIX = "/plumbline/server/catalog"


def version_source(raw_dataset: dict[str, Any]) -> str:
    """Where an input's ``version`` facet came from: ``catalog`` when catalog enrichment filled
    it in, else ``datasetVersion`` (the producer sent it: an Iceberg snapshot, a Delta version)."""
    facet = (raw_dataset.get("facets") or {}).get("version")
    producer = facet.get("_producer") if isinstance(facet, dict) else None
    from_catalog = isinstance(producer, str) and producer.endswith(CATALOG_PRODUCER_SUFFIX)
    return "catalog" if from_catalog else "datasetVersion"


def stable_id(raw_dataset: dict[str, Any]) -> str | None:
    """The catalog identity of a dataset as sent (``catalog:tableUuid``), else None."""
    facets = raw_dataset.get("facets")
    facet = facets.get(IDENTITY_FACET) if isinstance(facets, dict) else None
    if not isinstance(facet, dict) or not facet.get("tableUuid"):
        return None
    return f"{facet.get('catalog')}:{facet['tableUuid']}"[:255]


# statements built once: the write path compiles each statement object once (select_in)
_BY_STABLE_ID = sa.select(datasets.c.stable_id, datasets.c.id).order_by(datasets.c.id)
_NAMES = sa.select(namespaces.c.name.label("ns"), datasets.c.name, datasets.c.id).join(
    namespaces, datasets.c.namespace_id == namespaces.c.id
)
_STORED_FACETS = sa.select(datasets.c.id, datasets.c.facets, datasets.c.facets_digest)
_SCHEMA_IDS = sa.select(
    schema_versions.c.dataset_id, schema_versions.c.fingerprint, schema_versions.c.id
)
_VERSION_FACETS = sa.select(
    dataset_versions.c.dataset_id,
    dataset_versions.c.version,
    dataset_versions.c.facets,
    dataset_versions.c.facet_times,
)


# PostgreSQL: the datasets of some names and those the names are aliases of, in one statement
_BY_NAME_AND_ALIAS = sa.union_all(
    keyed_by_arrays(
        sa.select(sa.literal_column("'n'").label("kind"), namespaces.c.name, datasets.c.name)
        .add_columns(datasets.c.id)
        .join(namespaces, datasets.c.namespace_id == namespaces.c.id),
        [namespaces.c.name, datasets.c.name],
    ),
    keyed_by_arrays(
        sa.select(
            sa.literal_column("'a'"),
            dataset_symlinks.c.namespace,
            dataset_symlinks.c.name,
            dataset_symlinks.c.dataset_id,
        ),
        [dataset_symlinks.c.namespace, dataset_symlinks.c.name],
    ),
)


def _by_stable_id(connection: Connection, ids: set[str]) -> dict[str, int]:
    rows = select_in(connection, _BY_STABLE_ID, [datasets.c.stable_id], ids)
    return {row.stable_id: row.id for row in rows}  # the newest dataset wins a (rare) tie


def _by_name(connection: Connection, keys: set[Key]) -> dict[Key, int]:
    rows = select_in(connection, _NAMES, [namespaces.c.name, datasets.c.name], keys)
    return {(row.ns, row.name): row.id for row in rows}


def _by_name_and_alias(
    connection: Connection, keys: set[Key]
) -> tuple[dict[Key, int], dict[Key, int]]:
    """The datasets of these names, and those these names are aliases of (one statement)."""
    by_name_columns = [namespaces.c.name, datasets.c.name]
    by_alias_columns = [dataset_symlinks.c.namespace, dataset_symlinks.c.name]
    by_name: dict[Key, int] = {}
    by_alias: dict[Key, int] = {}
    if not keys:
        return by_name, by_alias
    if not is_sqlite_connection(connection):
        params = key_arrays(keys, 2)
        sql = driver.compiled(connection, _BY_NAME_AND_ALIAS)
        for kind, ns, name, dataset_id in driver.fetch(connection, sql, params):
            (by_name if kind == "n" else by_alias)[(ns, name)] = dataset_id
        return by_name, by_alias
    for name_filter, alias_filter in zip(
        sqlite_key_filters(by_name_columns, keys, share=2),
        sqlite_key_filters(by_alias_columns, keys, share=2),
        strict=True,
    ):
        statement = sa.union_all(
            sa.select(sa.literal("n").label("kind"), *by_name_columns, datasets.c.id)
            .join(namespaces, datasets.c.namespace_id == namespaces.c.id)
            .where(name_filter),
            sa.select(sa.literal("a"), *by_alias_columns, dataset_symlinks.c.dataset_id).where(
                alias_filter
            ),
        )
        for kind, ns, name, dataset_id in connection.execute(statement):
            (by_name if kind == "n" else by_alias)[(ns, name)] = dataset_id
    return by_name, by_alias


@dataclass
class DatasetPlan:
    """What the read-only lookups found: resolved names, names to create, aliases to register."""

    resolved: dict[Key, int] = field(default_factory=dict)
    missing: list[Key] = field(default_factory=list)
    by_name: dict[Key, int] = field(default_factory=dict)
    via_symlink: set[Key] = field(default_factory=set)
    symlinks_of: dict[Key, list[tuple[str, str, str]]] = field(default_factory=dict)
    # names no dataset has yet, but that another dataset of the same request declares as an alias
    alias_of: dict[Key, Key] = field(default_factory=dict)
    # catalog identity per name, as the (enriched) events give it
    stable_ids: dict[Key, str] = field(default_factory=dict)
    # dataset id -> its new name: unknown names whose catalog identity is an existing dataset's
    renamed: dict[int, Key] = field(default_factory=dict)

    def sources(self, batch: Batch) -> dict[str, str]:
        """Sources to make sure of: every ``dataSource`` facet, and new datasets' namespaces."""
        wanted = {ns: ns for ns, _ in self.missing}
        for appearance in batch.appearances:
            if _data_source(appearance) is not None:
                name, url = source_of(appearance)
                wanted[name] = url
        return wanted


def _data_source(appearance: Appearance) -> Any:
    facets = appearance.dataset.facets
    data_source = facets.data_source if facets is not None else None
    return data_source if data_source is not None and not data_source.deleted else None


def plan_datasets(connection: Connection, batch: Batch, extra_refs: set[Key]) -> DatasetPlan:
    """Find the dataset of every name the events use, without writing (nor locking) anything.

    A name resolves to the dataset of that name, else to the dataset it is an alias of, else
    (through the ``symlinks`` the event gives) to a dataset one of its aliases names; the rest
    are to be created.
    """
    plan = DatasetPlan()
    for appearance in batch.appearances:
        plan.symlinks_of.setdefault(appearance.key, []).extend(_symlinks(appearance))
        identity = stable_id(appearance.raw)
        if identity is not None:
            plan.stable_ids[appearance.key] = identity  # appearances are in event-time order
    keys = {a.key for a in batch.appearances} | extra_refs
    candidates = keys | {(ns, name) for links in plan.symlinks_of.values() for ns, name, _ in links}
    plan.by_name, by_alias = _by_name_and_alias(connection, candidates)
    for key in sorted(keys):
        found = plan.by_name.get(key) or by_alias.get(key)
        if found is None:
            for ns, name, _type in plan.symlinks_of.get(key, []):
                found = plan.by_name.get((ns, name)) or by_alias.get((ns, name))
                if found is not None:
                    plan.via_symlink.add(key)
                    break
        if found is not None:
            plan.resolved[key] = found
    _resolve_renames(connection, plan, keys)
    missing = keys - plan.resolved.keys()
    first_seen = list(dict.fromkeys(a.key for a in batch.appearances)) + sorted(extra_refs)
    plan.alias_of = _aliases_among_new(plan, [key for key in first_seen if key in missing])
    plan.missing = sorted(missing - plan.alias_of.keys())
    return plan


def _aliases_among_new(plan: DatasetPlan, new: list[Key]) -> dict[Key, Key]:
    """Among the names no dataset has yet (``new``, in the order the events first use them),
    those that name the dataset of an earlier one, through symlinks either way: alias -> that
    earlier name. The same datasets as writing the events one by one would make: the first
    name is the dataset's, a later one with a symlink to it resolves to it (and is registered
    as its alias), and the names an earlier one's symlinks give are its aliases."""
    alias_of: dict[Key, Key] = {}
    primaries: set[Key] = set()
    unknown = set(new)
    for key in new:
        if key in alias_of:
            continue
        links = [(ns, name) for ns, name, _type in plan.symlinks_of.get(key, [])]
        earlier = next((link for link in links if link in primaries and link != key), None)
        if earlier is not None:
            alias_of[key] = earlier
            plan.via_symlink.add(key)
            continue
        primaries.add(key)
        for link in links:
            if link != key and link in unknown and link not in primaries:
                alias_of.setdefault(link, key)
    return alias_of


def _resolve_renames(connection: Connection, plan: DatasetPlan, keys: set[Key]) -> None:
    """Unknown names carrying the catalog identity of an existing dataset are that dataset,
    renamed: it takes the (latest) new name, and its old name stays behind as an alias."""
    unknown = {
        key: plan.stable_ids[key]
        for key in keys
        if key not in plan.resolved and key in plan.stable_ids
    }
    if not unknown:
        return
    existing = _by_stable_id(connection, set(unknown.values()))
    for key in sorted(unknown):
        dataset_id = existing.get(unknown[key])
        if dataset_id is not None:
            plan.resolved[key] = dataset_id
            plan.renamed[dataset_id] = key


def _rename(connection: Connection, batch: Batch, plan: DatasetPlan) -> None:
    """Give renamed datasets their new name; keep each old name as an alias of the dataset."""
    if not plan.renamed:
        return
    old = {
        row.id: (row.ns, row.name)
        for row in select_in(connection, _NAMES, [datasets.c.id], plan.renamed)
    }
    connection.execute(
        datasets.update()
        .where(datasets.c.id == sa.bindparam("b_id"))
        .values(
            namespace_id=sa.bindparam("b_namespace_id"),
            name=sa.bindparam("b_name"),
            physical_name=sa.bindparam("b_name"),
            updated_at=sa.bindparam("b_now"),
        ),
        [
            {
                "b_id": dataset_id,
                "b_namespace_id": batch.namespace_ids[key[0]],
                "b_name": key[1],
                "b_now": batch.now,
            }
            for dataset_id, key in sorted(plan.renamed.items())
        ],
    )
    insert_ignore(
        connection,
        dataset_symlinks,
        [
            {
                "dataset_id": dataset_id,
                "namespace": key[0],
                "name": key[1],
                "type": None,
                "created_at": batch.now,
            }
            for dataset_id, key in sorted(old.items())
        ],
    )
    for dataset_id, key in plan.renamed.items():
        plan.by_name.pop(old[dataset_id], None)
        plan.by_name[key] = dataset_id


def create_datasets(connection: Connection, batch: Batch, plan: DatasetPlan) -> None:
    """Create the missing datasets, register aliases (never stealing another dataset's name),
    then lock the dataset rows (PostgreSQL) in id order and load their state."""
    resolved = dict(plan.resolved)
    _rename(connection, batch, plan)
    if plan.missing:
        source_names: dict[Key, str] = {}
        for appearance in batch.appearances:
            if _data_source(appearance) is not None:
                source_names[appearance.key] = source_of(appearance)[0]
        insert_ignore(
            connection,
            datasets,
            [
                {
                    "uuid": str(uuid.uuid4()),
                    "namespace_id": batch.namespace_ids[ns],
                    "source_id": batch.source_ids[source_names.get((ns, name), ns)],
                    "name": name,
                    "physical_name": name,
                    "stable_id": plan.stable_ids.get((ns, name)),
                    "created_at": batch.now,
                    "updated_at": batch.now,
                }
                for ns, name in plan.missing
            ],
        )
        created = _by_name(connection, set(plan.missing))
        resolved.update(created)
        plan.by_name.update(created)
    for alias, primary in plan.alias_of.items():
        resolved[alias] = resolved[primary]
    batch.dataset_ids.update(resolved)

    aliases: dict[Key, dict[str, Any]] = {}
    for key in sorted(plan.via_symlink):
        aliases[key] = {
            "dataset_id": resolved[key],
            "namespace": key[0],
            "name": key[1],
            "type": None,
        }
    for key, links in plan.symlinks_of.items():
        target = resolved[key]
        for ns, name, link_type in links:
            if (ns, name) == key or (ns, name) in plan.by_name:
                continue  # a dataset's own name is no alias, and another's is never stolen
            aliases.setdefault(
                (ns, name), {"dataset_id": target, "namespace": ns, "name": name, "type": link_type}
            )
    insert_ignore(
        connection,
        dataset_symlinks,
        [{**aliases[key], "created_at": batch.now} for key in sorted(aliases)],
    )
    _load_state(connection, batch)


def _changing_datasets(batch: Batch) -> set[int]:
    """The datasets this write may change: those written (outputs, dataset events) or sent with
    facets. A dataset only read, named without facets, keeps its row as it is."""
    return {
        batch.dataset_ids[a.key]
        for a in batch.appearances
        if a.role != "input" or a.raw.get("facets")
    }


def _state_query(lock: bool) -> sa.Select[Any]:
    current_version = dataset_versions.alias("current_version")
    current_run = runs.alias("current_run")
    statement = (
        sa.select(
            datasets.c.id,
            namespaces.c.name.label("namespace"),
            datasets.c.name,
            datasets.c.source_id,
            datasets.c.description,
            datasets.c.current_version_id,
            datasets.c.current_schema_version_id,
            datasets.c.last_modified_at,
            datasets.c.is_hidden,
            datasets.c.stable_id,
            datasets.c.facets_digest,
            datasets.c.facet_times,
            schema_versions.c.fingerprint.label("schema_fingerprint"),
            # when the current version became current: its run's end, else its first event
            sa.func.coalesce(current_run.c.ended_at, current_version.c.created_at).label(
                "current_version_at"
            ),
        )
        .join(namespaces, datasets.c.namespace_id == namespaces.c.id)
        .outerjoin(schema_versions, datasets.c.current_schema_version_id == schema_versions.c.id)
        .outerjoin(current_version, datasets.c.current_version_id == current_version.c.id)
        .outerjoin(current_run, current_run.c.uuid == current_version.c.run_uuid)
        .order_by(datasets.c.id)
    )
    return statement.with_for_update(of=datasets, key_share=True) if lock else statement


_LOCKED_STATE, _READ_STATE = _state_query(lock=True), _state_query(lock=False)


def _load_state(connection: Connection, batch: Batch) -> None:
    """Load the state of every dataset the events name. Those the write may change are locked
    (PostgreSQL: ``FOR UPDATE``, in id order); those only read are not, so that writes sharing
    input datasets run side by side. A soft-deleted dataset comes back, so it is locked too."""
    stored_outputs = {dataset_id for _, dataset_id, _ in batch.stored_outputs}
    ids = set(batch.dataset_ids.values()) | stored_outputs
    changing = _changing_datasets(batch) | stored_outputs
    read = {
        row.id: row for row in select_in(connection, _READ_STATE, [datasets.c.id], ids - changing)
    }
    hidden = {dataset_id for dataset_id, row in read.items() if row.is_hidden}
    rows = [row for dataset_id, row in read.items() if dataset_id not in hidden]
    rows += select_in(connection, _LOCKED_STATE, [datasets.c.id], changing | hidden)
    # facets only for the datasets the events send facets for (they can be large), and only
    # when the writer's cache does not hold them already (by their digest); their times (small,
    # and not covered by the digest) always, from the row
    with_facets = {batch.dataset_ids[a.key] for a in batch.appearances if a.raw.get("facets")}
    known = batch.cache.facets
    unknown: set[int] = set()
    for row in rows:
        # facets None: not loaded (no facets sent), so the stored ones stay as they are
        facets = None
        if row.id in with_facets:
            facets = known.get(row.facets_digest) if row.facets_digest else None
            if facets is None:
                unknown.add(row.id)
        batch.dataset_state[row.id] = DatasetState(
            id=row.id,
            key=(row.namespace, row.name),
            source_id=row.source_id,
            description=row.description,
            current_version_id=row.current_version_id,
            current_version_at=as_utc(row.current_version_at),
            current_schema_version_id=row.current_schema_version_id,
            schema_fingerprint=row.schema_fingerprint,
            last_modified_at=as_utc(row.last_modified_at),
            stable_id=row.stable_id,
            facets_digest=row.facets_digest,
            facet_times=dict(row.facet_times or {}),
            facets=facets,
            locked=row.id in changing or row.id in hidden,
            # a soft-deleted dataset that events mention again comes back, as in Marquez
            changed=bool(row.is_hidden),
        )
    if unknown:
        for row in select_in(connection, _STORED_FACETS, [datasets.c.id], unknown):
            batch.dataset_state[row.id].facets = facets = dict(row.facets or {})
            if row.facets_digest:
                length = len(canonical_json(facets))
                batch.learned.facets[row.facets_digest] = (facets, length)


def _flatten(fields: list[Any], prefix: str = "") -> list[tuple[str, str | None, str | None]]:
    flat: list[tuple[str, str | None, str | None]] = []
    for item in fields:
        name = f"{prefix}{item.name}"
        flat.append((name, item.type, item.description))
        if item.fields:
            flat.extend(_flatten(item.fields, f"{name}."))
    return flat


def write_schemas(connection: Connection, batch: Batch) -> None:
    """Schema history (``schema_versions`` by fingerprint) and the current fields of each dataset.

    Only a write makes a dataset's schema: an input's ``schema`` facet is what a run read (a
    reader's declared schema, kept in its event) and changes nothing of a dataset a run has
    written. A dataset no run writes (an external file only ever read) shows the schema its
    latest read declared; a read never raises ``schema-drift``, nor does the first write that
    replaces what readers declared.
    """
    prints = {
        index: _fingerprint(appearance.raw["facets"]["schema"]["fields"])
        for index, appearance in enumerate(batch.appearances)
        if _sent_schema(appearance) is not None
    }
    written_before, written = _written_datasets(connection, batch, prints)
    sent = _schemas_sent(batch, prints, written)
    if not sent.fields:
        return
    ids = _schema_version_ids(connection, batch, sent.fields)
    batch.schema_ids.update({index: ids[key] for index, key in sent.carried.items()})
    _write_fields(connection, _new_current_fields(batch, sent.latest, ids, written_before))


SchemaKey = tuple[int, str]  # (dataset id, fingerprint)


@dataclass
class _SchemasSent:
    """The schema facets the events carry."""

    fields: dict[SchemaKey, list[Any]] = field(default_factory=dict)  # the fields as sent
    carried: dict[int, SchemaKey] = field(default_factory=dict)  # appearance index -> its schema
    latest: dict[int, tuple[Appearance, str]] = field(default_factory=dict)  # dataset -> current


def _sent_schema(appearance: Appearance) -> Any:
    """The schema facet an appearance carries (None when none, deleted or without fields)."""
    facets = appearance.dataset.facets
    schema = facets.schema_ if facets is not None else None
    if schema is None or schema.deleted or schema.fields is None:
        return None
    return schema


_WRITTEN = sa.select(dataset_versions.c.dataset_id).where(dataset_versions.c.run_uuid.is_not(None))


def _written_datasets(
    connection: Connection, batch: Batch, prints: dict[int, str]
) -> tuple[set[int], set[int]]:
    """Of the datasets whose schema this write could change, those a run wrote before this
    write, and those a run has written (before, or an output here).

    Asked only of datasets sent a schema other than their current one (a change is rare)."""
    candidates: set[int] = set()
    outputs: set[int] = set()
    for index, appearance in enumerate(batch.appearances):
        dataset_id = batch.dataset_ids[appearance.key]
        if appearance.role == "output" and isinstance(appearance.event.event, RunEvent):
            outputs.add(dataset_id)
        fingerprint = prints.get(index)
        if (
            fingerprint is not None
            and fingerprint != batch.dataset_state[dataset_id].schema_fingerprint
        ):
            candidates.add(dataset_id)
    before: set[int] = set()
    if candidates:
        rows = select_in(connection, _WRITTEN, [dataset_versions.c.dataset_id], sorted(candidates))
        before = {row.dataset_id for row in rows}
    return before, before | outputs


def _schemas_sent(batch: Batch, prints: dict[int, str], written: set[int]) -> _SchemasSent:
    """Each appearance's schema, and per dataset the one that becomes current (a read's only
    for a dataset no run writes)."""
    sent = _SchemasSent()
    for index, fingerprint in prints.items():
        appearance = batch.appearances[index]
        dataset_id = batch.dataset_ids[appearance.key]
        if appearance.role == "input" and dataset_id in written:
            batch.read_schemas.add(index)  # what the run read: kept in its event, no more
            continue
        raw_fields = appearance.raw["facets"]["schema"]["fields"]
        key = (dataset_id, fingerprint)
        sent.fields[key] = raw_fields
        sent.carried[index] = key
        # the current schema is the one of the schema facet kept: an older event's is history
        kept_at = batch.dataset_state[dataset_id].facet_times.get("schema")
        if kept_at is None or time_key(appearance.time) >= kept_at:
            sent.latest[dataset_id] = (appearance, key[1])
    return sent


def _schema_version_ids(
    connection: Connection, batch: Batch, fields: dict[SchemaKey, list[Any]]
) -> dict[SchemaKey, int]:
    """The ``schema_versions`` id of each schema sent, inserting those new to the store."""
    # the usual case, a dataset's current schema sent again, needs no statement at all
    ids = {
        (dataset_id, state.schema_fingerprint): state.current_schema_version_id
        for dataset_id, state in batch.dataset_state.items()
        if state.schema_fingerprint is not None and state.current_schema_version_id is not None
    }
    new = sorted(key for key in fields if key not in ids)
    if new:
        insert_ignore(
            connection,
            schema_versions,
            [
                {
                    "dataset_id": ds,
                    "fingerprint": fp,
                    "fields": fields[(ds, fp)],
                    "created_at": batch.now,
                }
                for ds, fp in new
            ],
        )
        columns = [schema_versions.c.dataset_id, schema_versions.c.fingerprint]
        ids.update(
            {
                (row.dataset_id, row.fingerprint): row.id
                for row in select_in(connection, _SCHEMA_IDS, columns, new)
            }
        )
    return ids


def _new_current_fields(
    batch: Batch,
    latest: dict[int, tuple[Appearance, str]],
    ids: dict[SchemaKey, int],
    written_before: set[int],
) -> list[dict[str, Any]]:
    """Make each dataset's latest schema current; the field rows of those that changed.

    A change is schema drift when a write or a static declaration makes it, except a first
    write replacing what only readers declared (a dataset no run had written)."""
    field_rows = []
    for dataset_id, (appearance, fingerprint) in sorted(latest.items(), key=lambda i: i[0]):
        schema_version_id = ids[(dataset_id, fingerprint)]
        state = batch.dataset_state[dataset_id]
        if state.current_schema_version_id == schema_version_id:
            continue  # its fields were written when this schema became current
        drift = appearance.role == "static" or (
            appearance.role == "output" and dataset_id in written_before
        )
        if state.current_schema_version_id is not None and drift:
            batch.schema_changes.append(
                (
                    dataset_id,
                    state.current_schema_version_id,
                    schema_version_id,
                    appearance.event.run_id,
                )
            )
        state.current_schema_version_id = schema_version_id
        state.schema_fingerprint = fingerprint
        state.changed = True
        assert (
            appearance.dataset.facets is not None and appearance.dataset.facets.schema_ is not None
        )
        seen: set[str] = set()
        for name, field_type, description in _flatten(
            appearance.dataset.facets.schema_.fields or []
        ):
            if name in seen:
                continue
            seen.add(name)
            field_rows.append(
                {
                    "dataset_id": dataset_id,
                    "name": name,
                    "type": field_type,
                    "description": description,
                    "in_schema": True,
                    "created_at": batch.now,
                    "updated_at": batch.now,
                }
            )
    return field_rows


def _write_fields(connection: Connection, field_rows: list[dict[str, Any]]) -> None:
    """Upsert ``dataset_fields``: a field's type and description follow its current schema; a
    field known only from column lineage becomes one of the dataset's fields (``in_schema``)."""

    def conflict(statement: Any) -> Any:
        return statement.on_conflict_do_update(
            index_elements=["dataset_id", "name"],
            set_={
                "type": statement.excluded.type,
                "description": statement.excluded.description,
                "in_schema": statement.excluded.in_schema,
                "updated_at": statement.excluded.updated_at,
            },
            where=sa.or_(
                dataset_fields.c.type.is_distinct_from(statement.excluded.type),
                dataset_fields.c.description.is_distinct_from(statement.excluded.description),
                dataset_fields.c.in_schema == sa.false(),  # known from column lineage until now
            ),
        )

    execute_many(connection, dataset_fields, field_rows, conflict)


def _fingerprint(raw_fields: list[Any]) -> str:
    return event_digest(raw_fields)  # sha256 of the canonical JSON


def write_versions(connection: Connection, batch: Batch) -> None:
    """Dataset versions: the ``version`` facet's datasetVersion, else one per run that writes it.

    An input with a ``version`` facet reads that version; one without reads the version as of
    its event time, found once the write is done (:mod:`plumbline.store.write.input_versions`).
    """
    sent = _versions_sent(batch)
    if sent.rows:
        found = _upsert_version_rows(connection, sent)
        for index, key in sent.wanted:
            batch.version_ids[index] = found[key]
    _advance_current_versions(batch)


VersionKey = tuple[int, str]  # (dataset id, version)


@dataclass
class _VersionsSent:
    """The dataset versions the events name, as rows to upsert."""

    rows: dict[VersionKey, dict[str, Any]] = field(default_factory=dict)
    # per version, the facets each appearance sent for it: (event time key, facets)
    facets: dict[VersionKey, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    wanted: list[tuple[int, VersionKey]] = field(default_factory=list)  # appearance index -> key


def _version_of(appearance: Appearance) -> str | None:
    """The version an appearance names: its ``version`` facet's, a run output's run id, or None."""
    facets = appearance.dataset.facets
    version_facet = facets.version if facets is not None else None
    if version_facet is not None and not version_facet.deleted:
        return version_facet.dataset_version
    if appearance.role == "output" and isinstance(appearance.event.event, RunEvent):
        return appearance.event.run_id or ""
    return None


def _versions_sent(batch: Batch) -> _VersionsSent:
    """One row per (dataset, version) the appearances name; inputs note where theirs came from."""
    sent = _VersionsSent()
    for index, appearance in enumerate(batch.appearances):
        version = _version_of(appearance)
        if version is None:
            continue
        facets = appearance.dataset.facets
        is_run_output = appearance.role == "output" and isinstance(appearance.event.event, RunEvent)
        dataset_id = batch.dataset_ids[appearance.key]
        lifecycle = facets.lifecycle_state_change if facets is not None else None
        row = sent.rows.setdefault(
            (dataset_id, version),
            {
                "uuid": derived_uuid("dataset_version", *appearance.key, version),
                "dataset_id": dataset_id,
                "version": version,
                "run_uuid": None,
                "schema_version_id": None,
                "lifecycle_state": None,
                "facets": None,
                "facet_times": None,
                "created_at": as_utc(appearance.time),
            },
        )
        if is_run_output:
            row["run_uuid"] = row["run_uuid"] or appearance.event.run_id
        row["schema_version_id"] = batch.schema_ids.get(
            index, batch.dataset_state[dataset_id].current_schema_version_id
        )
        if lifecycle is not None and not lifecycle.deleted:
            row["lifecycle_state"] = lifecycle.lifecycle_state_change
        version_facets = _version_facets(appearance.raw.get("facets"))
        if version_facets:
            sent.facets.setdefault((dataset_id, version), []).append(
                (time_key(appearance.time), version_facets)
            )
        sent.wanted.append((index, (dataset_id, version)))
        if appearance.role == "input":
            batch.version_sources[index] = version_source(appearance.raw)
    return sent


def _upsert_version_rows(connection: Connection, sent: _VersionsSent) -> dict[VersionKey, int]:
    """Merge each version's facets into the stored ones and upsert the rows; their ids."""
    existing = _existing_version_facets(connection, list(sent.rows))
    for key, row in sent.rows.items():
        # by event time, as a dataset's facets: a late, older event changes nothing
        merged, times = existing.get(key, ({}, {}))
        for time, version_facets in sent.facets.get(key, []):
            merged, times, _taken = merge_facets_at(merged, times, version_facets, time)
        row["facets"], row["facet_times"] = merged or None, times or None
    upserted = insert_returning(
        connection,
        dataset_versions,
        [sent.rows[key] for key in sorted(sent.rows)],
        _upsert_versions,
    )
    return {(row.dataset_id, row.version): row.id for row in upserted}


def _advance_current_versions(batch: Batch) -> None:
    """Move each dataset's current version (and last modification) to the newest it was given.

    A run's output becomes current when the run completes (its final state, by event time, is
    COMPLETE: as in Marquez), a streaming job's as soon as it is seen; the output of a run that
    failed, was aborted or has not finished is a version in the history, never current. Among
    completed runs, the one that completed last is current.
    """
    completions = _completions(batch)
    for index, appearance in enumerate(batch.appearances):
        dataset_id = batch.dataset_ids[appearance.key]
        state = batch.dataset_state[dataset_id]
        if appearance.role == "output" and index in batch.version_ids:
            event = appearance.event.event
            moved_at = completions.get(appearance.event.run_id or "")
            if isinstance(event, RunEvent) and _streaming(batch, event):
                moved_at = appearance.time
            if moved_at is not None:
                _make_current(state, batch.version_ids[index], moved_at)
            if isinstance(event, RunEvent) and event.event_type == "COMPLETE":
                last = state.last_modified_at
                if last is None or appearance.time > last:
                    state.last_modified_at = as_utc(appearance.time)
                    state.changed = True
        elif index in batch.version_ids:
            # an input or static dataset with a `version` facet: the first version we know of
            if state.current_version_id is None:
                state.current_version_id = batch.version_ids[index]
                state.changed = True
    # what completing runs wrote in earlier events (a COMPLETE may name no outputs)
    for run_uuid, dataset_id, version_id in batch.stored_outputs:
        moved_at = completions.get(run_uuid)
        if moved_at is not None:
            _make_current(batch.dataset_state[dataset_id], version_id, moved_at)


def _make_current(state: DatasetState, version_id: int, moved_at: datetime) -> None:
    """Make ``version_id`` the dataset's current version unless a later one already is."""
    current_at = state.current_version_at
    if current_at is None or moved_at >= current_at:
        if state.current_version_id != version_id or current_at != moved_at:
            state.changed = True
        state.current_version_id = version_id
        state.current_version_at = as_utc(moved_at)


_RANK = {"COMPLETE": 0, "ABORT": 1, "FAIL": 2}  # ties at one instant: as runs.summarize


def _completions(batch: Batch) -> dict[str, datetime]:
    """Runs of the batch whose final state (stored and new transitions together) is COMPLETE,
    with the time they completed."""
    final: dict[str, tuple[datetime, int, str]] = {}
    for run in batch.run_state.values():
        if run.current_state in _RANK and run.ended_at is not None:
            final[run.uuid] = (run.ended_at, _RANK[run.current_state], run.current_state)
    for parsed in batch.run_events():
        event = parsed.event
        assert isinstance(event, RunEvent)
        if event.event_type in _RANK and parsed.run_id is not None:
            if parsed.run_id in final and is_weaker(parsed.raw):
                continue  # a weaker source never overrides a stored end (runs.write_run_states)
            time = as_utc(parsed.event_time) or parsed.event_time
            candidate = (time, _RANK[event.event_type], event.event_type)
            known = final.get(parsed.run_id)
            final[parsed.run_id] = candidate if known is None else max(known, candidate)
    return {run: time for run, (time, _, state) in final.items() if state == "COMPLETE"}


def _streaming(batch: Batch, event: RunEvent) -> bool:
    """Whether the event's job is a streaming job (its own jobType facet, else the stored type)."""
    facets = event.job.facets
    job_type = facets.job_type if facets is not None else None
    if job_type is not None and not job_type.deleted and job_type.processing_type:
        return job_type.processing_type.upper() in ("STREAMING", "STREAM")
    job_id = batch.job_ids.get((event.job.namespace, event.job.name))
    return job_id is not None and batch.job_state[job_id].stored_type == "STREAM"


_STORED_OUTPUTS = (
    sa.select(runs.c.uuid, run_io.c.dataset_id, run_io.c.dataset_version_id)
    .join(run_io, run_io.c.run_id == runs.c.id)
    .join(datasets, datasets.c.id == run_io.c.dataset_id)
    .where(
        run_io.c.direction == "output",
        run_io.c.dataset_version_id.is_not(None),
        datasets.c.is_hidden == sa.false(),
    )
    .order_by(runs.c.uuid, run_io.c.dataset_id)
)


def find_stored_outputs(connection: Connection, batch: Batch) -> None:
    """The versions that runs completing in this batch wrote in earlier writes, so that they
    become current (their datasets are then locked with the others)."""
    completing = {
        parsed.run_id
        for parsed in batch.run_events()
        if parsed.run_id is not None and getattr(parsed.event, "event_type", None) == "COMPLETE"
    }
    if completing:
        batch.stored_outputs = [
            (row.uuid, row.dataset_id, row.dataset_version_id)
            for row in select_in(connection, _STORED_OUTPUTS, [runs.c.uuid], completing)
        ]


def _upsert_versions(statement: Any) -> Any:
    excluded = statement.excluded
    statement = statement.on_conflict_do_update(
        index_elements=["dataset_id", "version"],
        set_={
            "run_uuid": sa.func.coalesce(dataset_versions.c.run_uuid, excluded.run_uuid),
            "schema_version_id": sa.func.coalesce(
                excluded.schema_version_id, dataset_versions.c.schema_version_id
            ),
            "lifecycle_state": sa.func.coalesce(
                excluded.lifecycle_state, dataset_versions.c.lifecycle_state
            ),
            "facets": excluded.facets,
            "facet_times": excluded.facet_times,
        },
    )
    return statement.returning(
        dataset_versions.c.dataset_id, dataset_versions.c.version, dataset_versions.c.id
    )


# kept elsewhere: the schema in schema_versions, column lineage in the edge tables
_NOT_PER_VERSION = ("schema", "columnLineage")


def _version_facets(facets: dict[str, Any] | None) -> dict[str, Any]:
    """The facets a dataset version keeps (the big ones live in their own tables)."""
    return {k: v for k, v in (facets or {}).items() if k not in _NOT_PER_VERSION}


def _existing_version_facets(
    connection: Connection, keys: list[tuple[int, str]]
) -> dict[tuple[int, str], tuple[dict[str, Any], dict[str, str]]]:
    """The stored versions' facets and their facet times."""
    columns = [dataset_versions.c.dataset_id, dataset_versions.c.version]
    rows = select_in(connection, _VERSION_FACETS, columns, keys)
    return {
        (row.dataset_id, row.version): (dict(row.facets or {}), dict(row.facet_times or {}))
        for row in rows
    }


def update_datasets(connection: Connection, batch: Batch) -> None:
    """Write back each dataset's merged facets, source, description, current version and schema."""
    for index, appearance in enumerate(batch.appearances):
        dataset_id = batch.dataset_ids[appearance.key]
        state = batch.dataset_state[dataset_id]
        sent = appearance.raw.get("facets")
        if sent and index in batch.read_schemas:  # what a run read is not the dataset's schema
            sent = {name: value for name, value in sent.items() if name != "schema"}
        if not sent:
            continue
        # facets from an event older than those kept change nothing, nor do the columns they give
        merged, times, taken = merge_facets_at(
            state.facets, state.facet_times, sent, time_key(appearance.time)
        )
        if times != state.facet_times:
            state.facet_times = times
            state.changed = True
        if merged != state.facets:
            state.facets = merged
            state.changed = state.facets_changed = True
        source_id = (
            batch.source_ids.get(source_of(appearance)[0])
            if "dataSource" in taken and _data_source(appearance)
            else None
        )
        identity = stable_id(appearance.raw) if IDENTITY_FACET in taken else None
        if identity is not None and identity != state.stable_id:
            state.stable_id = identity
            state.changed = True
        if source_id is not None and source_id != state.source_id:
            state.source_id = source_id
            state.changed = True
        facets = appearance.dataset.facets
        documentation = facets.documentation if facets is not None else None
        if documentation is not None and not documentation.deleted and "documentation" in taken:
            if documentation.description != state.description:
                state.description = documentation.description
                state.changed = True
    for state in batch.dataset_state.values():
        if state.facets is not None and state.facets_digest is None:
            state.changed = state.facets_changed = True  # stored without a digest: add it
    # the facets (often large: schema, column lineage) are only sent back when they changed
    for with_facets in (True, False):
        updates = [
            {
                "b_id": dataset_id,
                **(_facets_columns(batch, state) if with_facets else {}),
                "facet_times": state.facet_times or None,  # small: in both updates
                "source_id": state.source_id,
                "description": state.description,
                "current_version_id": state.current_version_id,
                "current_schema_version_id": state.current_schema_version_id,
                "last_modified_at": state.last_modified_at,
                "stable_id": state.stable_id,
                "is_hidden": False,
                "updated_at": batch.now,
            }
            for dataset_id, state in sorted(batch.dataset_state.items())
            if state.changed and state.facets_changed == with_facets
        ]
        unlocked = [row["b_id"] for row in updates if not batch.dataset_state[row["b_id"]].locked]
        if unlocked:  # a change to a row read without its lock could undo another writer's
            raise AssertionError(f"datasets changed without their row lock: {unlocked}")
        if updates:
            update_many(connection, datasets, updates)


def _facets_columns(batch: Batch, state: DatasetState) -> dict[str, Any]:
    """The facets of a dataset to write back, with their digest (which the cache learns)."""
    facets = state.facets or None
    if facets is None:
        return {"facets": None, "facets_digest": None}
    canonical = canonical_json(facets)
    digest = hashlib.sha256(canonical).hexdigest()  # event_digest's, its length kept
    batch.learned.facets[digest] = (facets, len(canonical))
    return {"facets": facets, "facets_digest": digest}
