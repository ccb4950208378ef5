"""Click options that several subcommands share."""

from __future__ import annotations

import click

db_option = click.option(
    "--db",
    "db_url",
    envvar="PLUMBLINE_DB",
    help="Database URL (default: PLUMBLINE_DB, else an SQLite file in the user data dir).",
)
