"""Schema migrations (Alembic), run programmatically: `plumbline db upgrade` and server start-up."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

from plumbline.store.errors import SchemaTooNewError

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def _alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["engine"] = engine
    return config


def head_revision() -> str:
    """The newest revision this code knows."""
    script = ScriptDirectory(str(MIGRATIONS_DIR))
    head = script.get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at (None for an empty database)."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def check_not_newer(engine: Engine) -> None:
    """Raise :class:`SchemaTooNewError` when the database was migrated by a newer plumbline."""
    current = current_revision(engine)
    if current is None:
        return
    script = ScriptDirectory(str(MIGRATIONS_DIR))
    try:
        script.get_revision(current)
    except Exception as exc:  # alembic raises a few kinds for an unknown revision
        raise SchemaTooNewError(
            f"the database schema is at revision {current!r}, which this version of plumbline "
            f"does not know (its newest is {head_revision()!r}); upgrade plumbline instead"
        ) from exc


def upgrade(engine: Engine) -> str:
    """Migrate the database to the newest revision; refuses a newer schema. Returns the revision."""
    check_not_newer(engine)
    command.upgrade(_alembic_config(engine), "head")
    return head_revision()
