"""Column-lineage history per shape, not per run and column edge (issue 30)

``run_column_lineage`` (0012) held one row per run per column edge: 900,000 rows (147 MiB on
PostgreSQL) after 30,000 events of 200 jobs whose runs repeat the same 60 edges, a history that
grew with runs x columns. Runs of a job nearly always carry the same set of column edges, so the
history is now stored per distinct *shape*:

- ``column_lineage_shapes``: one row per distinct set of column edges a run carried, named by the
  sha256 of its sorted edges (:func:`digest`; the write path computes the same);
- ``column_lineage_shape_edges``: the shape's edges (the columns of ``run_column_lineage`` but
  ``run_id``, keyed by the shape);
- ``run_column_shapes``: each run's shape (one row per run, deleted with it).

The views ``plumbline_column_lineage`` and ``plumbline_column_lineage_edges`` read a run's edges
through its shape: the same rows as before (0012's view text with the history table replaced by
the join; the other views are unchanged). What 0012-0017 wrote is converted run by run;
downgrade writes ``run_column_lineage`` back from the shapes.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-28 05:30:00
"""

import hashlib
import importlib.util
import json
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_TIME = sa.DateTime(timezone=True)
_KEYS = (
    "output_dataset_id",
    "output_field_id",
    "input_field_id",
    "transformation_type",
    "transformation_subtype",
)
_OLD_FROM = "FROM run_column_lineage h JOIN runs r ON r.id = h.run_id"
_NEW_FROM = (
    "FROM run_column_shapes rs JOIN column_lineage_shape_edges h ON h.shape_id = rs.shape_id"
    " JOIN runs r ON r.id = rs.run_id"
)
_VIEWS = ("plumbline_column_lineage", "plumbline_column_lineage_edges")
_CHUNK = 5_000
_RUNS_PER_READ = 2_000


