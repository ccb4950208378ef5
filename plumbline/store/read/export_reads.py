"""The export's reads (issue 18): the lineage tables' facts straight from the base tables, in
large batches of plain DB-API rows, and what changed since an export.

The views of migration 0012 define what each table holds; reading them whole is slow on a big
store (the edge views group every run, and name every dataset through a view computed per
query). Here the history tables are read as ids and run values in key order (run_io,
run_column_shapes joined to runs by primary key and to their shapes' edges), the edge tables are grouped one range of
jobs at a time (a small group-by per range, indexed by ``runs.job_id`` and the pruned tables'
keys), and the names come from three small reads (datasets, fields, visible jobs) that the
export joins in memory (:mod:`plumbline.export.facts`). Tests hold the result equal to the views
on both backends. ``jobs``, ``datasets`` and ``dataset_versions`` are read from their views,
with the internal key that partitions their files.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from plumbline.store import schema as s
from plumbline.store.read.common import utc

# ruff: noqa: S608 (statements are built from this module's constants; values are parameters)

_RUN_TIME = "COALESCE(r.started_at, r.ended_at, r.last_event_at, r.created_at)"
_cursor_names = itertools.count()


def _day(dialect: str, expr: str) -> str:
    return f"date({expr})" if dialect == "sqlite" else f"CAST(({expr}) AT TIME ZONE 'UTC' AS DATE)"


def _marks(prefix: str, values: Sequence[Any]) -> tuple[str, dict[str, Any]]:
    """``:prefix_0, :prefix_1, …`` for ``values``, and their parameters."""
    marks = ", ".join(f":{prefix}_{n}" for n in range(len(values)))
    return marks, {f"{prefix}_{n}": value for n, value in enumerate(values)}


def _in_ids(dialect: str, column: str, name: str, ids: Sequence[int]) -> tuple[str, dict[str, Any]]:
    """``<column> IN <ids>`` with the ids as one parameter (a JSON array on SQLite, an array
    on PostgreSQL): one value to bind however many ids, each looked up by index."""
    if dialect == "sqlite":
        return f"{column} IN (SELECT value FROM json_each(:{name}))", {name: json.dumps(list(ids))}
    return f"{column} = ANY(CAST(:{name} AS BIGINT[]))", {name: list(ids)}


@dataclass(frozen=True)
class RunFilter:
    """Which runs a read covers: all, those of some days and/or from a day on, those of a range
    of job ids or of some jobs, or some runs by id."""

    days: tuple[date, ...] | None = None
    since: date | None = None
    jobs: tuple[int, int] | None = None  # inclusive range of jobs.id
    job_ids: tuple[int, ...] | None = None
    run_ids: tuple[int, ...] | None = None

    def clause(self, dialect: str, column: str) -> tuple[str, dict[str, Any]]:
        """`` AND <column> IN (runs ...)`` and its parameters ('' for all runs)."""
        if self.run_ids is not None:  # by primary key: no scan of runs
            where_ids, params = _in_ids(dialect, column, "run_ids", self.run_ids)
            return f" AND {where_ids}", params
        where: list[str] = []
        params = {}
        day = _day(dialect, _RUN_TIME)
        if self.jobs is not None:
            where.append("r.job_id BETWEEN :job_lo AND :job_hi")
            params.update(job_lo=self.jobs[0], job_hi=self.jobs[1])
        if self.job_ids is not None:
            where_ids, some = _in_ids(dialect, "r.job_id", "job_ids", self.job_ids)
            where.append(where_ids)
            params.update(some)
        if self.days is not None:
            marks, some = _marks("day", self.days)
            where.append(f"{day} IN ({marks})")
            params.update(some)
        if self.since is not None:
            where.append(f"{day} >= :since_day")
            params["since_day"] = self.since
        if not where:
            return "", {}
        if dialect == "sqlite":
            params = {k: v.isoformat() if isinstance(v, date) else v for k, v in params.items()}
        return f" AND {column} IN (SELECT r.id FROM runs r WHERE {' AND '.join(where)})", params


def _pairs(filtered: str) -> str:
    """One row per (run, source dataset, target dataset), as the views' ``table_pairs``."""
    return f"""
        SELECT i.run_id, i.dataset_id AS source_id, o.dataset_id AS target_id
          FROM run_io i JOIN run_io o ON o.run_id = i.run_id AND o.direction = 'output'
         WHERE i.direction = 'input' {filtered.format(c="i.run_id")}
        UNION ALL
        SELECT i.run_id, i.dataset_id, NULL FROM run_io i
         WHERE i.direction = 'input' {filtered.format(c="i.run_id")} AND NOT EXISTS (
               SELECT 1 FROM run_io o WHERE o.run_id = i.run_id AND o.direction = 'output')
        UNION ALL
        SELECT o.run_id, NULL, o.dataset_id FROM run_io o
         WHERE o.direction = 'output' {filtered.format(c="o.run_id")} AND NOT EXISTS (
               SELECT 1 FROM run_io i WHERE i.run_id = o.run_id AND i.direction = 'input')
    """


