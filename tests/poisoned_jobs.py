"""A database that refuses one job: a real failure in the middle of normalization (a trigger on
``jobs``, SQLite and PostgreSQL), and the cure."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Engine


def poison_job(engine: Engine, name: str) -> None:
    """A trigger that makes the database refuse to create job ``name`` ('poisoned job')."""
    with engine.begin() as connection:
        if engine.dialect.name == "sqlite":
            connection.execute(
                sa.text(
                    "CREATE TRIGGER poison BEFORE INSERT ON jobs "
                    f"WHEN NEW.name = '{name}' BEGIN SELECT RAISE(ABORT, 'poisoned job'); END"
                )
            )
            return
        connection.execute(
            sa.text(
                "CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                f"IF NEW.name = '{name}' THEN RAISE EXCEPTION 'poisoned job'; END IF; "
                "RETURN NEW; END $$"
            )
        )
        connection.execute(
            sa.text(
                "CREATE TRIGGER poison BEFORE INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION poison()"
            )
        )


def cure_jobs(engine: Engine) -> None:
    """Drop what :func:`poison_job` made."""
    with engine.begin() as connection:
        if engine.dialect.name == "sqlite":
            connection.execute(sa.text("DROP TRIGGER poison"))
            return
        connection.execute(sa.text("DROP TRIGGER poison ON jobs"))
        connection.execute(sa.text("DROP FUNCTION poison()"))