def digest(edges: list[tuple[int, int, int, str, str]]) -> str:
    """The name of a set of column edges: sha256 of its sorted edges as compact JSON (the write
    path's ``plumbline.store.write.column_shapes.digest`` is the same function)."""
    text = json.dumps(sorted(edges), separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _views_0012() -> ModuleType:
    path = Path(__file__).with_name("0012_lineage_sql_tables.py")
    spec = importlib.util.spec_from_file_location("plumbline_migration_0012", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _view_statements(dialect: str, shapes: bool) -> list[str]:
    """0012's text of the two column-lineage views (``shapes``: reading through the shapes)."""
    found = []
    for statement in _views_0012()._sql(dialect):
        name = statement.split()[2]
        if name in _VIEWS:
            assert _OLD_FROM in statement, name
            found.append(statement.replace(_OLD_FROM, _NEW_FROM) if shapes else statement)
    assert len(found) == len(_VIEWS)
    return found


def _create_tables() -> None:
    op.create_table(
        "column_lineage_shapes",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("edge_count", sa.Integer, nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_column_lineage_shapes"),
        sa.UniqueConstraint("digest", name="uq_column_lineage_shapes_digest"),
    )
    op.create_table(
        "column_lineage_shape_edges",
        sa.Column("shape_id", _ID, nullable=False),
        sa.Column("output_dataset_id", _ID, nullable=False),
        sa.Column("output_field_id", _ID, nullable=False),
        sa.Column("input_field_id", _ID, nullable=False),
        sa.Column("transformation_type", sa.String(16), nullable=False),
        sa.Column("transformation_subtype", sa.String(32), nullable=False),
        sa.ForeignKeyConstraint(
            ["shape_id"],
            ["column_lineage_shapes.id"],
            name="fk_column_lineage_shape_edges_shape_id_column_lineage_shapes",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["output_dataset_id"],
            ["datasets.id"],
            name="fk_column_lineage_shape_edges_output_dataset_id_datasets",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["input_field_id"],
            ["dataset_fields.id"],
            name="fk_column_lineage_shape_edges_input_field_id_dataset_fields",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("shape_id", *_KEYS, name="pk_column_lineage_shape_edges"),
    )
    op.create_index(
        "ix_column_lineage_shape_edges_input_field_id",
        "column_lineage_shape_edges",
        ["input_field_id"],
    )
    op.create_table(
        "run_column_shapes",
        sa.Column("run_id", _ID, nullable=False),
        sa.Column("shape_id", _ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name="fk_run_column_shapes_run_id_runs", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["shape_id"],
            ["column_lineage_shapes.id"],
            name="fk_run_column_shapes_shape_id_column_lineage_shapes",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("run_id", name="pk_run_column_shapes"),
    )
    op.create_index("ix_run_column_shapes_shape_id", "run_column_shapes", ["shape_id"])


_old = sa.table("run_column_lineage", sa.column("run_id"), *(sa.column(k) for k in _KEYS))
_shapes = sa.table(
    "column_lineage_shapes",
    sa.column("id"),
    sa.column("digest"),
    sa.column("edge_count"),
    sa.column("created_at", _TIME),
)
_shape_edges = sa.table(
    "column_lineage_shape_edges", sa.column("shape_id"), *(sa.column(k) for k in _KEYS)
)
_run_shapes = sa.table("run_column_shapes", sa.column("run_id"), sa.column("shape_id"))


def _convert(bind: sa.Connection) -> None:
    """Each run's rows of ``run_column_lineage`` become a reference to its shape."""
    now = datetime.now(UTC)
    shape_ids: dict[str, int] = {}
    runs: list[dict[str, Any]] = []

    def flush() -> None:
        if runs:
            bind.execute(_run_shapes.insert(), runs)
            runs.clear()

    def close(run_id: int, edges: list[tuple[Any, ...]]) -> None:
        name = digest(edges)
        shape_id = shape_ids.get(name)
        if shape_id is None:
            shape_id = shape_ids[name] = len(shape_ids) + 1
            bind.execute(
                _shapes.insert(),
                [{"id": shape_id, "digest": name, "edge_count": len(edges), "created_at": now}],
            )
            bind.execute(
                _shape_edges.insert(),
                [{"shape_id": shape_id, **dict(zip(_KEYS, edge, strict=True))} for edge in edges],
            )
        runs.append({"run_id": run_id, "shape_id": shape_id})
        if len(runs) >= _CHUNK:
            flush()

    low, high = bind.execute(
        sa.select(sa.func.min(_old.c.run_id), sa.func.max(_old.c.run_id))
    ).one()
    ordered = sa.select(_old).order_by(_old.c.run_id, *(_old.c[k] for k in _KEYS))
    for start in range(int(low or 0), int(high or -1) + 1, _RUNS_PER_READ):
        current: int | None = None
        edges: list[tuple[Any, ...]] = []
        block = _old.c.run_id.between(start, start + _RUNS_PER_READ - 1)
        for run_id, *edge in bind.execute(ordered.where(block)):
            if run_id != current:
                if current is not None:
                    close(current, edges)
                current, edges = run_id, []
            edges.append((int(edge[0]), int(edge[1]), int(edge[2]), str(edge[3]), str(edge[4])))
        if current is not None:
            close(current, edges)
    flush()
    if bind.dialect.name == "postgresql" and shape_ids:
        op.execute(
            "SELECT setval(pg_get_serial_sequence('column_lineage_shapes', 'id'),"
            " (SELECT MAX(id) FROM column_lineage_shapes))"
        )


def upgrade() -> None:
    bind = op.get_bind()
    _create_tables()
    _convert(bind)
    for view in _VIEWS:
        op.execute(f"DROP VIEW IF EXISTS {view}")
    for statement in _view_statements(bind.dialect.name, shapes=True):
        op.execute(statement)
    op.drop_index("ix_run_column_lineage_input_field_id", table_name="run_column_lineage")
    op.drop_table("run_column_lineage")


def downgrade() -> None:
    bind = op.get_bind()
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
        sa.PrimaryKeyConstraint("run_id", *_KEYS, name="pk_run_column_lineage"),
    )
    op.create_index(
        "ix_run_column_lineage_input_field_id", "run_column_lineage", ["input_field_id"]
    )
    keys = ", ".join(_KEYS)
    op.execute(
        f"INSERT INTO run_column_lineage (run_id, {keys})"  # noqa: S608
        f" SELECT rs.run_id, {', '.join('h.' + k for k in _KEYS)} FROM run_column_shapes rs"
        " JOIN column_lineage_shape_edges h ON h.shape_id = rs.shape_id"
    )
    for view in _VIEWS:
        op.execute(f"DROP VIEW IF EXISTS {view}")
    for statement in _view_statements(bind.dialect.name, shapes=False):
        op.execute(statement)
    op.drop_index("ix_run_column_shapes_shape_id", table_name="run_column_shapes")
    op.drop_table("run_column_shapes")
    op.drop_index(
        "ix_column_lineage_shape_edges_input_field_id", table_name="column_lineage_shape_edges"
    )
    op.drop_table("column_lineage_shape_edges")
    op.drop_table("column_lineage_shapes")
