"""`plumbline classifications TAG`: where a classification is and who reads it (issue 32 §1)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import click
from rich.table import Table

from plumbline.cli.client import console, format_option, get, server_options, show


@click.command()
@click.argument("tag")
@click.option(
    "--limit",
    type=click.IntRange(1, 100_000),
    default=100,
    show_default=True,
    help="Columns to list, at most.",
)
@format_option("table", "json")
@server_options
def classifications(
    tag: str, limit: int, output_format: str, url: str, api_key: str | None, timeout: float
) -> None:
    """Every column and dataset carrying TAG (declared or propagated, with the path), and the
    jobs reading them."""
    response = get(
        url, api_key, timeout, f"/api/v1/classifications/{quote(tag, safe='')}", {"limit": limit}
    )
    show(response, output_format, print_classification)


def _path(path: list[dict[str, str]]) -> str:
    steps = []
    for hop in path:
        name = "(not visible)" if hop.get("hidden") else f"{hop['name']}.{hop['field']}"
        kind = hop.get("subtype") or hop.get("type")
        steps.append(f"{name} ({kind})" if kind else name)
    return " -> ".join(steps)


def print_classification(body: dict[str, Any]) -> None:
    out = console()
    table = Table(show_header=True, header_style="bold", title=f"columns classified {body['tag']}")
    for column in ("namespace", "dataset", "column", "value", "origin", "path"):
        table.add_column(column)
    for c in body["columns"]:
        origin = c["origin"] if c["origin"] == "propagated" else f"declared ({c['declaredBy']})"
        table.add_row(
            c["namespace"], c["dataset"], c["field"], c["value"], origin, _path(c["path"])
        )
    out.print(table)
    if body["totalCount"] > len(body["columns"]):
        out.print(f"{len(body['columns'])} of {body['totalCount']} columns (--limit)", markup=False)
    for d in body["datasets"]:
        out.print(f"dataset {d['namespace']}/{d['dataset']} tagged {body['tag']}", markup=False)
    if body["readers"]:
        readers = Table(show_header=True, header_style="bold", title="who reads it")
        for column in ("job", "reads", "latest run", "state"):
            readers.add_column(column)
        for r in body["readers"]:
            readers.add_row(
                f"{r['namespace']}/{r['job']}",
                ", ".join(r["reads"]),
                r["latestRunId"] or "-",
                r["latestRunState"] or "-",
            )
        out.print(readers)
