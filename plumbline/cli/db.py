"""`plumbline db upgrade`: apply schema migrations."""

from __future__ import annotations

import click

from plumbline.store.engine import create_store_engine, default_db_url


@click.group()
def db() -> None:
    """Manage the store's database."""


@db.command()
@click.option(
    "--db",
    "db_url",
    envvar="PLUMBLINE_DB",
    help="Database URL (default: PLUMBLINE_DB, else the user data dir's SQLite file).",
)
def upgrade(db_url: str | None) -> None:
    """Migrate the database to the newest schema."""
    from plumbline.store.errors import StoreError
    from plumbline.store.migrate import current_revision
    from plumbline.store.migrate import upgrade as run_upgrade

    engine = create_store_engine(db_url or default_db_url())
    before = current_revision(engine)
    try:
        after = run_upgrade(engine)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"database at revision {after} (was {before or 'empty'})")
