"""`plumbline batches RUN_ID`: the micro-batches of a streaming run (its sources' offsets, versions
read, files added, and the versions its sinks committed), asked of a server."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import click
from rich.table import Table

from plumbline.cli.client import console, format_option, get, server_options, show
from plumbline.cli.run_ids import resolve_run

PAGE = 100  # batches asked per request (the server's default page)


@click.command()
@click.argument("run")
@click.option("--limit", type=click.IntRange(1, 100_000), default=PAGE, show_default=True,
              help="Batches listed.")  # fmt: skip
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True,
              help="Batches skipped (by batch id).")  # fmt: skip
@format_option("table", "json", row="batch")
@server_options
def batches(
    run: str,
    limit: int,
    offset: int,
    output_format: str,
    url: str,
    api_key: str | None,
    timeout: float,
) -> None:
    """The micro-batches of a streaming run RUN, by batch id: each source's offsets (Kafka per
    partition), versions read and files added, and the version each sink committed.

    RUN is a run id (or its first or last characters)."""
    run_id = resolve_run(url, api_key, timeout, run)
    path = f"/api/v1/jobs/runs/{quote(run_id, safe='')}/batches"
    response = get(url, api_key, timeout, path, {"limit": limit, "offset": offset})
    show(response, output_format, print_batches)


def _source(source: dict[str, Any]) -> list[str]:
    """One line per thing a source read: a Kafka partition's offsets, a table's versions, a file
    source's files."""
    if source["partitions"]:
        return [
            f"{source['namespace'] or ''} {p['topic']}[{p['partition']}] "
            f"{p['startOffset']}-{p['endOffset']}" + (" (backward)" if p["offsetsBackward"] else "")
            for p in source["partitions"]
        ]
    name = f"{source['namespace']}:{source['name']}" if source["name"] else source["description"]
    parts = [name or "?"]
    if source["endVersion"] is not None:
        parts.append(f"versions {source['startVersion']}-{source['endVersion']}")
    if source["filesAdded"] is not None:
        parts.append(f"{source['filesAdded']} file(s) added")
    return [" ".join(parts)]


def print_batches(body: dict[str, Any]) -> None:
    """The batches as a table, one row per batch."""
    out = console()
    shown = body["batches"]
    out.print(f"run {body['runId']}: {body['totalCount']} batch(es)", markup=False)
    if not shown:
        return
    table = Table(show_header=True, header_style="bold")
    for column in ("batch", "time", "rows", "read", "wrote"):
        table.add_column(column)
    for batch in shown:
        read = [line for source in batch["sources"] for line in _source(source)]
        wrote = [
            f"{s['namespace']}:{s['name']}"
            + (f" version {s['version']}" if s["version"] is not None else "")
            for s in batch["sinks"]
        ]
        table.add_row(
            str(batch["batchId"]) + (" (offsets backward)" if batch["offsetsBackward"] else ""),
            batch["timestamp"] or "",
            "" if batch["numInputRows"] is None else str(batch["numInputRows"]),
            "\n".join(read),
            "\n".join(wrote),
        )
    out.print(table)
    if len(shown) < body["totalCount"]:
        out.print(f"{len(shown)} of {body['totalCount']} shown (--limit, --offset)", markup=False)
