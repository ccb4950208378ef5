"""Statements run on the PostgreSQL driver directly still fail as SQLAlchemy's ``DBAPIError``, with
the database's SQLSTATE, which the writer's retries read."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from plumbline.store.write import driver
from plumbline.store.write.upsert import pipelined

DIVISION_BY_ZERO = driver.CompiledSql("SELECT 1 / %(zero)s", {})


def test_a_failing_statement_is_a_dbapi_error_with_its_sqlstate(pg_engine: Engine) -> None:
    with pg_engine.connect() as connection, pytest.raises(DBAPIError) as raised:
        driver.fetch(connection, DIVISION_BY_ZERO, {"zero": 0})
    assert getattr(raised.value.orig, "sqlstate", None) == "22012"
    assert not raised.value.connection_invalidated


def test_a_failure_in_a_pipeline_is_a_dbapi_error_with_its_sqlstate(pg_engine: Engine) -> None:
    with pg_engine.connect() as connection, pytest.raises(DBAPIError) as raised:
        with connection.begin(), pipelined(connection):
            driver.fetch(connection, DIVISION_BY_ZERO, {"zero": 0})
    assert getattr(raised.value.orig, "sqlstate", None) == "22012"
