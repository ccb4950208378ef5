"""The lineage SQL tables say how each edge is known (issue 31 §2)

``plumbline_table_lineage_edges`` and ``plumbline_column_lineage_edges`` gain ``edge_source``
and ``completeness`` (``inferred`` when the producer stated none), read from the edge tables of
0019: a table edge (source -> job -> target) from the job's output edge to its target (its input
edge from the source when it wrote nothing), a column edge from its field (or whole-dataset) edge.
The rest of the two views is 0018's text (its tail columns qualified, as the joined tables have
columns of the same names).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28 10:05:00
"""

import importlib.util
from pathlib import Path
from types import ModuleType

from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

_TAIL = "first_seen, last_seen, run_count, last_run_uuid AS last_run_id, last_run_state"
_WHERE = "WHERE NOT j.is_hidden AND NOT jn.is_hidden"
_ADDED = {
    "plumbline_table_lineage_edges": (
        "e",
        ", COALESCE(co.edge_source, ci.edge_source) AS edge_source,"
        " COALESCE(co.completeness, ci.completeness, 'inferred') AS completeness",
        "LEFT JOIN job_dataset_edges co ON co.job_id = e.job_id AND co.dataset_id = e.target_id"
        " AND co.direction = 'output'"
        " LEFT JOIN job_dataset_edges ci ON ci.job_id = e.job_id AND ci.dataset_id = e.source_id"
        " AND ci.direction = 'input'",
    ),
    "plumbline_column_lineage_edges": (
        "h",
        ", COALESCE(cf.edge_source, cd.edge_source) AS edge_source,"
        " COALESCE(cf.completeness, cd.completeness, 'inferred') AS completeness",
        "LEFT JOIN column_lineage_edges cf ON h.output_field_id <> 0"
        " AND cf.output_field_id = h.output_field_id AND cf.input_field_id = h.input_field_id"
        " AND cf.transformation_type = h.transformation_type"
        " AND cf.transformation_subtype = h.transformation_subtype"
        " LEFT JOIN column_dataset_edges cd ON h.output_field_id = 0"
        " AND cd.output_dataset_id = h.output_dataset_id AND cd.input_field_id = h.input_field_id"
        " AND cd.transformation_type = h.transformation_type"
        " AND cd.transformation_subtype = h.transformation_subtype",
    ),
}


def _migration(name: str) -> ModuleType:
    path = Path(__file__).with_name(name)
    spec = importlib.util.spec_from_file_location(f"plumbline_migration_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _statements(dialect: str) -> dict[str, str]:
    """0018's text of the two edge views, by view name."""
    views = _migration("0018_column_lineage_shapes.py")._view_statements(dialect, shapes=True)
    found = {s.split()[2]: s for s in views}
    table = next(
        s
        for s in _migration("0012_lineage_sql_tables.py")._sql(dialect)
        if s.split()[2] == "plumbline_table_lineage_edges"
    )
    found["plumbline_table_lineage_edges"] = table
    return found


def view_statements(dialect: str) -> list[str]:
    """The two edge views with ``edge_source`` and ``completeness``."""
    out = []
    for name, statement in _statements(dialect).items():
        if name not in _ADDED:
            continue
        alias, columns, joins = _ADDED[name]
        assert statement.count(_TAIL) == 1, name
        qualified = ", ".join(f"{alias}.{part.strip()}" for part in _TAIL.split(","))
        statement = statement.replace(_TAIL, qualified + columns)
        head, where, tail = statement.rpartition(_WHERE)
        assert where, name
        out.append(f"{head}{joins}\n             {where}{tail}")
    assert len(out) == len(_ADDED)
    return out


def upgrade() -> None:
    for view in _ADDED:
        op.execute(f"DROP VIEW IF EXISTS {view}")
    for statement in view_statements(op.get_bind().dialect.name):
        op.execute(statement)


def downgrade() -> None:
    for view in _ADDED:
        op.execute(f"DROP VIEW IF EXISTS {view}")
    for name, statement in _statements(op.get_bind().dialect.name).items():
        if name in _ADDED:
            op.execute(statement)
