"""`plumbline extract-eventlogs PATH…`: lineage from Spark event logs, extracted on Spark."""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from plumbline.cli.options import api_key_option, url_option
from plumbline.cli.since import since_option
from plumbline.openlineage.urls import redact_url

_MAX_PATHS = 10_000
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_SHOW_AT_MOST = 50


@contextmanager
def _stopping_on_signals(options: Any) -> Iterator[None]:
    """With --follow, Ctrl-C and SIGTERM stop the following cleanly (the loop ends after its
    current poll); the handlers before are restored after."""
    if options is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    stop: threading.Event = options.stop
    before = {number: signal.getsignal(number) for number in _SIGNALS}
    for number in _SIGNALS:
        signal.signal(number, lambda *_: stop.set())
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


@click.command("extract-eventlogs")
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--master", default=None, help="Spark master URL (default: local[*], or spark-submit's)."
)
@url_option("Post the events to this server (base URL or endpoint).", from_env=False)
@api_key_option("Sent as 'Authorization: Bearer KEY' with --url.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write the events as JSON Lines files under this folder, one per log (instead of --url).",
)
@click.option(
    "--namespace",
    default=None,
    help="Job namespace (default: spark.plumbline.namespace in the log, else 'default').",
)
@since_option("Only logs changed since then")
@click.option(
    "--state",
    "state_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="A JSON file recording the logs read: unchanged logs are not read again.",
)
@click.option(
    "--batch-size",
    type=click.IntRange(1, 10_000),
    default=100,
    show_default=True,
    help="Events per request with --url.",
)
@click.option(
    "--follow",
    is_flag=True,
    help="Then keep tailing the logs of running applications, emitting each execution as it ends.",
)
@click.option(
    "--poll-interval",
    type=click.FloatRange(0.05, 3600),
    default=5.0,
    show_default=True,
    help="Seconds between two reads of the followed logs (with --follow).",
)
@click.option(
    "--follow-timeout",
    type=click.FloatRange(0, None),
    default=None,
    help="Stop following after this many seconds (default: until Ctrl-C or SIGTERM).",
)
@click.option(
    "--progress",
    "progress_every",
    type=click.FloatRange(0, None),
    default=10.0,
    show_default=True,
    help="Seconds between two progress lines on stderr while it runs (0: none).",
)
def extract_eventlogs(
    paths: tuple[str, ...],
    master: str | None,
    url: str | None,
    api_key: str | None,
    out: Path | None,
    namespace: str | None,
    since: str | None,
    state_file: Path | None,
    batch_size: int,
    follow: bool,
    poll_interval: float,
    follow_timeout: float | None,
    progress_every: float,
) -> None:
    """Extract lineage from Spark event logs: files, rolling eventlog_v2_* folders, or folders of them.

    Each SQL execution that wrote a dataset becomes OpenLineage START and COMPLETE (or FAIL)
    events, with the run id and job name live capture gives it. Logs of applications still running
    are skipped, unless --follow is given: then they are tailed (every --poll-interval seconds)
    until Ctrl-C, SIGTERM or --follow-timeout. A log that cannot be read is reported with its reason; the exit code is 1 then.
    """
    if (url is None) == (out is None):
        raise click.UsageError("give one of --url SERVER or --out DIR")
    if len(paths) > _MAX_PATHS:
        raise click.UsageError(f"at most {_MAX_PATHS} paths (give their folder instead)")
    if url is not None:
        from plumbline.transports import TransportConfig, TransportConfigError

        try:
            TransportConfig(type="http", url=url, api_key=api_key)
        except TransportConfigError as exc:
            raise click.BadParameter(str(exc), param_hint="--url") from None
    if namespace is not None and not namespace.strip():
        raise click.BadParameter("must not be empty", param_hint="--namespace")
    from datetime import datetime

    from plumbline.eventlogs.errors import EventLogError
    from plumbline.eventlogs.incremental import read_state

    since_epoch = (
        datetime.fromisoformat(since.replace("Z", "+00:00")).timestamp() if since else None
    )
    try:
        read_state(state_file)
    except EventLogError as exc:
        raise click.BadParameter(str(exc), param_hint="--state") from None
    from plumbline.eventlogs.job import FollowOptions, run_extraction
    from plumbline.eventlogs.progress import Progress
    from plumbline.eventlogs.task import Target

    # local tasks run this interpreter, which has plumbline (PySpark reads only the environment)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    target = Target(
        url=url,
        api_key=api_key,
        out=str(out.resolve()) if out is not None else None,
        namespace=namespace,
        batch_size=batch_size,
    )
    console = Console(highlight=False, soft_wrap=True)
    where = redact_url(url) if url is not None else str(out)
    console.print(f"Extracting lineage from {len(paths)} path(s) to {where}", markup=False)
    progress = None
    if progress_every > 0:
        progress = Progress(progress_every, lambda line: click.echo(line, err=True))
    options = FollowOptions(poll_interval, follow_timeout) if follow else None
    with _stopping_on_signals(options):
        report = run_extraction(
            list(paths),
            target,
            master=master,
            since=since_epoch,
            state_file=state_file,
            progress=progress,
            follow=options,
        )
    for result in [r for r in report.results if r.status != "ok"][:_SHOW_AT_MOST]:
        console.print(f"{result.status}: {result.path}: {result.reason}", markup=False)
    for result in [r for r in report.results if r.unnamed][:_SHOW_AT_MOST]:
        console.print(
            f"warning: {result.path}: {result.unnamed} write(s) without an output: {result.note}",
            markup=False,
        )
    seconds = max(report.seconds, 1e-9)
    done = [r for r in report.results if r.status == "ok"]
    table = Table(show_header=True, header_style="bold")
    for column in (
        "logs ok",
        "failed",
        "skipped",
        "executions",
        "events sent",
        "MB read",
        "seconds",
    ):
        table.add_column(column, justify="right")
    table.add_row(
        str(len(done)),
        str(len(report.failed)),
        str(sum(r.status == "skipped" for r in report.results)),
        str(report.total("executions")),
        str(report.total("sent")),
        f"{report.total('bytes') / 1e6:.2f}",
        f"{report.seconds:.1f}",
    )
    console.print(table)
    console.print(
        f"{len(done) / seconds:.2f} logs/s, {report.total('executions') / seconds:.1f} executions/s, "
        f"{report.total('bytes') / 1e6 / seconds:.2f} MB/s",
        markup=False,
    )
    if report.failed:
        click.get_current_context().exit(1)