def _filtered(dialect: str, runs: RunFilter) -> tuple[str, dict[str, Any]]:
    clause, params = runs.clause(dialect, "{c}")
    return clause, params


_RUN_COLUMNS = f"r.job_id, r.uuid AS run_uuid, r.current_state, {_RUN_TIME} AS event_time"

# the columns of each fact read, in order (the export's joins look them up by name)
TABLE_FACTS = ("source_id", "target_id", "job_id", "run_uuid", "run_state", "event_time")
SNAPSHOT_FACTS = TABLE_FACTS + (
    "target_version_id",
    "target_version",
    "target_snapshot_id",
    "source_version_id",
    "source_version",
    "source_snapshot_id",
    "source_version_source",
    "source_read_at",
)
COLUMN_KEYS = (
    "output_dataset_id",
    "output_field_id",
    "input_field_id",
    "transformation_type",
    "transformation_subtype",
)
COLUMN_FACTS = ("job_id", "run_uuid", "run_state", "event_time") + COLUMN_KEYS
EDGE_TAIL = (
    "first_seen",
    "last_seen",
    "run_count",
    "last_run_id",
    "last_run_state",
    "edge_source",
    "completeness",
)
# how an edge is known (issue 31 §2), as the edge views read it (migration 0021)
_TABLE_CONFIDENCE = """
    COALESCE(co.edge_source, ci.edge_source) AS edge_source,
    COALESCE(co.completeness, ci.completeness, 'inferred') AS completeness
    FROM ({grouped}) e
    LEFT JOIN job_dataset_edges co ON co.job_id = e.job_id AND co.dataset_id = e.target_id
         AND co.direction = 'output'
    LEFT JOIN job_dataset_edges ci ON ci.job_id = e.job_id AND ci.dataset_id = e.source_id
         AND ci.direction = 'input'
"""
_COLUMN_CONFIDENCE = """
    COALESCE(cf.edge_source, cd.edge_source) AS edge_source,
    COALESCE(cf.completeness, cd.completeness, 'inferred') AS completeness
    FROM ({grouped}) e
    LEFT JOIN column_lineage_edges cf ON e.output_field_id <> 0
         AND cf.output_field_id = e.output_field_id AND cf.input_field_id = e.input_field_id
         AND cf.transformation_type = e.transformation_type
         AND cf.transformation_subtype = e.transformation_subtype
    LEFT JOIN column_dataset_edges cd ON e.output_field_id = 0
         AND cd.output_dataset_id = e.output_dataset_id AND cd.input_field_id = e.input_field_id
         AND cd.transformation_type = e.transformation_type
         AND cd.transformation_subtype = e.transformation_subtype
"""
TABLE_EDGE_FACTS = ("source_id", "target_id", "job_id") + EDGE_TAIL
COLUMN_EDGE_FACTS = ("job_id",) + COLUMN_KEYS + EDGE_TAIL


def _snapshot(version: str) -> str:
    return f"CASE WHEN {version}.run_uuid IS NULL OR {version}.version <> {version}.run_uuid THEN {version}.version END"  # noqa: E501


