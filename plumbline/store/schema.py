"""The store's schema (SQLAlchemy Core), shared by SQLite and PostgreSQL.

Design rules (see DESIGN.md "The store"):
- lineage edges (job<->dataset, field<->field, field->dataset) are upserted once per distinct edge with
  first/last seen and a counter; they never grow with runs or versions;
- per-run facts (runs, run states, run inputs/outputs, dataset versions, raw events) grow with use and
  can be pruned;
- every table the recursive graph walk touches is indexed on both ends of its edges.

Migrations live in ``plumbline/store/migrations``; changing this module needs a new Alembic revision.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

# 64-bit ids on PostgreSQL; SQLite needs plain INTEGER for its rowid autoincrement.
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
# JSON documents: JSONB on PostgreSQL, JSON text on SQLite.
Json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
RawJson = sa.JSON().with_variant(postgresql.JSON(), "postgresql")
Timestamp = sa.DateTime(timezone=True)
Uuid = sa.String(36)


def _id() -> sa.Column[int]:
    return sa.Column("id", BigId, primary_key=True, autoincrement=True)


def _fk(
    name: str, target: str, *, nullable: bool = False, ondelete: str = "CASCADE"
) -> sa.Column[int]:
    return sa.Column(name, BigId, sa.ForeignKey(target, ondelete=ondelete), nullable=nullable)


namespaces = sa.Table(
    "namespaces",
    metadata,
    _id(),
    sa.Column("name", sa.String(1024), nullable=False, unique=True),
    sa.Column("owner_name", sa.String(255), nullable=True),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("is_hidden", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("updated_at", Timestamp, nullable=False),
)

sources = sa.Table(
    "sources",
    metadata,
    _id(),
    sa.Column("name", sa.String(1024), nullable=False, unique=True),
    sa.Column("type", sa.String(64), nullable=False, server_default="POSTGRESQL"),
    sa.Column("connection_url", sa.Text, nullable=True),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("updated_at", Timestamp, nullable=False),
)

datasets = sa.Table(
    "datasets",
    metadata,
    _id(),
    sa.Column("uuid", Uuid, nullable=False, unique=True),
    _fk("namespace_id", "namespaces.id"),
    _fk("source_id", "sources.id", nullable=True, ondelete="SET NULL"),
    sa.Column("name", sa.String(2048), nullable=False),
    sa.Column("physical_name", sa.String(2048), nullable=False),
    sa.Column("type", sa.String(32), nullable=False, server_default="DB_TABLE"),
    sa.Column("description", sa.Text, nullable=True),
    # the latest value of every dataset facet seen for this dataset, merged by facet name
    sa.Column("facets", Json, nullable=True),
    # sha256 of ``facets`` as stored (NULL: not known), so writers can skip reading them back
    sa.Column("facets_digest", sa.String(64), nullable=True),
    # {facet name: event time} of each facet kept, so that late older events change nothing (a
    # name without facet: deleted then); NULL or a missing name: older than any event
    sa.Column("facet_times", Json, nullable=True),
    sa.Column("current_version_id", BigId, nullable=True),
    sa.Column("current_schema_version_id", BigId, nullable=True),
    # set by catalog enrichment: the catalog's stable identity (e.g. an Iceberg table UUID)
    sa.Column("stable_id", sa.String(255), nullable=True),
    sa.Column("last_modified_at", Timestamp, nullable=True),
    sa.Column("is_hidden", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("updated_at", Timestamp, nullable=False),
    sa.UniqueConstraint("namespace_id", "name"),
    sa.Index(None, "stable_id"),
)

# Other identifiers of the same dataset (the `symlinks` facet): an event that names a dataset by an
# alias lands on the one dataset the alias belongs to.
dataset_symlinks = sa.Table(
    "dataset_symlinks",
    metadata,
    _id(),
    _fk("dataset_id", "datasets.id"),
    sa.Column("namespace", sa.String(1024), nullable=False),
    sa.Column("name", sa.String(2048), nullable=False),
    sa.Column("type", sa.String(64), nullable=True),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.UniqueConstraint("namespace", "name"),
    sa.Index(None, "dataset_id"),
)

# Fields of a dataset (those a schema named: ``in_schema``); the nodes of column lineage.
dataset_fields = sa.Table(
    "dataset_fields",
    metadata,
    _id(),
    _fk("dataset_id", "datasets.id"),
    sa.Column("name", sa.String(1024), nullable=False),
    sa.Column("type", sa.String(255), nullable=True),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("updated_at", Timestamp, nullable=False),
    # a schema facet named it; False: known only from column lineage (an edge's end, not listed)
    sa.Column("in_schema", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.UniqueConstraint("dataset_id", "name"),
)

# Distinct schemas a dataset has had (schema history); versions point at one.
schema_versions = sa.Table(
    "schema_versions",
    metadata,
    _id(),
    _fk("dataset_id", "datasets.id"),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("fields", Json, nullable=False),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.UniqueConstraint("dataset_id", "fingerprint"),
)

dataset_versions = sa.Table(
    "dataset_versions",
    metadata,
    _id(),
    sa.Column("uuid", Uuid, nullable=False, unique=True),
    _fk("dataset_id", "datasets.id"),
    # the `version` facet's datasetVersion when present, otherwise the producing run's id
    sa.Column("version", sa.String(255), nullable=False),
    sa.Column("run_uuid", Uuid, nullable=True),
    _fk("schema_version_id", "schema_versions.id", nullable=True, ondelete="SET NULL"),
    sa.Column("lifecycle_state", sa.String(32), nullable=True),
    sa.Column("facets", Json, nullable=True),
    sa.Column("facet_times", Json, nullable=True),  # as datasets.facet_times (migration 0008)
    sa.Column("created_at", Timestamp, nullable=False),
    sa.UniqueConstraint("dataset_id", "version"),
    sa.Index(None, "run_uuid"),
    # a dataset's version as of a time: newest first, ties by id, read in index order (the scan
    # stops at the first version that counts instead of sorting the dataset's whole history)
    sa.Index(None, "dataset_id", "created_at", "id"),
)

jobs = sa.Table(
    "jobs",
    metadata,
    _id(),
    sa.Column("uuid", Uuid, nullable=False, unique=True),
    _fk("namespace_id", "namespaces.id"),
    sa.Column("name", sa.String(2048), nullable=False),
    sa.Column("type", sa.String(32), nullable=False, server_default="BATCH"),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("location", sa.Text, nullable=True),
    # the latest value of every job facet seen, merged by facet name
    sa.Column("facets", Json, nullable=True),
    sa.Column("facet_times", Json, nullable=True),  # as datasets.facet_times
    sa.Column("parent_job_id", BigId, nullable=True),
    sa.Column("current_version_id", BigId, nullable=True),
    sa.Column("latest_run_uuid", Uuid, nullable=True),
    # event times of the events that made the three above (NULL: unknown, older than any)
    sa.Column("parent_job_at", Timestamp, nullable=True),
    sa.Column("latest_run_at", Timestamp, nullable=True),
    sa.Column("current_version_at", Timestamp, nullable=True),
    sa.Column("is_hidden", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("updated_at", Timestamp, nullable=False),
    sa.UniqueConstraint("namespace_id", "name"),
)

# A job version is a distinct (location, inputs, outputs) shape of a job, as in Marquez.
job_versions = sa.Table(
    "job_versions",
    metadata,
    _id(),
    sa.Column("uuid", Uuid, nullable=False, unique=True),
    _fk("job_id", "jobs.id"),
    sa.Column("version", sa.String(64), nullable=False),
    sa.Column("location", sa.Text, nullable=True),
    sa.Column("inputs", Json, nullable=True),
    sa.Column("outputs", Json, nullable=True),
    sa.Column("latest_run_uuid", Uuid, nullable=True),
    sa.Column("latest_run_at", Timestamp, nullable=True),  # its run event's time (as jobs')
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("updated_at", Timestamp, nullable=False),
    sa.UniqueConstraint("job_id", "version"),
)

runs = sa.Table(
    "runs",
    metadata,
    _id(),
    sa.Column("uuid", Uuid, nullable=False, unique=True),
    _fk("job_id", "jobs.id"),
    _fk("job_version_id", "job_versions.id", nullable=True, ondelete="SET NULL"),
    sa.Column("parent_run_uuid", Uuid, nullable=True),
    # the state of the latest transition by event time (order-tolerant: a late RUNNING never
    # overwrites COMPLETE)
    sa.Column("current_state", sa.String(16), nullable=True),
    sa.Column("nominal_start_time", Timestamp, nullable=True),
    sa.Column("nominal_end_time", Timestamp, nullable=True),
    sa.Column("started_at", Timestamp, nullable=True),
    sa.Column("ended_at", Timestamp, nullable=True),
    sa.Column("error_message", sa.Text, nullable=True),
    sa.Column("error_stack", sa.Text, nullable=True),
    sa.Column("error_language", sa.String(64), nullable=True),
    # run facets merged by facet name; job facets as seen by this run
    sa.Column("facets", Json, nullable=True),
    sa.Column("job_facets", Json, nullable=True),
    # their event times by facet name, as datasets.facet_times
    sa.Column("facet_times", Json, nullable=True),
    sa.Column("job_facet_times", Json, nullable=True),
    # the event time of the run's newest event (NULL: known only from a child's ``parent`` facet):
    # what orders a job's runs (``latestRun``, ``latestRuns``), as jobs.latest_run_uuid
    sa.Column("last_event_at", Timestamp, nullable=True),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("updated_at", Timestamp, nullable=False),
    sa.Index(None, "job_id", "created_at"),
    sa.Index(None, "job_id", "last_event_at"),
    sa.Index(None, "parent_run_uuid"),
)

# What ``db prune`` removed of a run: enough to answer "which run, pruned when" where a question
# needs history that is gone (the run that wrote a version, the run a diff would compare with).
pruned_runs = sa.Table(
    "pruned_runs",
    metadata,
    sa.Column("run_uuid", Uuid, primary_key=True),
    _fk("job_id", "jobs.id"),
    sa.Column("state", sa.String(16), nullable=True),
    sa.Column("started_at", Timestamp, nullable=True),
    sa.Column("ended_at", Timestamp, nullable=True),
    sa.Column("pruned_at", Timestamp, nullable=False),
    sa.Index(None, "job_id", "ended_at"),
)

run_states = sa.Table(
    "run_states",
    metadata,
    _id(),
    _fk("run_id", "runs.id"),
    sa.Column("state", sa.String(16), nullable=False),
    sa.Column("transitioned_at", Timestamp, nullable=False),
    # reported by a weaker source (plumbline_extraction): never overrides another's terminal state
    sa.Column("weaker", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.UniqueConstraint("run_id", "state", "transitioned_at"),
)

# What each run read and wrote, with the version it touched and the input/output facets
# (statistics included). One row per (run, dataset, direction).
run_io = sa.Table(
    "run_io",
    metadata,
    _id(),
    _fk("run_id", "runs.id"),
    _fk("dataset_id", "datasets.id"),
    _fk("dataset_version_id", "dataset_versions.id", nullable=True, ondelete="SET NULL"),
    sa.Column("direction", sa.String(6), nullable=False),  # 'input' | 'output'
    sa.Column("facets", Json, nullable=True),  # inputFacets / outputFacets
    sa.Column("facet_times", Json, nullable=True),  # as datasets.facet_times
    sa.Column("row_count", sa.BigInteger, nullable=True),
    sa.Column("byte_count", sa.BigInteger, nullable=True),
    sa.Column("file_count", sa.BigInteger, nullable=True),
    # the event time of the statistics above (NULL: unknown, older than any)
    sa.Column("statistics_at", Timestamp, nullable=True),
    # inputs: the earliest event time the run names this input at (when it read it), and where
    # dataset_version_id came from: 'datasetVersion' (the input's `version` facet, e.g. an Iceberg
    # snapshot id or a Delta version), 'catalog' (catalog enrichment's snapshot id) or 'eventTime'
    # (the dataset's version as of read_at: the newest version made by then, by a run that
    # completed); NULL: linked before migration 0010 and not rebuilt (no raw events left)
    sa.Column("read_at", Timestamp, nullable=True),
    sa.Column("version_source", sa.String(16), nullable=True),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.UniqueConstraint("run_id", "dataset_id", "direction"),
    sa.Index(None, "dataset_id", "direction", "read_at"),
    sa.Index(None, "dataset_version_id"),
)

# Job <-> dataset lineage edges: one row per distinct edge, whatever the number of runs.
job_dataset_edges = sa.Table(
    "job_dataset_edges",
    metadata,
    _fk("job_id", "jobs.id"),
    _fk("dataset_id", "datasets.id"),
    sa.Column(
        "direction", sa.String(6), nullable=False
    ),  # 'input' (dataset->job) | 'output' (job->dataset)
    sa.Column("first_seen", Timestamp, nullable=False),
    sa.Column("last_seen", Timestamp, nullable=False),
    sa.Column("run_count", sa.BigInteger, nullable=False, server_default="1"),
    # how the edge is known (issue 31 §2): the latest reporter and the completeness it stated
    sa.Column("edge_source", sa.String(64), nullable=True),
    sa.Column("completeness", sa.String(16), nullable=True),
    sa.Column("completeness_reasons", Json, nullable=True),
    sa.PrimaryKeyConstraint("job_id", "dataset_id", "direction"),
    sa.Index(None, "dataset_id", "direction", "job_id"),
)

# Field -> field lineage edges (columnLineage `fields`), one row per distinct edge.
column_lineage_edges = sa.Table(
    "column_lineage_edges",
    metadata,
    _id(),
    _fk("output_field_id", "dataset_fields.id"),
    _fk("input_field_id", "dataset_fields.id"),
    sa.Column("transformation_type", sa.String(16), nullable=False, server_default=""),
    sa.Column("transformation_subtype", sa.String(32), nullable=False, server_default=""),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("masking", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("first_seen", Timestamp, nullable=False),
    sa.Column("last_seen", Timestamp, nullable=False),  # to the hour
    # how the edge is known (issue 31 §2): the latest reporter and the completeness it stated
    sa.Column("edge_source", sa.String(64), nullable=True),
    sa.Column("completeness", sa.String(16), nullable=True),
    sa.Column("completeness_reasons", Json, nullable=True),
    sa.UniqueConstraint(
        "output_field_id", "input_field_id", "transformation_type", "transformation_subtype"
    ),
    sa.Index(None, "input_field_id"),
)

# Input fields that shape a whole output dataset (columnLineage `dataset`: joins, filters, grouping,
# sorting), one row per distinct edge.
column_dataset_edges = sa.Table(
    "column_dataset_edges",
    metadata,
    _id(),
    _fk("output_dataset_id", "datasets.id"),
    _fk("input_field_id", "dataset_fields.id"),
    sa.Column("transformation_type", sa.String(16), nullable=False, server_default=""),
    sa.Column("transformation_subtype", sa.String(32), nullable=False, server_default=""),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("masking", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("first_seen", Timestamp, nullable=False),
    sa.Column("last_seen", Timestamp, nullable=False),  # to the hour
    # how the edge is known (issue 31 §2): the latest reporter and the completeness it stated
    sa.Column("edge_source", sa.String(64), nullable=True),
    sa.Column("completeness", sa.String(16), nullable=True),
    sa.Column("completeness_reasons", Json, nullable=True),
    sa.UniqueConstraint(
        "output_dataset_id", "input_field_id", "transformation_type", "transformation_subtype"
    ),
    sa.Index(None, "input_field_id"),
)

# Change alerts (issue 19): each stored once (``dedupe_key``: sha256 of kind, subject and what makes
# this occurrence distinct), with the run that caused it and its blast radius computed at detection
# (NULL until computed, right after the write that detected it commits).
alerts = sa.Table(
    "alerts",
    metadata,
    _id(),
    sa.Column("kind", sa.String(32), nullable=False),
    sa.Column("namespace", sa.String(1024), nullable=False),  # the subject's namespace
    sa.Column("subject", sa.Text, nullable=False),  # a Marquez node id
    sa.Column("dedupe_key", sa.String(64), nullable=False, unique=True),
    sa.Column("run_uuid", Uuid, nullable=True),
    sa.Column("seen_at", Timestamp, nullable=False),
    sa.Column("details", Json, nullable=False),
    sa.Column("blast_radius", Json, nullable=True),
    sa.Column("acknowledged_at", Timestamp, nullable=True),
    sa.Column("acknowledged_by", sa.String(255), nullable=True),
    # listed newest first by id (ids grow as alerts are found): each filter walks its index
    sa.Index(None, "seen_at"),
    sa.Index(None, "kind", "id"),
    sa.Index(None, "namespace", "id"),
)

# Raw events as received (kept for replay, the events API and forwarding; prunable).
lineage_events = sa.Table(
    "lineage_events",
    metadata,
    _id(),
    sa.Column("kind", sa.String(16), nullable=False),  # 'RunEvent' | 'DatasetEvent' | 'JobEvent'
    sa.Column("event_type", sa.String(16), nullable=True),
    sa.Column("event_time", Timestamp, nullable=False),
    sa.Column("run_uuid", Uuid, nullable=True),
    sa.Column("job_namespace", sa.String(1024), nullable=True),
    sa.Column("job_name", sa.String(2048), nullable=True),
    sa.Column("producer", sa.Text, nullable=True),
    # sha256 of the canonical JSON: makes re-posting the same event a no-op
    sa.Column("digest", sa.String(64), nullable=False, unique=True),
    # the event's canonical JSON as text (``json`` on PostgreSQL: checked and kept, not parsed
    # into a tree; migration 0007)
    sa.Column("payload", RawJson, nullable=False),
    sa.Column("token_name", sa.String(255), nullable=True),  # who wrote it (auth)
    sa.Column("received_at", Timestamp, nullable=False),
    sa.Index(None, "event_time"),
    sa.Index(None, "run_uuid"),
    sa.Index(None, "received_at"),
)

# Raw events stored but not yet normalized into the lineage tables: the ingestion endpoint answers
# once an event is here (durably, in the same transaction as its raw row), and a background
# normalizer moves it into the lineage tables, deleting its row in the same transaction. An event
# that could not be normalized keeps its row with ``failed_at`` and ``error`` set. ``event_id`` is
# a ``lineage_events.id`` without a foreign key: checking it locked the big raw row of every new
# event (a row lock is a write to its page); prune deletes a failed event's row with the event.
pending_events = sa.Table(
    "pending_events",
    metadata,
    sa.Column("event_id", BigId, primary_key=True, autoincrement=False),
    sa.Column("received_at", Timestamp, nullable=False),
    sa.Column("failed_at", Timestamp, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
)

tags = sa.Table(
    "tags",
    metadata,
    _id(),
    sa.Column("name", sa.String(255), nullable=False, unique=True),
    sa.Column("description", sa.Text, nullable=True),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("updated_at", Timestamp, nullable=False),
)

dataset_tags = sa.Table(
    "dataset_tags",
    metadata,
    _fk("dataset_id", "datasets.id"),
    _fk("tag_id", "tags.id"),
    sa.Column("tagged_at", Timestamp, nullable=False),
    # the value a producer's ``tags`` facet gave (``key``/``value``); NULL: none
    sa.Column("tag_value", sa.String(255), nullable=True),
    sa.PrimaryKeyConstraint("dataset_id", "tag_id"),
)

dataset_field_tags = sa.Table(
    "dataset_field_tags",
    metadata,
    _fk("field_id", "dataset_fields.id"),
    _fk("tag_id", "tags.id"),
    sa.Column("tagged_at", Timestamp, nullable=False),
    # the value a producer's ``tags`` facet gave (``key``/``value``); NULL: none
    sa.Column("tag_value", sa.String(255), nullable=True),
    sa.PrimaryKeyConstraint("field_id", "tag_id"),
)

# Classifications (issue 32 §1): every (column, tag) that carries a classification, declared (a
# field tag, a producer's ``tags`` facet, a config rule) or propagated downstream along column
# edges, linked to the column it came from (a path is read by following the links).
column_classifications = sa.Table(
    "column_classifications",
    metadata,
    _fk("field_id", "dataset_fields.id"),
    _fk("tag_id", "tags.id"),
    sa.Column("tag_value", sa.String(255), nullable=False, server_default=""),
    sa.Column("origin", sa.String(10), nullable=False),  # 'declared' | 'propagated'
    sa.Column("declared_by", sa.String(32), nullable=False),  # 'tag' | 'rule' (of the origin)
    sa.Column("origin_field_id", BigId, nullable=False),
    # the column it came from (NULL: declared here), that edge's transformation, hops from origin
    sa.Column("via_field_id", BigId, nullable=True),
    sa.Column("via_type", sa.String(16), nullable=False, server_default=""),
    sa.Column("via_subtype", sa.String(32), nullable=False, server_default=""),
    sa.Column("hops", sa.Integer, nullable=False, server_default="0"),
    sa.Column("updated_at", Timestamp, nullable=False),
    sa.PrimaryKeyConstraint("field_id", "tag_id"),
    sa.Index(None, "tag_id", "origin"),
)

# Columns a user declassified for a tag (hashed, aggregated): propagation stops there.
field_declassifications = sa.Table(
    "field_declassifications",
    metadata,
    _fk("field_id", "dataset_fields.id"),
    _fk("tag_id", "tags.id"),
    sa.Column("declassified_by", sa.String(255), nullable=False),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("declassified_at", Timestamp, nullable=False),
    sa.PrimaryKeyConstraint("field_id", "tag_id"),
)

job_tags = sa.Table(
    "job_tags",
    metadata,
    _fk("job_id", "jobs.id"),
    _fk("tag_id", "tags.id"),
    sa.Column("tagged_at", Timestamp, nullable=False),
    sa.PrimaryKeyConstraint("job_id", "tag_id"),
)

# Bearer tokens (stored hashed) for central auth.
api_tokens = sa.Table(
    "api_tokens",
    metadata,
    _id(),
    sa.Column("name", sa.String(255), nullable=False, unique=True),
    sa.Column("token_hash", sa.String(128), nullable=False, unique=True),
    sa.Column("scope", sa.String(16), nullable=False),  # 'read' | 'write' | 'admin'
    sa.Column("namespaces", Json, nullable=True),  # null = every namespace
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("last_used_at", Timestamp, nullable=True),
    sa.Column("revoked_at", Timestamp, nullable=True),
)

# Durable pass-through: one row per (accepted event, forward target), written in the same
# transaction as the event. Holds its own copy of the body so that `--store off` needs no other table.
outbox = sa.Table(
    "outbox",
    metadata,
    _id(),
    sa.Column("target", sa.String(2048), nullable=False),
    sa.Column("run_uuid", Uuid, nullable=True),
    sa.Column(
        "body", sa.LargeBinary, nullable=False
    ),  # the event exactly as received (uncompressed)
    sa.Column("status", sa.String(16), nullable=False),  # 'pending' | 'delivered' | 'dead'
    sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("next_attempt_at", Timestamp, nullable=False),
    sa.Column("last_error", sa.Text, nullable=True),
    sa.Column("created_at", Timestamp, nullable=False),
    sa.Column("delivered_at", Timestamp, nullable=True),
    sa.Index(None, "target", "status", "next_attempt_at"),
    sa.Index(None, "run_uuid"),
)

# Column-lineage history (migrations 0012, 0018): which run carried which column edge, stored per
# distinct *shape* (the set of column edges one run carried, named by a digest of its sorted
# edges) that runs reference, so that the history grows with distinct shapes and runs, not with
# runs x column edges. ``output_field_id`` 0: the input field shapes the whole output dataset (a
# ``column_dataset_edges`` edge). The ``plumbline_column_lineage`` view joins a run to its
# shape's edges: one row per run and edge, as before 0018. Shapes are kept when their runs are
# pruned (like the edge tables, they grow with distinct lineage, not with use).
column_lineage_shapes = sa.Table(
    "column_lineage_shapes",
    metadata,
    _id(),
    sa.Column("digest", sa.String(64), nullable=False, unique=True),  # sha256 of the edges
    sa.Column("edge_count", sa.Integer, nullable=False),
    sa.Column("created_at", Timestamp, nullable=False),
)

column_lineage_shape_edges = sa.Table(
    "column_lineage_shape_edges",
    metadata,
    _fk("shape_id", "column_lineage_shapes.id"),
    _fk("output_dataset_id", "datasets.id"),
    sa.Column("output_field_id", BigId, nullable=False),
    _fk("input_field_id", "dataset_fields.id"),
    sa.Column("transformation_type", sa.String(16), nullable=False),
    sa.Column("transformation_subtype", sa.String(32), nullable=False),
    sa.PrimaryKeyConstraint(
        "shape_id",
        "output_dataset_id",
        "output_field_id",
        "input_field_id",
        "transformation_type",
        "transformation_subtype",
    ),
    sa.Index(None, "input_field_id"),
)

# the shape of each run that carried column lineage (deleted with its run)
run_column_shapes = sa.Table(
    "run_column_shapes",
    metadata,
    sa.Column("run_id", BigId, sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    _fk("shape_id", "column_lineage_shapes.id"),
    sa.Index(None, "shape_id"),
)


def _folded() -> list[sa.Column[object]]:
    """What ``db prune`` keeps of an edge's pruned history: when, how often, last by which run."""
    return [
        sa.Column("first_seen", Timestamp, nullable=False),
        sa.Column("last_seen", Timestamp, nullable=False),
        sa.Column("run_count", sa.BigInteger, nullable=False),
        sa.Column("last_run_uuid", Uuid, nullable=False),
        sa.Column("last_run_state", sa.String(16), nullable=True),
        sa.Column("last_run_at", Timestamp, nullable=False),
    ]


