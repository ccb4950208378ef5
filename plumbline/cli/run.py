"""`plumbline run SCRIPT [ARGS...]`: run a PySpark script with lineage capture switched on."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from plumbline.cli.options import ScriptPath, capture_options

if TYPE_CHECKING:
    from plumbline.spark.settings import CaptureSettings


@click.command(
    "run",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@capture_options
@click.argument("script", type=ScriptPath(exists=True, dir_okay=False))
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
    settings = _check_transport(transport, url, path)
    kind = settings.transport_type
    if kind == "console":
        _print_console_events()
    click.echo(
        _capture_line(
            kind,
            settings.url,
            settings.path,
            explicit=transport is not None or _env("TRANSPORT_TYPE"),
        ),
        err=True,
    )
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


def _check_transport(transport: str | None, url: str | None, path: str | None) -> CaptureSettings:
    """The settings the capture will use, refused as a usage error before Spark starts when they
    cannot work (an unknown type, http without a URL or with a bad one, file without a path).
    Resolved and checked as the capture does (`resolve`, `CaptureSettings.transport_config`);
    the Spark configuration may also set them, this checks what the command line and
    environment say."""
    from plumbline.spark.errors import SettingsError
    from plumbline.spark.settings import resolve
    from plumbline.transports.errors import TransportConfigError

    try:
        settings = resolve({"type": transport, "url": url, "path": path}, {}, quiet=True)
    except SettingsError as exc:
        raise click.BadParameter(str(exc), param_hint="PLUMBLINE_TRANSPORT_TYPE") from None
    try:
        settings.transport_config()
    except TransportConfigError as exc:
        hint = _WHERE.get(settings.transport_type, "")
        raise click.UsageError(f"{exc} ({hint})" if hint else str(exc)) from None
    return settings


# what a transport's destination is given with
_WHERE = {"http": "--url URL or PLUMBLINE_URL", "file": "--path FILE or PLUMBLINE_PATH"}


def _env(name: str) -> bool:
    return bool(os.environ.get(f"PLUMBLINE_{name}"))


def _capture_line(kind: str, url: str | None, path: str | None, *, explicit: bool) -> str:
    """The one line that says capture is on and where its events go."""
    from pathlib import Path

    from plumbline.openlineage.urls import lineage_endpoint, redact_url

    if kind == "http":
        where = redact_url(lineage_endpoint(url or ""))
        return f"plumbline: lineage capture on: events go to {where}"
    if kind == "file":
        where = str(Path(path or "").absolute())
        return f"plumbline: lineage capture on: events go to the file {where}"
    if explicit:
        return "plumbline: lineage capture on: events are printed on stderr"
    return (
        "plumbline: lineage capture on, but no --url or --transport given: events are printed "
        "on stderr, not sent anywhere (send them to a server with --url http://HOST:PORT)"
    )


def _print_console_events() -> None:
    """The console transport logs each event: print them on stderr."""
    import logging

    from plumbline.transports.console import LOGGER_NAME

    logger = logging.getLogger(LOGGER_NAME)
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
