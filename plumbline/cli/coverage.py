"""`plumbline coverage`: how complete a server's lineage is, overall and per namespace."""

from __future__ import annotations

from typing import Any

import click
from rich.table import Table

from plumbline.cli.client import (
    console,
    format_option,
    get,
    known_namespaces,
    server_options,
    show,
)
from plumbline.cli.since import since_option

ROWS = (
    ("unproducedInputs", "datasets read, no known producer"),
    ("outputs", "outputs"),
    ("outputsWithoutSchema", "outputs without a schema"),
    ("outputsWithoutColumnLineage", "outputs without column lineage"),
    ("columnLineageShare", "output fields with column lineage"),
    ("unfinishedRuns", "runs with a START and no end"),
    ("failedEventRuns", "runs whose events failed normalization"),
)


@click.command()
@since_option("Window start (default 7d)")
@click.option("--namespace", help="Only this namespace.")
@format_option("table", "json", row="namespace")
@server_options
def coverage(
    since: str | None,
    namespace: str | None,
    output_format: str,
    url: str,
    api_key: str | None,
    timeout: float,
) -> None:
    """What the server's lineage covers and what it misses, per namespace."""
    if namespace is not None:
        known_namespaces(url, api_key, timeout, [namespace])
    response = get(
        url, api_key, timeout, "/api/v1/coverage", {"since": since, "namespace": namespace}
    )
    show(response, output_format, print_coverage)


def _cell(key: str, measures: dict[str, Any]) -> str:
    value = measures.get(key)
    if key == "columnLineageShare":
        return "-" if value is None else f"{100 * value:.0f}%"
    return str(value)


def print_coverage(body: dict[str, Any]) -> None:
    out = console()
    table = Table(show_header=True, header_style="bold")
    table.add_column("since " + body["since"])
    table.add_column("overall", justify="right")
    for entry in body["namespaces"]:
        table.add_column(entry["namespace"], justify="right")
    for key, label in ROWS:
        cells = [_cell(key, body["overall"])]
        cells += [_cell(key, entry) for entry in body["namespaces"]]
        table.add_row(label, *cells)
    out.print(table)
    producers = body["overall"]["producers"]
    if producers:
        out.print("producers:", markup=False)
        for item in producers:
            out.print(f"  {item['events']:>8}  {item['producer']}", markup=False)