def fact_statement(conn: Connection, table: str, runs: RunFilter) -> tuple[str, dict[str, Any]]:
    """The statement reading the facts of a history table (``table_lineage``,
    ``snapshot_lineage``, ``column_lineage``) for ``runs`` on ``conn``'s database, and its
    parameters."""
    dialect = conn.dialect.name
    filtered, params = _filtered(dialect, runs)
    if table == "column_lineage":
        sql = f"""SELECT {_RUN_COLUMNS}, h.output_dataset_id, h.output_field_id,
                         h.input_field_id, NULLIF(h.transformation_type, ''),
                         NULLIF(h.transformation_subtype, '')
                    FROM run_column_shapes rs JOIN column_lineage_shape_edges h ON h.shape_id = rs.shape_id
                    JOIN runs r ON r.id = rs.run_id
                   WHERE 1 = 1 {filtered.format(c="rs.run_id")}"""
        return sql, params
    pairs = f"SELECT p.source_id, p.target_id, {_RUN_COLUMNS}"
    if table == "table_lineage":
        return f"{pairs} FROM ({_pairs(filtered)}) p JOIN runs r ON r.id = p.run_id", params
    if table == "snapshot_lineage":
        sql = f"""{pairs}, tv.uuid, tv.version, {_snapshot("tv")}, sv.uuid, sv.version,
                   {_snapshot("sv")}, i.version_source, i.read_at
              FROM ({_pairs(filtered)}) p JOIN runs r ON r.id = p.run_id
              LEFT JOIN run_io o
                ON o.run_id = p.run_id AND o.dataset_id = p.target_id AND o.direction = 'output'
              LEFT JOIN run_io i
                ON i.run_id = p.run_id AND i.dataset_id = p.source_id AND i.direction = 'input'
              LEFT JOIN dataset_versions tv ON tv.id = o.dataset_version_id
              LEFT JOIN dataset_versions sv ON sv.id = i.dataset_version_id"""
        return sql, params
    raise ValueError(f"no fact read for {table}")


