"""`plumbline version-lineage DATASET VERSION`: the exact versions a dataset version was made from
(or, with --downstream, that were made from it), asked of a server."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import click
import httpx
from rich.table import Table

from plumbline.cli.client import (
    console,
    format_option,
    get,
    server_options,
    show,
    truncation_note,
)
from plumbline.cli.run_ids import is_run_id, resolve_run, short_id


@click.command("version-lineage")
@click.argument("dataset")
@click.argument("version")
@click.option(
    "--downstream", is_flag=True, help="The versions made from it instead of its sources."
)
@click.option(
    "--depth", type=int, help="Runs to walk (default: all, up to the server's cap of 50)."
)
@format_option("table", "json", row="version")
@server_options
def version_lineage(
    dataset: str,
    version: str,
    downstream: bool,
    depth: int | None,
    output_format: str,
    url: str,
    api_key: str | None,
    timeout: float,
) -> None:
    """The exact versions VERSION of DATASET was made from, nearest first (or with
    --downstream, the versions made from it).

    DATASET is dataset:NS:NAME. VERSION is the version as shown (the producer's version id, else
    the id of the run that wrote it, whole, as shown or by its start) or the version's UUID.
    """
    if not dataset.startswith("dataset:") or dataset.count(":") < 2:
        raise click.UsageError(f"DATASET: expected dataset:NS:NAME, got {dataset!r}")
    namespace, name = dataset.split(":", 2)[1:]
    path = (
        f"/api/v1/namespaces/{quote(namespace, safe='')}/datasets/{quote(name, safe='')}"
        "/versions/{}/lineage"
    )
    params = {"direction": "downstream" if downstream else "upstream", "depth": depth}

    def ask(which: str, also: tuple[int, ...] = ()) -> httpx.Response:
        return get(url, api_key, timeout, path.format(quote(which, safe="")), params, also)

    response = ask(version, (404,) if is_run_id(version) else ())
    if response.status_code == 404:  # the start of the writer's run id, as shown
        response = ask(resolve_run(url, api_key, timeout, version, "VERSION"))
    show(response, output_format, print_version_lineage)


def print_version_lineage(body: dict[str, Any]) -> None:
    """The versions as a table, nearest first."""
    out = console()
    versions = body["versions"]
    start = versions[0] if versions else None
    if start:
        what = "was made from" if body["direction"] == "upstream" else "was used by"
        shown = short_id(start["datasetVersion"] or start["version"] or "?")
        out.print(
            f"{start['namespace']}:{start['name']} version {shown} {what} "
            f"{len(versions) - 1} version(s)",
            markup=False,
        )
    if len(versions) > 1:
        table = Table(show_header=True, header_style="bold")
        for column in ("distance", "dataset", "version", "written by", "at", "linked by"):
            table.add_column(column)
        for item in versions[1:]:
            version = item["datasetVersion"] or item["version"]
            writer = short_id(item["runId"]) if item["runId"] else "-"
            if item.get("writerPruned"):
                writer += " (pruned)"
            table.add_row(
                str(item["distance"]),
                f"{item['namespace']}:{item['name']}",
                short_id(version) if version else "unknown",
                writer,
                item.get("createdAt") or "",
                item.get("versionSource") or "",
            )
        out.print(table)
    notes = []
    if body.get("hiddenVersions"):
        notes.append(f"{body['hiddenVersions']} more version(s) this token may not read")
    if truncation_note(body):
        notes.append(str(truncation_note(body)))
    for note in notes:
        out.print(note, markup=False)
