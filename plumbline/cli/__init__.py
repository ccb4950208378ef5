"""The `plumbline` command: a click group whose subcommands live in one module each.

Subcommands are imported lazily so that `plumbline serve` never imports Spark and
`plumbline run` never imports the server.
"""

from __future__ import annotations

import importlib

import click

from plumbline import __version__

# command name -> "module:attribute" of its click command
_COMMANDS: dict[str, str] = {
    "serve": "plumbline.cli.serve:serve",
    "db": "plumbline.cli.db:db",
    "demo": "plumbline.cli.demo:demo",
    "run": "plumbline.cli.run:run",
    "replay": "plumbline.cli.replay:replay",
    "token": "plumbline.cli.token:token",
    "impact": "plumbline.cli.impact:impact",
    "rerun-plan": "plumbline.cli.rerun_plan:rerun_plan",
    "diff": "plumbline.cli.run_analysis:diff",
    "root-cause": "plumbline.cli.run_analysis:root_cause",
}


class _LazyGroup(click.Group):
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