def _edges(dialect: str, keys: str, live: str, pruned: str) -> str:
    """Per-run rows and pruned folds of ``keys`` grouped, one row per distinct key, with its last
    run (the latest ``last_at``, ties to the greatest run id), as the views group them."""
    if dialect == "sqlite":
        last = "MAX(last_at || '|' || last_run_uuid || '|' || COALESCE(last_run_state, ''))"
        return f"""
            SELECT {keys}, first_seen, last_seen, run_count,
                   substr(rest, 1, instr(rest, '|') - 1) AS last_run_uuid,
                   NULLIF(substr(rest, instr(rest, '|') + 1), '') AS last_run_state
              FROM (SELECT {keys}, MIN(first_seen) AS first_seen, MAX(last_seen) AS last_seen,
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


def edge_statement(
    conn: Connection, table: str, jobs: tuple[int, int] | Sequence[int]
) -> tuple[str, dict[str, Any]]:
    """The statement grouping the edges of the jobs with ids in ``jobs`` on ``conn``'s
    database: an inclusive range (a pair) or the ids themselves (a list)."""
    dialect = conn.dialect.name
    if isinstance(jobs, tuple):
        runs = RunFilter(jobs=jobs)
        pruned_where = "WHERE job_id BETWEEN :job_lo AND :job_hi"
    else:
        runs = RunFilter(job_ids=tuple(jobs))
        pruned_where = f"WHERE {_in_ids(dialect, 'job_id', 'job_ids', jobs)[0]}"
    filtered, params = _filtered(dialect, runs)
    per_run = (
        f"{_RUN_TIME} AS first_seen, {_RUN_TIME} AS last_seen, 1 AS run_count,"
        f" r.uuid AS last_run_uuid, r.current_state AS last_run_state, {_RUN_TIME} AS last_at"
    )
    folded = "first_seen, last_seen, run_count, last_run_uuid, last_run_state, last_run_at"
    if table == "table_lineage_edges":
        keys = "source_id, target_id, job_id"
        live = f"""SELECT p.source_id, p.target_id, r.job_id, {per_run}
                     FROM ({_pairs(filtered)}) p JOIN runs r ON r.id = p.run_id"""
        pruned = f"""SELECT NULLIF(source_dataset_id, 0), NULLIF(target_dataset_id, 0), job_id,
                            {folded} FROM pruned_table_lineage {pruned_where}"""
    elif table == "column_lineage_edges":
        keys = "job_id, " + ", ".join(COLUMN_KEYS)
        live = f"""SELECT r.job_id, h.output_dataset_id, h.output_field_id, h.input_field_id,
                          h.transformation_type, h.transformation_subtype, {per_run}
                     FROM run_column_shapes rs JOIN column_lineage_shape_edges h ON h.shape_id = rs.shape_id
                    JOIN runs r ON r.id = rs.run_id
                    WHERE 1 = 1 {filtered.format(c="rs.run_id")}"""
        pruned = f"SELECT {keys}, {folded} FROM pruned_column_lineage {pruned_where}"
        keys_out = (
            "e.job_id, e.output_dataset_id, e.output_field_id, e.input_field_id,"
            " NULLIF(e.transformation_type, ''), NULLIF(e.transformation_subtype, '')"
        )
        tail = "e.first_seen, e.last_seen, e.run_count, e.last_run_uuid, e.last_run_state"
        grouped = _edges(dialect, keys, live, pruned)
        confidence = _COLUMN_CONFIDENCE.format(grouped=grouped)
        return f"SELECT {keys_out}, {tail}, {confidence}", params
    else:
        raise ValueError(f"no edge read for {table}")
    tail = (
        "e.source_id, e.target_id, e.job_id, e.first_seen, e.last_seen, e.run_count,"
        " e.last_run_uuid, e.last_run_state"
    )
    confidence = _TABLE_CONFIDENCE.format(grouped=_edges(dialect, keys, live, pruned))
    return f"SELECT {tail}, {confidence}", params


def run_ids_of_days(conn: Connection, days: Sequence[date]) -> list[int]:
    """The ids of the runs of ``days`` (by the day the history tables file them under), in
    order: one read of ``runs``, so that each history table then reads its runs by key."""
    marks, params = _marks("day", days)
    if conn.dialect.name == "sqlite":
        params = {k: v.isoformat() for k, v in params.items()}
    sql = f"SELECT r.id FROM runs r WHERE {_day(conn.dialect.name, _RUN_TIME)} IN ({marks})"
    return sorted(conn.execute(sa.text(sql), params).scalars())


def max_job_id(conn: Connection) -> int:
    """The greatest job id (0: no job): the edge tables are grouped by ranges of it."""
    return int(conn.execute(sa.text("SELECT COALESCE(MAX(id), 0) FROM jobs")).scalar_one())


_PATH_SCHEMES = (
    "file:%", "hdfs:%", "s3:%", "s3a:%", "s3n:%", "gs:%", "abfs:%", "abfss:%", "wasb:%", "wasbs:%",
    "dbfs:%", "viewfs:%", "oss:%", "cos:%",
)  # fmt: skip
_IS_PATH = " OR ".join(["n.name = 'file'"] + [f"n.name LIKE '{p}'" for p in _PATH_SCHEMES])
_NAMED = """
    COALESCE(t.catalog_name, CASE WHEN t.is_path = 0 THEN t.name END) AS table_full_name,
    CASE WHEN t.namespace = 'file' THEN t.name
         WHEN t.is_path = 1 THEN t.namespace
              || CASE WHEN t.name LIKE '/%' THEN '' ELSE '/' END || t.name
         END AS path,
    CASE WHEN t.catalog_name IS NULL AND t.is_path = 1 THEN 'PATH' ELSE 'TABLE' END
      AS dataset_type"""
_NAMING = f"""
    SELECT d.id AS dataset_id, d.uuid, n.name AS namespace, d.name,
           CASE WHEN {_IS_PATH} THEN 1 ELSE 0 END AS is_path,
           (SELECT MIN(sl.name) FROM dataset_symlinks sl
             WHERE sl.dataset_id = d.id AND sl.type = 'TABLE') AS catalog_name
      FROM datasets d JOIN namespaces n ON n.id = d.namespace_id
     WHERE NOT d.is_hidden AND NOT n.is_hidden"""
# the current-state tables keyed by the internal id their file is chosen by: ``jobs`` from its
# view; ``datasets`` and ``dataset_versions`` as their views (migration 0012) but naming only the
# datasets read (the views' plumbline_dataset_names names every dataset per statement); the
# export's tests hold them equal to the views
_KEYED = {
    "jobs": (
        "j.id",
        "SELECT j.id AS file_key, v.* FROM plumbline_jobs v JOIN jobs j ON j.uuid = v.job_id",
        "",
    ),
    "datasets": (
        "t.dataset_id",
        f"""SELECT t.dataset_id AS file_key, t.uuid AS dataset_id, t.namespace, t.name, {_NAMED},
                   d.description, cv.uuid AS current_version_id, cv.version AS current_version,
                   sv.fingerprint AS schema_fingerprint, sv.fields AS schema_fields,
                   d.last_modified_at, d.created_at, d.updated_at
              FROM ({_NAMING} {{ranges}}) t JOIN datasets d ON d.id = t.dataset_id
              LEFT JOIN dataset_versions cv ON cv.id = d.current_version_id
              LEFT JOIN schema_versions sv ON sv.id = d.current_schema_version_id""",
        "d.id",
    ),
    "dataset_versions": (
        "dv.id",
        f"""SELECT dv.id AS file_key, n.name AS dataset_namespace, d.name AS dataset_name,
                   dv.uuid AS version_id, dv.version, dv.run_uuid AS created_by_run_id,
                   sv.fingerprint AS schema_fingerprint,
                   (SELECT MAX(x.row_count) FROM run_io x
                     WHERE x.dataset_version_id = dv.id AND x.direction = 'output') AS row_count,
                   {_snapshot("dv")} AS snapshot_id, dv.lifecycle_state, dv.created_at
              FROM dataset_versions dv JOIN datasets d ON d.id = dv.dataset_id
              JOIN namespaces n ON n.id = d.namespace_id
              LEFT JOIN schema_versions sv ON sv.id = dv.schema_version_id
             WHERE NOT d.is_hidden AND NOT n.is_hidden {{ranges}}""",
        "dv.id",
    ),
}


def keyed_statement(
    table: str,
    ranges: Sequence[tuple[int, int]] | None,
    keys: Sequence[int] | None = None,
    conn: Connection | None = None,
) -> tuple[str, dict[str, Any]]:
    """``table``'s rows with their file key first, in key order; ``ranges``: only the keys in
    these inclusive ranges; ``keys``: only these keys (on ``conn``'s database)."""
    dialect = "sqlite" if conn is None else conn.dialect.name
    key, select, inner = _KEYED[table]
    where, params = "", {}
    column = inner or key
    if ranges is not None:
        where = " OR ".join(f"{column} BETWEEN :lo_{n} AND :hi_{n}" for n in range(len(ranges)))
        for n, (lo, hi) in enumerate(ranges):
            params.update({f"lo_{n}": lo, f"hi_{n}": hi})
    elif keys is not None:
        where, params = _in_ids(dialect, column, "keys", keys)
    if inner:  # the ranges go inside, after the statement's own WHERE
        sql = select.replace("{ranges}", f"AND ({where})" if where else "")
    else:
        sql = f"{select} WHERE {where}" if where else select
    return f"{sql} ORDER BY {key}", params


# history tables the export reads from their views, by day
VIEW_HISTORY = {"runs": "plumbline_runs", "stream_batch_lineage": "plumbline_stream_batch_lineage"}


def runs_statement(
    conn: Connection, days: Sequence[date] | None, since: date | None, table: str = "runs"
) -> tuple[str, dict[str, Any]]:
    """``runs`` or another table of :data:`VIEW_HISTORY` (read from its view) for ``days`` /
    from ``since``, on ``conn``'s database."""
    dialect = conn.dialect.name
    where: list[str] = []
    params: dict[str, Any] = {}
    if days is not None:
        marks = ", ".join(f":day_{n}" for n in range(len(days)))
        where.append(f"event_date IN ({marks})")
        params.update({f"day_{n}": d for n, d in enumerate(days)})
    if since is not None:
        where.append("event_date >= :since")
        params["since"] = since
    if dialect == "sqlite":
        params = {k: v.isoformat() for k, v in params.items()}
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    return f"SELECT * FROM {VIEW_HISTORY[table]}{clause}", params


# plumbline_dataset_names (migration 0012) without its fence, so that a read of a few datasets
# looks up only those; the export's tests hold the two equal
_SOME_NAMES = sa.text(f"""
    SELECT t.dataset_id, {_NAMED}, t.namespace, t.name
      FROM ({_NAMING} AND d.id IN :ids) t
""").bindparams(sa.bindparam("ids", expanding=True))
_ALL_NAMES = sa.text(
    "SELECT dataset_id, table_full_name, path, dataset_type, namespace, name"
    " FROM plumbline_dataset_names"
)
_FIELDS = "SELECT id, dataset_id, name FROM dataset_fields"
_JOBS_VISIBLE = (
    "SELECT j.id, j.uuid, jn.name, j.name FROM jobs j"
    " JOIN namespaces jn ON jn.id = j.namespace_id"
    " WHERE NOT j.is_hidden AND NOT jn.is_hidden"
)
_SOME = {
    "datasets": _SOME_NAMES,
    "fields": sa.text(f"{_FIELDS} WHERE id IN :ids").bindparams(
        sa.bindparam("ids", expanding=True)
    ),
    "jobs": sa.text(f"{_JOBS_VISIBLE} AND j.id IN :ids").bindparams(
        sa.bindparam("ids", expanding=True)
    ),
}
_ALL = {"datasets": _ALL_NAMES, "fields": sa.text(_FIELDS), "jobs": sa.text(_JOBS_VISIBLE)}


def lookup_rows(conn: Connection, kind: str, ids: Sequence[int] | None) -> list[tuple[Any, ...]]:
    """The rows the export names things with, by id first (``ids``: only those; None: all):

    - ``datasets``: visible datasets, as ``plumbline_dataset_names`` names them (dataset_id,
      table_full_name, path, dataset_type, namespace, name);
    - ``fields``: (id, dataset_id, name);
    - ``jobs``: jobs the tables show (neither the job nor its namespace hidden): (id, uuid,
      namespace, name).
    """
    if ids is None:
        return [tuple(row) for row in conn.execute(_ALL[kind])]
    found: list[tuple[Any, ...]] = []
    for start in range(0, len(ids), 500):
        chunk = {"ids": list(ids[start : start + 500])}
        found.extend(tuple(row) for row in conn.execute(_SOME[kind], chunk))
    return found


def text_values(conn: Connection) -> bool:
    """Whether ``conn``'s database hands dates, times and JSON back as text (SQLite) rather
    than as Python values (PostgreSQL): how the export decodes the rows it reads."""
    return conn.dialect.name == "sqlite"


def stream(
    conn: Connection, sql: str, params: dict[str, Any], batch_size: int
) -> Iterator[list[tuple[Any, ...]]]:
    """The rows of ``sql``, ``batch_size`` at a time, through the driver's own cursor (a
    server-side one on PostgreSQL), without SQLAlchemy's per-row processing."""
    compiled = (
        sa.text(sql)
        .bindparams(**params)
        .compile(dialect=conn.dialect, compile_kwargs={"render_postcompile": True})
    )
    values: Any = compiled.params  # a property that builds them anew: read once
    if compiled.positiontup is not None:
        values = tuple(values[name] for name in compiled.positiontup)
    driver: Any = conn.connection.dbapi_connection
    if conn.dialect.name == "postgresql":
        cursor = driver.cursor(name=f"plumbline_export_{next(_cursor_names)}")
        cursor.itersize = batch_size
    else:
        cursor = driver.cursor()
        cursor.arraysize = batch_size
    try:
        cursor.execute(str(compiled), values)
        while rows := cursor.fetchmany(batch_size):
            yield rows
    finally:
        cursor.close()


@dataclass
class Changes:
    """What changed since an export: the days of history, the jobs, datasets and dataset
    versions whose rows may differ (None: all of them)."""

    days: set[date] | None
    jobs: set[int] | None
    datasets: set[int] | None
    versions: set[int] | None

    @classmethod
    def everything(cls) -> Changes:
        return cls(days=None, jobs=None, datasets=None, versions=None)


def hidden_digest(conn: Connection) -> str:
    """A digest of what is hidden (datasets, jobs, namespaces): hiding or showing one changes
    rows of every table, so an export that sees it change rewrites everything."""
    digest = hashlib.sha256()
    for table in (s.namespaces, s.datasets, s.jobs):
        ids = conn.execute(sa.select(table.c.id).where(table.c.is_hidden).order_by(table.c.id))
        digest.update(f"{table.name}:{','.join(str(i) for i in ids.scalars())};".encode())
    return digest.hexdigest()


def _run_day(started: Any, ended: Any, last: Any, created: Any) -> date | None:
    at = utc(started or ended or last or created)
    return at.date() if at is not None else None


# the days of the micro-batches recorded since (stream_batch_lineage files them by batch time)
_NEW_BATCHES = (
    sa.select(sa.func.coalesce(s.stream_batches.c.batch_time, s.stream_batches.c.recorded_at))
    .where(s.stream_batches.c.recorded_at >= sa.bindparam("since"))
    .distinct()
)
_CHANGED_RUNS = sa.select(
    s.runs.c.id,
    s.runs.c.uuid,
    s.runs.c.job_id,
    s.runs.c.started_at,
    s.runs.c.ended_at,
    s.runs.c.last_event_at,
    s.runs.c.created_at,
).where(s.runs.c.updated_at >= sa.bindparam("since"))
_RUN_DATASETS = sa.select(
    s.run_io.c.dataset_id,
    sa.case((s.run_io.c.direction == "output", s.run_io.c.dataset_version_id)),
).where(s.run_io.c.run_id.in_(sa.bindparam("runs", expanding=True)))
_RUN_VERSIONS = sa.select(s.dataset_versions.c.id).where(
    s.dataset_versions.c.run_uuid.in_(sa.bindparam("uuids", expanding=True))
)
_PRUNED = sa.select(
    s.pruned_runs.c.job_id, s.pruned_runs.c.started_at, s.pruned_runs.c.ended_at
).where(s.pruned_runs.c.pruned_at >= sa.bindparam("since"))
_JOBS = sa.select(s.jobs.c.id).where(s.jobs.c.updated_at >= sa.bindparam("since"))
_DATASETS = sa.select(s.datasets.c.id).where(s.datasets.c.updated_at >= sa.bindparam("since"))
_SYMLINKS = (
    sa.select(s.dataset_symlinks.c.dataset_id, s.datasets.c.created_at)
    .join(s.datasets, s.datasets.c.id == s.dataset_symlinks.c.dataset_id)
    .where(s.dataset_symlinks.c.created_at >= sa.bindparam("since"))
)


def changes(conn: Connection, since: datetime) -> Changes:
    """The days, jobs and datasets whose rows may have changed since ``since``: those of the
    runs written or pruned since then, the jobs and datasets updated since then, the datasets
    given a symlink since then, the versions those runs made or touched. A pruned run whose day
    is not known: every day; any run pruned: every version (its own may be gone); a symlink
    given to a dataset older than ``since`` (a catalog name, a rename): everything (the edges of
    every job that touched it name it)."""
    at = {"since": since}
    run_days: set[date] = set()
    days: set[date] | None = run_days
    jobs: set[int] = set()
    datasets: set[int] = set()
    versions: set[int] = set()
    run_ids, run_uuids = [], []
    for run_id, run_uuid, job_id, *times in conn.execute(_CHANGED_RUNS, at):
        run_ids.append(run_id)
        run_uuids.append(run_uuid)
        jobs.add(job_id)
        if (day := _run_day(*times)) is not None:
            run_days.add(day)
    for start in range(0, len(run_ids), 500):
        for dataset_id, version_id in conn.execute(
            _RUN_DATASETS, {"runs": run_ids[start : start + 500]}
        ):
            datasets.add(dataset_id)
            if version_id is not None:
                versions.add(version_id)
        versions.update(
            conn.execute(_RUN_VERSIONS, {"uuids": run_uuids[start : start + 500]}).scalars()
        )
    for batch_time in conn.execute(_NEW_BATCHES, at).scalars():
        run_days.add(utc(batch_time).date())  # type: ignore[union-attr]
    pruned = conn.execute(_PRUNED, at).all()
    for job_id, started, ended in pruned:
        jobs.add(job_id)
        day = _run_day(started, ended, None, None)
        if day is None:
            days = None
        elif days is not None:
            days.add(day)
    jobs.update(conn.execute(_JOBS, at).scalars())
    datasets.update(conn.execute(_DATASETS, at).scalars())
    for dataset_id, created in conn.execute(_SYMLINKS, at):
        if utc(created) < since:  # type: ignore[operator]
            return Changes.everything()
        datasets.add(dataset_id)
    return Changes(days=days, jobs=jobs, datasets=datasets, versions=None if pruned else versions)
