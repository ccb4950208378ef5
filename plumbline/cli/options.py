"""Click options that several subcommands share, and the checks they make before anything runs."""

from __future__ import annotations

from typing import Any

import click


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


def capture_options(command: click.decorators.FC) -> click.decorators.FC:
    """The capture's settings as options (`--transport`, `--url`, `--api-key`, `--path`,
    `--namespace`), passed to the command as keyword arguments of the same names."""
    for option in reversed(
        [
            click.option(
                "--transport",
                type=click.Choice(["http", "file", "console"]),
                default=None,
                help="Where events go (default: Spark conf, then PLUMBLINE_TRANSPORT_TYPE).",
            ),
            click.option("--url", default=None, help="OpenLineage URL for the http transport."),
            click.option("--api-key", default=None, help="API key sent as a Bearer token."),
            click.option("--path", default=None, help="JSON Lines file for the file transport."),
            click.option("--namespace", default=None, help="Job namespace (default: 'default')."),
        ]
    ):
        command = option(command)
    return command