# The table-lineage history of pruned runs, folded per distinct (source, target, job) edge
# (dataset id 0: none), so that the edge views keep every edge for good.
pruned_table_lineage = sa.Table(
    "pruned_table_lineage",
    metadata,
    sa.Column("source_dataset_id", BigId, nullable=False),
    sa.Column("target_dataset_id", BigId, nullable=False),
    _fk("job_id", "jobs.id"),
    *_folded(),
    sa.PrimaryKeyConstraint("source_dataset_id", "target_dataset_id", "job_id"),
)

# The column-lineage history of pruned runs, folded per distinct edge and job.
pruned_column_lineage = sa.Table(
    "pruned_column_lineage",
    metadata,
    _fk("job_id", "jobs.id"),
    sa.Column("output_dataset_id", BigId, nullable=False),
    sa.Column("output_field_id", BigId, nullable=False),
    sa.Column("input_field_id", BigId, nullable=False),
    sa.Column("transformation_type", sa.String(16), nullable=False),
    sa.Column("transformation_subtype", sa.String(32), nullable=False),
    *_folded(),
    sa.PrimaryKeyConstraint(
        "job_id",
        "output_dataset_id",
        "output_field_id",
        "input_field_id",
        "transformation_type",
        "transformation_subtype",
    ),
)

