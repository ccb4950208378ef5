"""Id lists bound as one parameter (``in_ids``), and the SQLite field walk's plan."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from plumbline.store import schema as s
from plumbline.store.read.idlist import in_ids
from plumbline.store.read.walks import _field_walk_statement

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_in_ids_selects_exactly_the_listed_ids_with_one_statement_text(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(
            sa.insert(s.namespaces),
            [{"name": f"ns{i}", "created_at": NOW, "updated_at": NOW} for i in range(3000)],
        )
        ids = list(conn.execute(sa.select(s.namespaces.c.id).order_by(s.namespaces.c.id)).scalars())
    query = sa.select(s.namespaces.c.id).where(in_ids(s.namespaces.c.id))
    texts: set[str] = set()

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        texts.add(statement)

    sa.event.listen(engine, "before_cursor_execute", record)
    try:
        with engine.connect() as conn:
            cases = [
                [],
                [ids[5]],
                [ids[0], ids[0], ids[-1], max(ids) + 1000],  # a duplicate, one missing id
                ids[::2],  # 1,500 ids: more than the old chunks of 500
                ids,
            ]
            for wanted in cases:
                got = set(conn.execute(query, {"ids": wanted}).scalars())
                assert got == set(wanted) & set(ids)
    finally:
        sa.event.remove(engine, "before_cursor_execute", record)
    assert len(texts) == 1  # the list's length does not change the SQL


def test_sqlite_field_walk_looks_edges_up_by_index(tmp_path: Any) -> None:
    from plumbline.store.engine import create_store_engine
    from plumbline.store.migrate import upgrade

    engine = create_store_engine(f"sqlite:///{tmp_path / 'walk.db'}")
    upgrade(engine)
    for downstream in (False, True):
        compiled = _field_walk_statement("DATASET", downstream, False, True).compile(
            dialect=engine.dialect
        )
        params = {**compiled.params, "start": 1, "max_depth": 5, "cap_plus_one": 10}
        args = tuple(params[name] for name in compiled.positiontup or ())
        with engine.connect() as conn:
            plan = " | ".join(
                row[3] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}", args).all()
            )
        # one union of all field edges, materialized on every step, was a full scan per hop
        assert "MATERIALIZE" not in plan, plan
        assert "SCAN column_lineage_edges" not in plan, plan
        assert "SEARCH column_lineage_edges" in plan, plan
    engine.dispose()
