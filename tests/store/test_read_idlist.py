"""Id lists bound as one parameter (``in_ids``), and the SQLite field walk's plan."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from plumbline.store import schema as s
from plumbline.store.read.idlist import ByIds, in_ids
from plumbline.store.read.walks import _field_walk_statement

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _insert_namespaces(conn: Connection, count: int = 3000) -> None:
    """``count`` namespaces named ``ns0``, ``ns1``, … (a long list of ids to look up)."""
    conn.execute(
        sa.insert(s.namespaces),
        [{"name": f"ns{i}", "created_at": NOW, "updated_at": NOW} for i in range(count)],
    )


def test_in_ids_selects_exactly_the_listed_ids_with_one_statement_text(engine: Engine) -> None:
    with engine.begin() as conn:
        _insert_namespaces(conn)
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


def test_by_ids_selects_exactly_the_listed_ids(engine: Engine) -> None:
    with engine.begin() as conn:
        _insert_namespaces(conn)
        ids = list(conn.execute(sa.select(s.namespaces.c.id).order_by(s.namespaces.c.id)).scalars())
    by_ids = ByIds(sa.select(s.namespaces.c.id, s.namespaces.c.name), s.namespaces.c.id)
    with engine.connect() as conn:
        for wanted in ([], [ids[5]], [ids[0], ids[0], ids[-1], max(ids) + 1000], ids[::2]):
            rows = conn.execute(by_ids(conn), {"ids": wanted}).all()
            assert sorted(pk for pk, _ in rows) == sorted(set(wanted) & set(ids))
            assert all(name == f"ns{ids.index(pk)}" for pk, name in rows)


@pytest.mark.postgres
def test_by_ids_looks_each_id_up_by_index_on_postgresql(pg_engine: Engine) -> None:
    """Given 1,500 of 3,000 ids, PostgreSQL plans ``= ANY`` as a scan of the whole table; the
    ``ByIds`` form stays one index lookup per id."""
    with pg_engine.begin() as conn:
        _insert_namespaces(conn)
        conn.execute(sa.text("ANALYZE namespaces"))
        ids = list(conn.execute(sa.select(s.namespaces.c.id).order_by(s.namespaces.c.id)).scalars())
    query = sa.select(s.namespaces.c.id, s.namespaces.c.name)

    def plan(statement: sa.Select[Any]) -> str:
        sql = str(statement.compile(dialect=pg_engine.dialect))
        with pg_engine.connect() as conn:
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            cursor.execute("EXPLAIN " + sql, {"ids": ids[::2]})
            return "\n".join(row[0] for row in cursor.fetchall())

    assert "Seq Scan on namespaces" in plan(query.where(in_ids(s.namespaces.c.id)))
    lateral = plan(ByIds(query, s.namespaces.c.id).postgresql)
    assert "Index Scan using pk_namespaces" in lateral
    assert "Seq Scan" not in lateral
