"""`plumbline export`: the lineage SQL tables as files (Parquet, JSON Lines or CSV)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path

import click

from plumbline.cli.db import _store_at_newest_schema
from plumbline.cli.options import db_option
from plumbline.cli.since import since_option


def _day(since: str | None) -> date | None:
    """The UTC day of an RFC 3339 ``--since`` (export history is partitioned by day)."""
    return None if since is None else datetime.fromisoformat(since.replace("Z", "+00:00")).date()


@click.command()
@db_option
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder to write (created if missing; an earlier export there is updated).",
)
@click.option(
    "--format",
    "file_format",
    type=click.Choice(["parquet", "jsonl", "csv"]),
    default="parquet",
    show_default=True,
    help="File format.",
)
@since_option("History from this time's day on only", name="since_text")
@click.option("--full", is_flag=True, help="Rewrite everything instead of what changed.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def export(
    db_url: str | None,
    out: Path,
    file_format: str,
    since_text: str | None,
    full: bool,
    quiet: bool,
) -> None:
    """Write the lineage SQL tables (table_lineage, column_lineage, their edges, runs, jobs,
    datasets, dataset_versions, snapshot_lineage, stream_batch_lineage) to a folder, history
    tables partitioned by event_date; run again, only what changed is rewritten."""
    from plumbline.export import ExportError, ExportResult, export_tables

    since = _day(since_text)
    store = _store_at_newest_schema(db_url)

    def run(progress: Callable[[str, int], None] | None) -> ExportResult:
        try:
            return export_tables(
                store, out, file_format=file_format, since=since, full=full, progress=progress
            )
        except ExportError as exc:
            raise click.ClickException(str(exc)) from exc
        except OSError as exc:  # a folder it cannot make or write: said plainly, no class name
            reason = exc.strerror or str(exc)
            where = exc.filename or out
            raise click.ClickException(f"cannot write the export to {where}: {reason}") from exc

    if quiet:  # no progress bar: rich is not even imported (the start-up counts, issue 18)
        result = run(None)
    else:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
        with Progress(*columns, transient=True) as bar:
            task = bar.add_task("exporting", total=None)
            result = run(
                lambda table, rows: bar.update(task, description=f"{table}: {rows:,} rows")
            )
    kind = "incremental" if result.incremental else "full"
    total = sum(result.rows.values())
    click.echo(
        f"{kind} export to {out}: {total} rows in {result.files} files"
        f" ({result.removed} empty days removed) in {result.seconds:.1f} s"
    )
    for table, rows in result.rows.items():
        click.echo(f"  {table:<22} {rows:>10}")
