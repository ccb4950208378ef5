"""The store a command opens. Only ``serve`` and ``db upgrade`` (and ``demo``, which makes its own)
may create one, and they say so in one line first; every other command refuses a database that
holds no plumbline store (a missing SQLite file, a PostgreSQL database never migrated) in one line,
exit status 2, instead of creating an empty one at a mistyped path."""

from __future__ import annotations

import click
from sqlalchemy.exc import DBAPIError

from plumbline.openlineage.urls import redact_url
from plumbline.store import Store, default_db_url, sqlite_file


class NoStore(click.ClickException):
    """A database that holds no plumbline store: a usage error (exit status 2)."""

    exit_code = 2


def reachable(url: str) -> Store:
    """The store, once a connection to it has worked (a clear error otherwise)."""
    from sqlalchemy.exc import OperationalError

    store = Store.open(url)
    try:
        with store.connection():
            pass
    except OperationalError as exc:
        store.dispose()
        raise click.ClickException(f"cannot reach the database: {exc.orig}") from exc
    return store


def _hint() -> str:
    return "`plumbline db upgrade --db URL` or `plumbline serve --db URL` creates one"


def existing_store(db_url: str | None) -> Store:
    """The store at ``db_url`` (default: PLUMBLINE_DB's or the user data dir's),
    which must exist: refused with :class:`NoStore` otherwise, nothing created."""
    url = db_url or default_db_url()
    path = sqlite_file(url)
    if path is not None and not path.is_file():
        raise NoStore(f"no plumbline store at {path} (no such file): {_hint()}")
    store = reachable(url)
    from plumbline.store import current_revision

    try:
        revision = current_revision(store.engine)
    except DBAPIError:
        revision = None
    if revision is None:
        store.dispose()
        where = str(path) if path is not None else redact_url(url)
        raise NoStore(f"{where} holds no plumbline store (never migrated): {_hint()}")
    return store


def say_if_new(url: str) -> None:
    """Before ``serve`` or ``db upgrade`` creates a store: one line on stderr saying where (and
    which folders it makes). Nothing is said for an existing store or one out of reach."""
    path = sqlite_file(url)
    if path is not None:
        if path.exists():
            return
        missing = next((p for p in reversed(path.parents) if not p.exists()), None)
        folders = f" (and the folder {missing})" if missing is not None else ""
        click.echo(f"plumbline: creating a new store at {path}{folders}", err=True)
        return
    from plumbline.store import current_revision

    store = Store.open(url)
    try:
        if current_revision(store.engine) is None:
            click.echo(f"plumbline: creating a new store in {redact_url(url)}", err=True)
    except DBAPIError:
        pass  # out of reach: the command says so
    finally:
        store.dispose()
