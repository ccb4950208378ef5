"""The `plumbline` command: a click group whose subcommands live in one module each.

Subcommands are imported lazily so that `plumbline serve` never imports Spark and
`plumbline run` never imports the server.
"""

from __future__ import annotations

import importlib
import os

import click

from plumbline import __version__

# command name -> "module:attribute" of its click command
_COMMANDS: dict[str, str] = {
    "serve": "plumbline.cli.serve:serve",
    "db": "plumbline.cli.db:db",
    "demo": "plumbline.cli.demo:demo",
    "run": "plumbline.cli.run:run",
    "connect-server": "plumbline.cli.connect_server:connect_server",
    "replay": "plumbline.cli.replay:replay",
    "extract-eventlogs": "plumbline.cli.extract_eventlogs:extract_eventlogs",
    "token": "plumbline.cli.token:token",
    "impact": "plumbline.cli.impact:impact",
    "rerun-plan": "plumbline.cli.rerun_plan:rerun_plan",
    "diff": "plumbline.cli.run_analysis:diff",
    "root-cause": "plumbline.cli.run_analysis:root_cause",
    "export": "plumbline.cli.export:export",
    "check": "plumbline.cli.check:check",
    "declare": "plumbline.cli.declare:declare",
    "expect": "plumbline.cli.expect:expect",
    "baseline": "plumbline.cli.baseline:baseline",
    "coverage": "plumbline.cli.coverage:coverage",
    "classifications": "plumbline.cli.classifications:classifications",
    "version-lineage": "plumbline.cli.version_lineage:version_lineage",
    "batches": "plumbline.cli.batches:batches",
}


def one_line(exc: BaseException) -> str:
    """An unexpected error as the one line a person reads: its first line; for a database error,
    what the driver said, and whether the database could not be reached (no statement ran), the
    connection was lost, or a statement failed."""
    from sqlalchemy.exc import DBAPIError

    if isinstance(exc, DBAPIError) and exc.orig:
        if exc.statement is None:
            text = f"cannot reach the database: {exc.orig}"
        elif exc.connection_invalidated:
            text = f"lost the connection to the database: {exc.orig}"
        else:
            text = f"a database statement failed: {exc.orig}"
    else:
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


class _LazyGroup(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        """Every subcommand's unexpected error ends as one readable line and exit status 1, not
        a traceback (``PLUMBLINE_DEBUG=1`` shows the traceback)."""
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:
            if os.environ.get("PLUMBLINE_DEBUG"):
                raise
            raise click.ClickException(
                f"{one_line(exc)} (PLUMBLINE_DEBUG=1 shows the traceback)"
            ) from exc

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # the subcommand is not built yet
                return None
            raise
        command: click.Command = getattr(module, attr)
        return command


@click.group(cls=_LazyGroup)
@click.version_option(__version__, prog_name="plumbline")
def main() -> None:
    """plumbline: data lineage for Spark pipelines (OpenLineage in, lineage out)."""
