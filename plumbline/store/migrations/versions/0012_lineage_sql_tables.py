"""lineage as SQL tables (issue 18): the runs of column edges, pruned history kept as edges, and
one view per table, named ``plumbline_<table>``

- ``run_column_lineage``: which run carried which column edge (field -> field, or field -> whole
  output dataset with ``output_field_id`` 0), recorded from now on and rebuilt from the raw events
  still stored by ``plumbline db renormalize``; deleted with its run;
- ``pruned_table_lineage`` / ``pruned_column_lineage``: what ``db prune`` removed of the history,
  folded per distinct edge (first/last seen, run count, last run), so that the edge views keep
  every edge for good (0 stands for "no dataset" / "no field" in their keys);
- the views ``plumbline_table_lineage``, ``plumbline_column_lineage`` (history: one row per run
  that carried an edge), ``plumbline_table_lineage_edges``, ``plumbline_column_lineage_edges``
  (one row per distinct edge), ``plumbline_runs``, ``plumbline_jobs``, ``plumbline_datasets``,
  ``plumbline_dataset_versions``, ``plumbline_snapshot_lineage``, over the helper view
  ``plumbline_dataset_names`` (how a dataset is named: table or path). Their columns are listed
  in ``plumbline/lineage_tables.py`` and documented in docs/reference.md.

The view text is frozen here (a later change is a new revision that replaces the views); only
dates and durations differ by backend.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25 17:00:00
"""

import sqlalchemy as sa
from alembic import op

# ruff: noqa: S608 (the view text is built from this module's constants only, no input)

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

_TIME = sa.DateTime(timezone=True)
_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

VIEWS = (
    "plumbline_snapshot_lineage",
    "plumbline_dataset_versions",
    "plumbline_datasets",
    "plumbline_jobs",
    "plumbline_runs",
    "plumbline_column_lineage_edges",
    "plumbline_table_lineage_edges",
    "plumbline_column_lineage",
    "plumbline_table_lineage",
    "plumbline_dataset_names",
)

_PATH_SCHEMES = (
    "file:%", "hdfs:%", "s3:%", "s3a:%", "s3n:%", "gs:%", "abfs:%", "abfss:%", "wasb:%", "wasbs:%",
    "dbfs:%", "viewfs:%", "oss:%", "cos:%",
)  # fmt: skip


