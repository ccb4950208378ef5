"""`plumbline replay FILE`: post a JSON Lines file of OpenLineage events to a server."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
from rich.table import Table

from plumbline.cli.options import api_key_option, url_option
from plumbline.openlineage.urls import lineage_endpoint, redact_url
from plumbline.transports import HttpTransport, TransportConfig, TransportConfigError
from plumbline.transports.replay import Problem, Replayer, read_lines, write_failed

_SHOW_AT_MOST = 50  # per kind of problem; the .failed.jsonl file holds them all


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@url_option("Server base URL (gets /api/v1/lineage appended) or a full endpoint URL.")
@api_key_option()
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Events per request (a JSON array); 1 posts single events.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds per request.",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="Retries of a request after 5xx or connection errors.",
)
@click.option(
    "--backoff",
    type=click.FloatRange(min=0),
    default=0.5,
    show_default=True,
    help="First retry delay in seconds (doubles each retry, at most 8 s).",
)
def replay(
    file: Path,
    url: str,
    api_key: str | None,
    batch_size: int,
    timeout: float,
    retries: int,
    backoff: float,
) -> None:
    """Post the events in FILE (JSON Lines: a file transport's output or a spill file).

    Lines that could not be delivered are written to FILE.failed.jsonl; the exit code is 1 then.
    """
    try:
        config = TransportConfig(type="http", url=url, api_key=api_key, timeout=timeout)
    except TransportConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="--url") from None
    endpoint = redact_url(lineage_endpoint(url))
    out = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True)
    out.print(f"Replaying {file} to {endpoint}", markup=False)

    transport = HttpTransport(config)
    replayer = Replayer(transport, batch_size=batch_size, retries=retries, backoff=backoff)
    progress = Progress(
        TextColumn("replay"),
        BarColumn(),
        DownloadColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )
    try:
        with progress:
            task = progress.add_task("replay", total=file.stat().st_size)
            report = replayer.replay(read_lines(file, lambda n: progress.advance(task, n)))
    finally:
        transport.close()

    table = Table(show_header=True, header_style="bold")
    table.add_column("sent", justify="right")
    table.add_column("rejected", justify="right")
    table.add_column("unparsable", justify="right")
    table.add_column("undelivered", justify="right")
    table.add_row(
        str(report.sent),
        str(len(report.rejected)),
        str(len(report.unparsable)),
        str(len(report.undelivered)),
    )
    out.print(table)
    _print_problems(out, "unparsable", report.unparsable)
    _print_problems(out, "rejected", report.rejected)
    _print_problems(out, "undelivered", report.undelivered)
    if report.ok:
        done = f"all {report.sent} event(s) delivered" if report.sent else f"no events in {file}"
        out.print(done, markup=False)
        return
    failed = file.with_name(file.name + ".failed.jsonl")
    problems = report.problems
    write_failed(failed, problems)
    out.print(f"wrote {len(problems)} undelivered line(s) to {failed}", markup=False)
    click.get_current_context().exit(1)


def _print_problems(out: Console, kind: str, problems: list[Problem]) -> None:
    for problem in problems[:_SHOW_AT_MOST]:
        out.print(f"line {problem.line.number}: {kind}: {problem.reason}", markup=False)
    if len(problems) > _SHOW_AT_MOST:
        out.print(f"… and {len(problems) - _SHOW_AT_MOST} more {kind} line(s)", markup=False)
