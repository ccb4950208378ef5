"""`plumbline token create|list|revoke`: manage the server's bearer tokens."""

from __future__ import annotations

import click

from plumbline.cli.options import db_option
from plumbline.cli.stores import existing_store
from plumbline.store import Store


def _store(db_url: str | None) -> Store:
    """The existing store at ``db_url`` (a missing one is refused, exit 2), migrated to the newest
    schema (tokens live in the store's database)."""
    from plumbline.store import StoreError, upgrade

    store = existing_store(db_url)
    try:
        upgrade(store.engine)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    return store


@click.group()
def token() -> None:
    """Create, list and revoke bearer tokens for `plumbline serve --auth required`."""


@token.command()
@db_option
@click.option("--name", required=True, help="A unique name; writes are attributed to it.")
@click.option(
    "--scope",
    type=click.Choice(["read", "write", "admin"]),
    required=True,
    help="read < write < admin (each includes the ones before).",
)
@click.option(
    "--namespace",
    "namespaces",
    multiple=True,
    metavar="NS",
    help=(
        "Limit the token to this namespace, of jobs or of the datasets they write "
        "(repeatable; default: all namespaces)."
    ),
)
def create(db_url: str | None, name: str, scope: str, namespaces: tuple[str, ...]) -> None:
    """Create a token and print it (alone, on the last line). It is shown only once."""
    from plumbline.server import TokenError, create_token

    store = _store(db_url)
    try:
        secret = create_token(store.engine, name, scope, namespaces or None)
    except TokenError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        store.dispose()
    limited = ", ".join(sorted(set(namespaces))) if namespaces else "all namespaces"
    click.echo(f"created token {name!r} (scope {scope}, {limited}); it is shown only once:")
    click.echo(secret)


@token.command(name="list")
@db_option
def list_(db_url: str | None) -> None:
    """List tokens (never their secrets)."""
    from rich.console import Console
    from rich.table import Table

    from plumbline.server import list_tokens

    store = _store(db_url)
    try:
        tokens = list_tokens(store.engine)
    finally:
        store.dispose()
    table = Table("name", "scope", "namespaces", "created", "last used", "status")
    for info in tokens:
        table.add_row(
            info.name,
            info.scope,
            ", ".join(info.namespaces) if info.namespaces is not None else "*",
            info.created_at.strftime("%Y-%m-%d %H:%M"),
            info.last_used_at.strftime("%Y-%m-%d %H:%M") if info.last_used_at else "-",
            "active" if info.active else f"revoked {info.revoked_at:%Y-%m-%d %H:%M}",
        )
    Console(width=200).print(table)


@token.command()
@db_option
@click.argument("name")
def revoke(db_url: str | None, name: str) -> None:
    """Revoke the token NAME; requests with it get 401 from then on."""
    from plumbline.server import TokenError, revoke_token

    store = _store(db_url)
    try:
        revoke_token(store.engine, name)
    except TokenError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        store.dispose()
    click.echo(f"revoked token {name!r}")