def _sql(dialect: str) -> list[str]:
    sqlite = dialect == "sqlite"

    def date(expr: str) -> str:
        return f"date({expr})" if sqlite else f"CAST(({expr}) AT TIME ZONE 'UTC' AS DATE)"

    def millis(start: str, end: str) -> str:
        if sqlite:
            return f"CAST(ROUND((julianday({end}) - julianday({start})) * 86400000) AS INTEGER)"
        return f"CAST(ROUND(EXTRACT(EPOCH FROM ({end} - {start})) * 1000) AS BIGINT)"

    # computed once per dataset: without the fence, the tables using this view would repeat the
    # symlink look-up and the scheme tests for every column that names a dataset, on every row
    fence = "LIMIT -1" if sqlite else "OFFSET 0"
    is_path = " OR ".join(
        ["n.name = 'file'"] + [f"n.name LIKE '{scheme}'" for scheme in _PATH_SCHEMES]
    )
    run_time = "COALESCE(r.started_at, r.ended_at, r.last_event_at, r.created_at)"
    entity = (
        "'JOB' AS entity_type, j.uuid AS entity_id, jn.name AS entity_namespace,"
        " j.name AS entity_name"
    )
    jobs = "JOIN jobs j ON j.id = r.job_id JOIN namespaces jn ON jn.id = j.namespace_id"
    visible_job = "NOT j.is_hidden AND NOT jn.is_hidden"

    def side(prefix: str, alias: str) -> str:
        return (
            f"{alias}.table_full_name AS {prefix}_table_full_name, {alias}.path AS {prefix}_path,"
            f" {alias}.dataset_type AS {prefix}_type, {alias}.namespace AS {prefix}_namespace,"
            f" {alias}.name AS {prefix}_name"
        )

    # one row per (run, source dataset, target dataset): inputs x outputs, and the inputs of runs
    # that wrote nothing (target NULL), the outputs of runs that read nothing (source NULL)
    table_pairs = """
        SELECT i.run_id, i.dataset_id AS source_id, o.dataset_id AS target_id
          FROM run_io i JOIN run_io o ON o.run_id = i.run_id AND o.direction = 'output'
         WHERE i.direction = 'input'
        UNION ALL
        SELECT i.run_id, i.dataset_id, NULL FROM run_io i
         WHERE i.direction = 'input' AND NOT EXISTS (
               SELECT 1 FROM run_io o WHERE o.run_id = i.run_id AND o.direction = 'output')
        UNION ALL
        SELECT o.run_id, NULL, o.dataset_id FROM run_io o
         WHERE o.direction = 'output' AND NOT EXISTS (
               SELECT 1 FROM run_io i WHERE i.run_id = o.run_id AND i.direction = 'input')
    """
    column_keys = (
        "fi.name AS source_column_name, fo.name AS target_column_name,"
        " NULLIF(h.transformation_type, '') AS transformation_type,"
        " NULLIF(h.transformation_subtype, '') AS transformation_subtype"
    )
    edge_tail = "first_seen, last_seen, run_count, last_run_uuid AS last_run_id, last_run_state"

    def edges(keys: str, live: str, pruned: str) -> str:
        """Per-run rows and pruned folds of ``keys``, one row per distinct key, with its last
        run (the latest ``last_at``, ties to the greatest run id). A GROUP BY, not windows: ~4x
        faster on SQLite, where the last run rides along as the maximum of time|run|state (its
        times are fixed-width text, so they order as text)."""
        if sqlite:
            last = "MAX(last_at || '|' || last_run_uuid || '|' || COALESCE(last_run_state, ''))"
            return f"""
                SELECT {keys}, first_seen, last_seen, run_count,
                       substr(rest, 1, instr(rest, '|') - 1) AS last_run_uuid,
                       NULLIF(substr(rest, instr(rest, '|') + 1), '') AS last_run_state
                  FROM (SELECT {keys}, MIN(first_seen) AS first_seen,
                               MAX(last_seen) AS last_seen,
                               CAST(SUM(run_count) AS BIGINT) AS run_count,
                               substr({last}, 28) AS rest
                          FROM ({live} UNION ALL {pruned}) u GROUP BY {keys}) g
            """
        ordered = "ORDER BY last_at DESC, last_run_uuid DESC"
        return f"""
            SELECT {keys}, MIN(first_seen) AS first_seen, MAX(last_seen) AS last_seen,
                   CAST(SUM(run_count) AS BIGINT) AS run_count,
                   (array_agg(last_run_uuid {ordered}))[1] AS last_run_uuid,
                   (array_agg(last_run_state {ordered}))[1] AS last_run_state
              FROM ({live} UNION ALL {pruned}) u GROUP BY {keys}
        """

    table_edge_keys = "source_id, target_id, job_id"
    table_edges = edges(
        table_edge_keys,
        f"""SELECT p.source_id, p.target_id, r.job_id, {run_time} AS first_seen,
                   {run_time} AS last_seen, 1 AS run_count, r.uuid AS last_run_uuid,
                   r.current_state AS last_run_state, {run_time} AS last_at
              FROM ({table_pairs}) p JOIN runs r ON r.id = p.run_id""",
        """SELECT NULLIF(source_dataset_id, 0), NULLIF(target_dataset_id, 0), job_id, first_seen,
                  last_seen, run_count, last_run_uuid, last_run_state, last_run_at
             FROM pruned_table_lineage""",
    )
    column_edge_keys = (
        "job_id, output_dataset_id, output_field_id, input_field_id, transformation_type,"
        " transformation_subtype"
    )
    column_edges = edges(
        column_edge_keys,
        f"""SELECT r.job_id, h.output_dataset_id, h.output_field_id, h.input_field_id,
                   h.transformation_type, h.transformation_subtype, {run_time} AS first_seen,
                   {run_time} AS last_seen, 1 AS run_count, r.uuid AS last_run_uuid,
                   r.current_state AS last_run_state, {run_time} AS last_at
              FROM run_column_lineage h JOIN runs r ON r.id = h.run_id""",
        f"""SELECT {column_edge_keys}, first_seen, last_seen, run_count, last_run_uuid,
                   last_run_state, last_run_at FROM pruned_column_lineage""",
    )
    return [
        f"""CREATE VIEW plumbline_dataset_names AS
            SELECT t.dataset_id, t.uuid, t.namespace, t.name,
                   COALESCE(t.catalog_name, CASE WHEN t.is_path = 0 THEN t.name END)
                     AS table_full_name,
                   CASE WHEN t.namespace = 'file' THEN t.name
                        WHEN t.is_path = 1 THEN t.namespace
                             || CASE WHEN t.name LIKE '/%' THEN '' ELSE '/' END || t.name
                        END AS path,
                   CASE WHEN t.catalog_name IS NULL AND t.is_path = 1 THEN 'PATH'
                        ELSE 'TABLE' END AS dataset_type
              FROM (SELECT d.id AS dataset_id, d.uuid, n.name AS namespace, d.name,
                           CASE WHEN {is_path} THEN 1 ELSE 0 END AS is_path,
                           (SELECT MIN(sl.name) FROM dataset_symlinks sl
                             WHERE sl.dataset_id = d.id AND sl.type = 'TABLE') AS catalog_name
                      FROM datasets d JOIN namespaces n ON n.id = d.namespace_id
                     WHERE NOT d.is_hidden AND NOT n.is_hidden {fence}) t""",
        f"""CREATE VIEW plumbline_table_lineage AS
            SELECT {side("source", "src")}, {side("target", "tgt")}, {entity},
                   r.uuid AS entity_run_id, r.current_state AS run_state,
                   {run_time} AS event_time, {date(run_time)} AS event_date
              FROM ({table_pairs}) p JOIN runs r ON r.id = p.run_id {jobs}
              LEFT JOIN plumbline_dataset_names src ON src.dataset_id = p.source_id
              LEFT JOIN plumbline_dataset_names tgt ON tgt.dataset_id = p.target_id
             WHERE {visible_job}
               AND (p.source_id IS NULL OR src.dataset_id IS NOT NULL)
               AND (p.target_id IS NULL OR tgt.dataset_id IS NOT NULL)""",
        f"""CREATE VIEW plumbline_column_lineage AS
            SELECT {side("source", "src")}, {side("target", "tgt")}, {entity},
                   r.uuid AS entity_run_id, r.current_state AS run_state,
                   {run_time} AS event_time, {date(run_time)} AS event_date, {column_keys}
              FROM run_column_lineage h JOIN runs r ON r.id = h.run_id {jobs}
              JOIN dataset_fields fi ON fi.id = h.input_field_id
              LEFT JOIN dataset_fields fo ON fo.id = h.output_field_id
              JOIN plumbline_dataset_names src ON src.dataset_id = fi.dataset_id
              JOIN plumbline_dataset_names tgt ON tgt.dataset_id = h.output_dataset_id
             WHERE {visible_job}""",
        f"""CREATE VIEW plumbline_table_lineage_edges AS
            SELECT {side("source", "src")}, {side("target", "tgt")}, {entity},
                   {edge_tail}
              FROM ({table_edges}) e
              JOIN jobs j ON j.id = e.job_id JOIN namespaces jn ON jn.id = j.namespace_id
              LEFT JOIN plumbline_dataset_names src ON src.dataset_id = e.source_id
              LEFT JOIN plumbline_dataset_names tgt ON tgt.dataset_id = e.target_id
             WHERE {visible_job}
               AND (e.source_id IS NULL OR src.dataset_id IS NOT NULL)
               AND (e.target_id IS NULL OR tgt.dataset_id IS NOT NULL)""",
        f"""CREATE VIEW plumbline_column_lineage_edges AS
            SELECT {side("source", "src")}, {side("target", "tgt")}, {entity},
                   {column_keys}, {edge_tail}
              FROM ({column_edges}) h
              JOIN jobs j ON j.id = h.job_id JOIN namespaces jn ON jn.id = j.namespace_id
              JOIN dataset_fields fi ON fi.id = h.input_field_id
              LEFT JOIN dataset_fields fo ON fo.id = h.output_field_id
              JOIN plumbline_dataset_names src ON src.dataset_id = fi.dataset_id
              JOIN plumbline_dataset_names tgt ON tgt.dataset_id = h.output_dataset_id
             WHERE {visible_job}""",
        f"""CREATE VIEW plumbline_runs AS
            SELECT r.uuid AS run_id, j.uuid AS job_id, jn.name AS job_namespace,
                   j.name AS job_name, r.parent_run_uuid AS parent_run_id,
                   r.current_state AS state, r.started_at AS start_time, r.ended_at AS end_time,
                   {millis("r.started_at", "r.ended_at")} AS duration_ms, r.error_message,
                   (SELECT CAST(SUM(x.row_count) AS BIGINT) FROM run_io x
                     WHERE x.run_id = r.id AND x.direction = 'input') AS input_rows,
                   (SELECT CAST(SUM(x.byte_count) AS BIGINT) FROM run_io x
                     WHERE x.run_id = r.id AND x.direction = 'input') AS input_bytes,
                   (SELECT CAST(SUM(x.row_count) AS BIGINT) FROM run_io x
                     WHERE x.run_id = r.id AND x.direction = 'output') AS output_rows,
                   (SELECT CAST(SUM(x.byte_count) AS BIGINT) FROM run_io x
                     WHERE x.run_id = r.id AND x.direction = 'output') AS output_bytes,
                   {run_time} AS event_time, {date(run_time)} AS event_date
              FROM runs r {jobs}
             WHERE {visible_job}""",
        f"""CREATE VIEW plumbline_jobs AS
            SELECT j.uuid AS job_id, jn.name AS namespace, j.name, j.type, j.description,
                   j.location, pj.uuid AS parent_job_id, j.latest_run_uuid AS latest_run_id,
                   lr.current_state AS latest_run_state, j.created_at, j.updated_at
              FROM jobs j JOIN namespaces jn ON jn.id = j.namespace_id
              LEFT JOIN jobs pj ON pj.id = j.parent_job_id
              LEFT JOIN runs lr ON lr.uuid = j.latest_run_uuid
             WHERE {visible_job}""",
        """CREATE VIEW plumbline_datasets AS
            SELECT dn.uuid AS dataset_id, dn.namespace, dn.name, dn.table_full_name, dn.path,
                   dn.dataset_type, d.description, cv.uuid AS current_version_id,
                   cv.version AS current_version, sv.fingerprint AS schema_fingerprint,
                   sv.fields AS schema_fields, d.last_modified_at, d.created_at, d.updated_at
              FROM plumbline_dataset_names dn JOIN datasets d ON d.id = dn.dataset_id
              LEFT JOIN dataset_versions cv ON cv.id = d.current_version_id
              LEFT JOIN schema_versions sv ON sv.id = d.current_schema_version_id""",
        """CREATE VIEW plumbline_dataset_versions AS
            SELECT dn.namespace AS dataset_namespace, dn.name AS dataset_name,
                   dv.uuid AS version_id, dv.version, dv.run_uuid AS created_by_run_id,
                   sv.fingerprint AS schema_fingerprint,
                   (SELECT MAX(x.row_count) FROM run_io x
                     WHERE x.dataset_version_id = dv.id AND x.direction = 'output') AS row_count,
                   CASE WHEN dv.run_uuid IS NULL OR dv.version <> dv.run_uuid
                        THEN dv.version END AS snapshot_id,
                   dv.lifecycle_state, dv.created_at
              FROM dataset_versions dv JOIN plumbline_dataset_names dn
                ON dn.dataset_id = dv.dataset_id
              LEFT JOIN schema_versions sv ON sv.id = dv.schema_version_id""",
        f"""CREATE VIEW plumbline_snapshot_lineage AS
            SELECT tgt.namespace AS target_namespace, tgt.name AS target_name,
                   tv.uuid AS target_version_id, tv.version AS target_version,
                   CASE WHEN tv.run_uuid IS NULL OR tv.version <> tv.run_uuid
                        THEN tv.version END AS target_snapshot_id,
                   src.namespace AS source_namespace, src.name AS source_name,
                   sv.uuid AS source_version_id, sv.version AS source_version,
                   CASE WHEN sv.run_uuid IS NULL OR sv.version <> sv.run_uuid
                        THEN sv.version END AS source_snapshot_id,
                   i.version_source AS source_version_source, i.read_at AS source_read_at,
                   {entity}, r.uuid AS entity_run_id, r.current_state AS run_state,
                   {run_time} AS event_time, {date(run_time)} AS event_date
              FROM ({table_pairs}) p JOIN runs r ON r.id = p.run_id {jobs}
              LEFT JOIN run_io o
                ON o.run_id = p.run_id AND o.dataset_id = p.target_id AND o.direction = 'output'
              LEFT JOIN run_io i
                ON i.run_id = p.run_id AND i.dataset_id = p.source_id AND i.direction = 'input'
              LEFT JOIN dataset_versions tv ON tv.id = o.dataset_version_id
              LEFT JOIN dataset_versions sv ON sv.id = i.dataset_version_id
              LEFT JOIN plumbline_dataset_names tgt ON tgt.dataset_id = p.target_id
              LEFT JOIN plumbline_dataset_names src ON src.dataset_id = p.source_id
             WHERE {visible_job}
               AND (p.source_id IS NULL OR src.dataset_id IS NOT NULL)
               AND (p.target_id IS NULL OR tgt.dataset_id IS NOT NULL)""",
    ]


