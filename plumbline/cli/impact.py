"""`plumbline impact NODE`: what a dataset, job or field feeds (or comes from), asked of a server."""

from __future__ import annotations

from typing import Any

import click
from rich.table import Table

from plumbline.cli.client import (
    console,
    format_option,
    get,
    server_options,
    show,
    truncation_note,
)
from plumbline.cli.names import job_short
from plumbline.cli.run_ids import short_id
from plumbline.cli.since import since_option


@click.command()
@click.argument("node")
@click.option("--upstream", is_flag=True, help="Where NODE comes from instead of what it feeds.")
@click.option(
    "--depth", type=int, help="Edges to walk (default: all, up to the server's cap of 50)."
)
@click.option("--namespace", multiple=True, help="List only nodes of this namespace (repeatable).")
@click.option(
    "--type",
    "types",
    multiple=True,
    type=click.Choice(["DATASET", "JOB", "DATASET_FIELD"], case_sensitive=False),
    help="List only nodes of this type (repeatable).",
)
@since_option("Walk only edges seen at or after this time")
@click.option(
    "--min-confidence",
    type=click.Choice(["partial", "complete"]),
    help="Walk only edges at least this complete (inferred < partial < complete).",
)
@format_option("table", "json", "csv")
@server_options
def impact(
    node: str,
    upstream: bool,
    depth: int | None,
    namespace: tuple[str, ...],
    types: tuple[str, ...],
    since: str | None,
    min_confidence: str | None,
    output_format: str,
    url: str,
    api_key: str | None,
    timeout: float,
) -> None:
    """What NODE feeds, by distance (or with --upstream, where it comes from).

    NODE is dataset:NS:NAME, job:NS:NAME or datasetField:NS:NAME:FIELD (column mode).
    """
    params: dict[str, Any] = {
        "nodeId": node,
        "direction": "upstream" if upstream else "downstream",
        "depth": depth,
        "namespace": list(namespace) or None,
        "type": [t.upper() for t in types] or None,
        "since": since,
        "minConfidence": min_confidence,
        "format": "csv" if output_format == "csv" else "json",
    }
    show(get(url, api_key, timeout, "/api/v1/impact", params), output_format, print_impact)


def _when(node: dict[str, Any]) -> tuple[str, str]:
    """The last run (jobs) or current version (datasets, fields) of a node, and its time."""
    if node["type"] == "JOB":
        run = node.get("lastRun")
        if not run:
            return "no run", ""
        return f"{run['state']} {short_id(run['id'])}", run.get("endedAt") or run.get(
            "startedAt"
        ) or ""
    version = node.get("lastVersion")
    if not version:
        return "no version", ""
    return short_id(str(version["version"])), version.get("createdAt") or ""


def _node(node: dict[str, Any]) -> str:
    """A job's short name first, then its id; other nodes by their id."""
    if node["type"] != "JOB":
        return str(node["id"])
    short = job_short(str(node["name"]))
    return str(node["id"]) if short == node["name"] else f"{short} ({node['id']})"


def print_impact(body: dict[str, Any]) -> None:
    """The answer as a table, nearest first."""
    out = console()
    column = body["mode"] == "column"
    table = Table(show_header=True, header_style="bold")
    table.add_column("distance", justify="right")
    table.add_column("type")
    table.add_column("node")
    if column:
        table.add_column("via")
        table.add_column("indirect only")
    table.add_column("last run / version")
    table.add_column("at")
    for node in body["nodes"]:
        if node["distance"] == 0:
            continue
        row = [str(node["distance"]), node["type"], _node(node)]
        if column:
            hops = node.get("pathTransformations") or [[]]
            row.append(", ".join(f"{t['type']}/{t['subtype']}" for t in hops[-1]))
            row.append("yes" if node.get("indirectOnly") else "")
        row.extend(_when(node))
        table.add_row(*row)
    listed = len(body["nodes"]) - 1
    what = "feeds" if body["direction"] == "downstream" else "comes from"
    out.print(f"{body['nodeId']} {what} {listed} node(s)", markup=False)
    if listed:
        out.print(table)
    notes = []
    if body.get("hiddenNodes"):
        notes.append(f"{body['hiddenNodes']} more node(s) this token may not read")
    if truncation_note(body):
        notes.append(str(truncation_note(body)))
    for note in notes:
        out.print(note, markup=False)
