"""`plumbline rerun-plan NODE --since …`: the downstream runs to redo after bad data, in order,
asked of a server."""

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
from plumbline.cli.names import job_label
from plumbline.cli.run_ids import resolve_run, short_id
from plumbline.cli.since import since_option


@click.command("rerun-plan")
@click.argument("node", required=False)
@since_option("NODE's versions made at or after this time are bad")
@click.option("--version", "version", help="This version of the dataset NODE is bad.")
@click.option(
    "--run",
    "run_id",
    help="The versions this run (its id or its start) wrote are bad (instead of NODE).",
)
@format_option("table", "json", "csv", row="step")
@server_options
def rerun_plan(
    node: str | None,
    since: str | None,
    version: str | None,
    run_id: str | None,
    output_format: str,
    url: str,
    api_key: str | None,
    timeout: float,
) -> None:
    """The runs to redo, job by job, after bad data in NODE (dataset:NS:NAME with --since or
    --version, or job:NS:NAME with --since), or after a bad run (--run RUN_ID)."""
    if run_id is None and node is None:
        raise click.UsageError("give NODE (with --since or --version) or --run RUN_ID")
    if run_id is None and (since is None) == (version is None):
        raise click.UsageError("give NODE with exactly one of --since and --version")
    if run_id is not None:
        run_id = resolve_run(url, api_key, timeout, run_id, "--run")
    params: dict[str, Any] = {
        "nodeId": node,
        "since": since,
        "version": version,
        "runId": run_id,
        "format": "csv" if output_format == "csv" else "json",
    }
    show(get(url, api_key, timeout, "/api/v1/rerun-plan", params), output_format, print_plan)


def print_plan(body: dict[str, Any]) -> None:
    """The plan as a table, one row per step."""
    out = console()
    bad = ", ".join(
        f"{v['namespace']}:{v['name']}#{short_id(v['version'])}" for v in body["badVersions"]
    )
    out.print(f"bad versions: {bad or 'none'}", markup=False)
    steps = body["steps"]
    out.print(f"{len(steps)} job(s) to rerun", markup=False)
    if steps:
        table = Table(show_header=True, header_style="bold")
        for name, justify in (
            ("order", "right"),
            ("job", "left"),
            ("parent", "left"),
            ("after", "left"),
            ("runs", "left"),
            ("affected inputs", "left"),
        ):
            table.add_column(name, justify=justify)  # type: ignore[arg-type]
        for step in steps:
            parent = step["parentJob"]
            affected = sorted(
                {
                    f"{r['namespace']}:{r['name']}"
                    for run in step["runs"]
                    for r in run["reads"]
                    if r["affected"]
                }
            )
            table.add_row(
                str(step["order"]),
                job_label(step["job"]["namespace"], step["job"]["name"]),
                job_label(parent["namespace"], parent["name"]) if parent else "",
                " ".join(str(a) for a in step["after"]) + (" (cycle)" if step["inCycle"] else ""),
                " ".join(f"{short_id(run['id'])} {run['state']}" for run in step["runs"]),
                ", ".join(affected),
            )
        out.print(table)
    if body.get("hiddenSteps"):
        out.print(f"{body['hiddenSteps']} more job(s) this token may not read", markup=False)
    if truncation_note(body):
        out.print(truncation_note(body), markup=False)