def _folded() -> list[sa.Column[object]]:
    """The columns of a folded (pruned) edge: when, how often and last by which run."""
    return [
        sa.Column("first_seen", _TIME, nullable=False),
        sa.Column("last_seen", _TIME, nullable=False),
        sa.Column("run_count", sa.BigInteger, nullable=False),
        sa.Column("last_run_uuid", sa.String(36), nullable=False),
        sa.Column("last_run_state", sa.String(16), nullable=True),
        sa.Column("last_run_at", _TIME, nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "run_column_lineage",
        sa.Column("run_id", _ID, nullable=False),
        sa.Column("output_dataset_id", _ID, nullable=False),
        sa.Column("output_field_id", _ID, nullable=False),
        sa.Column("input_field_id", _ID, nullable=False),
        sa.Column("transformation_type", sa.String(16), nullable=False),
        sa.Column("transformation_subtype", sa.String(32), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name="fk_run_column_lineage_run_id_runs", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["output_dataset_id"],
            ["datasets.id"],
            name="fk_run_column_lineage_output_dataset_id_datasets",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["input_field_id"],
            ["dataset_fields.id"],
            name="fk_run_column_lineage_input_field_id_dataset_fields",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "run_id",
            "output_dataset_id",
            "output_field_id",
            "input_field_id",
            "transformation_type",
            "transformation_subtype",
            name="pk_run_column_lineage",
        ),
    )
    op.create_index(
        "ix_run_column_lineage_input_field_id", "run_column_lineage", ["input_field_id"]
    )
    op.create_table(
        "pruned_table_lineage",
        sa.Column("source_dataset_id", _ID, nullable=False),
        sa.Column("target_dataset_id", _ID, nullable=False),
        sa.Column("job_id", _ID, nullable=False),
        *_folded(),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name="fk_pruned_table_lineage_job_id_jobs", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint(
            "source_dataset_id", "target_dataset_id", "job_id", name="pk_pruned_table_lineage"
        ),
    )
    op.create_table(
        "pruned_column_lineage",
        sa.Column("job_id", _ID, nullable=False),
        sa.Column("output_dataset_id", _ID, nullable=False),
        sa.Column("output_field_id", _ID, nullable=False),
        sa.Column("input_field_id", _ID, nullable=False),
        sa.Column("transformation_type", sa.String(16), nullable=False),
        sa.Column("transformation_subtype", sa.String(32), nullable=False),
        *_folded(),
        sa.ForeignKeyConstraint(
            ["job_id"],
            ["jobs.id"],
            name="fk_pruned_column_lineage_job_id_jobs",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "job_id",
            "output_dataset_id",
            "output_field_id",
            "input_field_id",
            "transformation_type",
            "transformation_subtype",
            name="pk_pruned_column_lineage",
        ),
    )
    for statement in _sql(op.get_bind().dialect.name):
        op.execute(statement)


def downgrade() -> None:
    for view in VIEWS:
        op.execute(f"DROP VIEW IF EXISTS {view}")
    op.drop_table("pruned_column_lineage")
    op.drop_table("pruned_table_lineage")
    op.drop_index("ix_run_column_lineage_input_field_id", table_name="run_column_lineage")
    op.drop_table("run_column_lineage")