# The micro-batches of streaming runs (the ``streamBatches`` run facet): one row per run and batch
# id, kept by its own retention (``recorded_at``, ``db prune``'s batch rule).
stream_batches = sa.Table(
    "stream_batches",
    metadata,
    _id(),
    _fk("run_id", "runs.id"),
    sa.Column("batch_id", sa.BigInteger, nullable=False),
    sa.Column("batch_time", Timestamp, nullable=True),
    sa.Column("num_input_rows", sa.BigInteger, nullable=True),
    sa.Column("duration_ms", sa.BigInteger, nullable=True),
    sa.Column("offsets_backward", sa.Boolean, nullable=False),
    sa.Column("recorded_at", Timestamp, nullable=False),
    sa.UniqueConstraint("run_id", "batch_id"),
    sa.Index(None, "batch_time"),
)

# What a micro-batch read and wrote: one row per source (per topic partition for Kafka) and per
# sink, in the facet's order (``seq``). Sources: ``role`` 'source', ``source_index`` its place in
# the batch's sources, offsets (Kafka), versions read (Delta/Iceberg/Paimon), files added (file
# sources), failOnDataLoss as the query set it; sinks: ``role`` 'sink', ``end_version`` the version
# the batch committed.
stream_batch_parts = sa.Table(
    "stream_batch_parts",
    metadata,
    _fk("stream_batch_id", "stream_batches.id"),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("role", sa.String(6), nullable=False),  # 'source' | 'sink'
    sa.Column("source_index", sa.Integer, nullable=False),
    sa.Column("namespace", sa.String(1024), nullable=True),
    sa.Column("name", sa.String(2048), nullable=True),
    sa.Column("description", sa.String(500), nullable=True),
    sa.Column("kafka_partition", sa.Integer, nullable=True),
    sa.Column("start_offset", sa.BigInteger, nullable=True),
    sa.Column("end_offset", sa.BigInteger, nullable=True),
    sa.Column("start_version", sa.String(255), nullable=True),
    sa.Column("end_version", sa.String(255), nullable=True),
    sa.Column("files_added", sa.BigInteger, nullable=True),
    sa.Column("offsets_backward", sa.Boolean, nullable=False),
    sa.Column("fail_on_data_loss", sa.String(16), nullable=True),
    sa.PrimaryKeyConstraint("stream_batch_id", "seq"),
    sa.Index(None, "namespace", "name"),
)
