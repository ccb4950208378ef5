"""`plumbline run SCRIPT [ARGS...]`: run a PySpark script with lineage capture switched on."""

from __future__ import annotations

import sys

import click


@click.command(
    "run",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.option(
    "--transport",
    type=click.Choice(["http", "file", "console"]),
    default=None,
    help="Where events go (default: Spark conf, then PLUMBLINE_TRANSPORT_TYPE).",
)
@click.option("--url", default=None, help="OpenLineage URL for the http transport.")
@click.option("--api-key", default=None, help="API key sent as a Bearer token.")
@click.option("--path", default=None, help="JSON Lines file for the file transport.")
@click.option("--namespace", default=None, help="Job namespace (default: 'default').")
@click.argument("script", type=click.Path(exists=True, dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(
    transport: str | None,
    url: str | None,
    api_key: str | None,
    path: str | None,
    namespace: str | None,
    script: str,
    args: tuple[str, ...],
) -> None:
    """Run SCRIPT (a PySpark program) with capture enabled on every SparkSession it creates."""
    from plumbline.spark.instrument import run_script

    code = run_script(
        script,
        list(args),
        transport=transport,
        url=url,
        api_key=api_key,
        path=path,
        namespace=namespace,
    )
    sys.exit(code)
