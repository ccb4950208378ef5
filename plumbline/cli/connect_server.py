"""`plumbline connect-server`: a Spark Connect server whose driver captures lineage."""

from __future__ import annotations

import signal
import sys
import threading
from typing import Any

import click

from plumbline.cli.options import capture_options


def _conf_pairs(values: tuple[str, ...]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for value in values:
        key, sep, setting = value.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {value!r}", param_hint="--conf")
        pairs[key.strip()] = setting
    return pairs


@click.command("connect-server")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on.")
@click.option(
    "--port", type=int, default=15002, show_default=True, help="Port (0 picks a free port)."
)
@click.option("--master", default="local[*]", show_default=True, help="Spark master URL.")
@click.option(
    "--app-name",
    default="plumbline_connect_server",
    show_default=True,
    help="Spark application name (the first part of every job's name).",
)
@click.option(
    "--conf", "confs", multiple=True, metavar="KEY=VALUE", help="Spark configuration (repeatable)."
)
@capture_options
def connect_server(
    host: str, port: int, master: str, app_name: str, confs: tuple[str, ...], **capture: Any
) -> None:
    """Serve Spark Connect clients from a driver with lineage capture enabled (pyspark 4).

    Clients connect with SparkSession.builder.remote("sc://HOST:PORT"); their actions are
    captured as a classic PySpark job's would be. The first line printed is
    `plumbline connect server on sc://HOST:PORT`; SIGINT or SIGTERM stops it.
    """
    from plumbline.spark.connect import start_server

    try:
        session, handle = start_server(host, port, master, app_name, _conf_pairs(confs), **capture)
    except RuntimeError as exc:
        raise click.ClickException(str(exc)) from exc
    bound = session.sparkContext.getConf().get("spark.connect.grpc.binding.port")
    click.echo(f"plumbline connect server on sc://{host}:{bound}", nl=True)
    if handle is None:
        click.echo("plumbline: capture is not enabled (see the warning above)", err=True)
    sys.stdout.flush()
    stopped = threading.Event()

    def stop(signum: int, frame: Any) -> None:
        stopped.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while not stopped.wait(1.0):
        pass
    session.stop()  # delivers what the capture holds, then stops Spark
