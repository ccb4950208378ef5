"""The write path's per-event lookups and updates stay index-bounded as the store grows (issue 30):
a lookup of a batch's rows by key reads those rows through an index, never the whole table.

Two ways they used to scan (``bench/ingest_scale.py`` at 30,000 events: 1,136 rows read per event
against 276 at 3,000): psycopg prepares a statement after a few executions and PostgreSQL then
keeps a generic plan made while the table was small (a hash join over a sequential scan), and
``update_many``'s ``UPDATE … FROM json_to_recordset(…)`` was planned for 100 rows to update,
costed above a scan of the whole table. Counted with ``pg_stat_xact_user_tables`` (this
transaction's scans, seen at once), not timed.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from plumbline.store.schema import run_io, runs
from plumbline.store.write.upsert import select_in, update_many

pytestmark = pytest.mark.postgres

_RUN_IO = sa.select(run_io.c.run_id, run_io.c.dataset_id, run_io.c.direction)


def _seq_scans(connection: Connection, table: str) -> int:
    return int(
        connection.execute(
            sa.text("SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = :t"),
            {"t": table},
        ).scalar_one()
    )


def _grow(connection: Connection, count: int) -> None:
    """``count`` more runs of one job, each reading one dataset."""
    if not connection.execute(sa.text("SELECT count(*) FROM namespaces")).scalar_one():
        for statement in (
            "INSERT INTO namespaces (name, created_at, updated_at) VALUES ('ns', now(), now())",
            "INSERT INTO jobs (uuid, namespace_id, name, created_at, updated_at)"
            " SELECT gen_random_uuid()::text, id, 'job', now(), now() FROM namespaces",
            "INSERT INTO datasets (uuid, namespace_id, name, physical_name, created_at,"
            " updated_at) SELECT gen_random_uuid()::text, id, 'd', 'd', now(), now()"
            " FROM namespaces",
        ):
            connection.execute(sa.text(statement))
    newest = connection.execute(sa.text("SELECT coalesce(max(id), 0) FROM runs")).scalar_one()
    connection.execute(
        sa.text(
            "INSERT INTO runs (uuid, job_id, created_at, updated_at)"
            " SELECT gen_random_uuid()::text, j.id, now(), now()"
            " FROM jobs j, generate_series(1, :n)"
        ),
        {"n": count},
    )
    connection.execute(
        sa.text(
            "INSERT INTO run_io (run_id, dataset_id, direction, created_at)"
            " SELECT r.id, d.id, 'input', now() FROM runs r, datasets d WHERE r.id > :newest"
        ),
        {"newest": newest},
    )


def test_prepared_statements_are_planned_for_their_keys(pg_engine: Engine) -> None:
    """A generic plan made while a table was small is never kept (checked as the setting: when
    PostgreSQL swaps a custom plan for a generic one depends on its cost estimates)."""
    with pg_engine.connect() as connection:
        mode = connection.execute(sa.text("SHOW plan_cache_mode")).scalar_one()
        assert mode == "force_custom_plan"
        for _ in range(20):  # past psycopg's prepare threshold and PostgreSQL's 5 custom plans
            select_in(connection, _RUN_IO, [run_io.c.run_id], range(1, 51))  # a write's runs
        prepared = connection.execute(
            sa.text("SELECT generic_plans, custom_plans FROM pg_prepared_statements")
        ).all()
        assert prepared and all(generic == 0 for generic, _ in prepared)


def test_updates_by_id_read_an_index(pg_engine: Engine) -> None:
    with pg_engine.begin() as connection:
        _grow(connection, 20_000)  # where 100 updates by id were costed above a scan
        connection.execute(sa.text("ANALYZE runs"))  # the planner knows the table's size
        ids = connection.execute(sa.select(runs.c.id).order_by(runs.c.id).limit(50)).scalars()
        rows = [{"b_id": run_id, "current_state": "COMPLETE"} for run_id in ids]
        before = _seq_scans(connection, "runs")
        update_many(connection, runs, rows)
        assert _seq_scans(connection, "runs") == before
        done = connection.execute(
            sa.select(sa.func.count()).where(runs.c.current_state == "COMPLETE")
        ).scalar_one()
        assert done == 50
