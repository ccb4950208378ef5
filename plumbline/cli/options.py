"""Click options that several subcommands share, and the checks they make before anything runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

DEFAULT_SERVER_URL = "http://127.0.0.1:5000"


def check_db_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A database URL plumbline can store lineage in (SQLite or PostgreSQL with an installed
    driver), refused as a usage error otherwise, before anything connects."""
    if value is None:
        return None
    from plumbline.store import UnsupportedDatabaseURLError, check_store_url

    try:
        check_store_url(value)
    except UnsupportedDatabaseURLError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


db_option = click.option(
    "--db",
    "db_url",
    envvar="PLUMBLINE_DB",
    callback=check_db_url,
    help="Database URL (default: PLUMBLINE_DB, else an SQLite file in the user data dir).",
)

PORT = click.IntRange(0, 65535)


class ScriptPath(click.Path):
    """An existing file, for a command that passes unknown options through: a first argument
    that looks like an option is a mistyped option (``run --bogus x.py``), not a script."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.startswith("-") and value != "-":
            raise click.NoSuchOption(value, ctx=ctx)
        return super().convert(value, param, ctx)


def url_option(help: str, *, from_env: bool = True) -> Callable[[F], F]:
    """``--url``: the server a command asks or sends to. With ``from_env`` it falls back to
    ``PLUMBLINE_URL``, then the local server; without, it is None unless given (the capture
    reads ``PLUMBLINE_URL`` itself, after the Spark conf)."""
    if not from_env:
        return click.option("--url", default=None, help=help)
    return click.option(
        "--url",
        envvar="PLUMBLINE_URL",
        default=DEFAULT_SERVER_URL,
        show_default=True,
        show_envvar=True,
        help=help,
    )


def api_key_option(
    help: str = "Sent as 'Authorization: Bearer KEY'.", *, from_env: bool = True
) -> Callable[[F], F]:
    """``--api-key``: the bearer token sent with each request; ``PLUMBLINE_API_KEY`` with
    ``from_env``."""
    if not from_env:
        return click.option("--api-key", default=None, help=help)
    return click.option("--api-key", envvar="PLUMBLINE_API_KEY", show_envvar=True, help=help)


def capture_options(command: click.decorators.FC) -> click.decorators.FC:
    """The capture's settings as options (`--transport`, `--url`, `--api-key`, `--path`,
    `--namespace`), passed to the command as keyword arguments of the same names."""
    from plumbline.transports.config import TRANSPORT_TYPES

    for option in reversed(
        [
            click.option(
                "--transport",
                type=click.Choice(TRANSPORT_TYPES),
                default=None,
                help="Where events go (default: Spark conf, then PLUMBLINE_TRANSPORT_TYPE).",
            ),
            url_option("OpenLineage URL for the http transport.", from_env=False),
            api_key_option("API key sent as a Bearer token.", from_env=False),
            click.option("--path", default=None, help="JSON Lines file for the file transport."),
            click.option("--namespace", default=None, help="Job namespace (default: 'default')."),
        ]
    ):
        command = option(command)
    return command
