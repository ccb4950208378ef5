"""`plumbline diff RUN_ID|JOB` and `plumbline root-cause NODE|RUN_ID`, asked of a server.

Both take a run id, or a node id: ``job:NS:NAME`` (diff: its latest run; root cause: its last
failed run) or, for root cause, ``dataset:NS:NAME`` (the run that wrote its current version).
"""

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
from plumbline.cli.names import job_label
from plumbline.cli.run_ids import is_run_id, resolve_run, short_id


def _target(
    arg: str, kinds: tuple[str, ...], url: str, api_key: str | None, timeout: float
) -> tuple[str, bool]:
    """(the whole run id ``arg`` names, False), or (``arg``, True) for a node id."""
    if any(arg.startswith(f"{kind}:") for kind in kinds):
        return arg, True
    if is_run_id(arg):
        return resolve_run(url, api_key, timeout, arg), False
    wanted = " or ".join(f"{kind}:NS:NAME" for kind in kinds)
    raise click.UsageError(f"expected a run id (or its start or end) or {wanted}, got {arg!r}")


def _short(run: dict[str, Any] | None) -> str:
    if not run:
        return "-"
    return f"{short_id(run['id'])} ({run.get('state') or '?'})"


def schema_change(change: dict[str, Any]) -> str:
    """A schema change as the JSON has it, in words: ``temp_c string -> double``,
    ``temp_c added (double)``, ``temp_c removed (string)``."""
    field, kind = change["field"], change["change"]
    before, after = change.get("typeBefore"), change.get("typeAfter")
    if kind == "typeChanged":
        return f"{field} {before or '?'} -> {after or '?'}"
    known = after if kind == "added" else before
    return f"{field} {kind}" + (f" ({known})" if known else "")


def _pair(pair: dict[str, Any], unit: str = "") -> str:
    before, after = pair.get("before"), pair.get("after")
    if before == after:
        return "" if before is None else f"{before}{unit}"
    return f"{'?' if before is None else before}{unit} -> {'?' if after is None else after}{unit}"


def _seconds(pair: dict[str, Any]) -> dict[str, Any]:
    return {k: None if v is None else round(v / 1000, 1) for k, v in pair.items()}


@click.command()
@click.argument("run")
@click.option("--against", help="Compare with this run of the same job, by id or its start (default: the job's "
              "last COMPLETE run before RUN).")  # fmt: skip
@format_option("table", "json")
@server_options
def diff(
    run: str,
    against: str | None,
    output_format: str,
    url: str,
    api_key: str | None,
    timeout: float,
) -> None:
    """What changed between RUN and the job's last COMPLETE run before it.

    RUN is a run id (or its first characters), or job:NS:NAME for the job's latest run.
    """
    if against is not None and run.startswith("job:"):
        raise click.UsageError("--against needs a run id, not a job")
    target, is_node = _target(run, ("job",), url, api_key, timeout)
    if against is not None:
        against = resolve_run(url, api_key, timeout, against, "--against")
    response = _ask(url, api_key, timeout, "diff", target, is_node, {"against": against})
    show(response, output_format, print_diff)


def _ask(
    url: str,
    api_key: str | None,
    timeout: float,
    question: str,
    target: str,
    is_node: bool,
    params: dict[str, Any],
) -> httpx.Response:
    """``GET /api/v1/{question}?nodeId=…`` for a node, ``/api/v1/jobs/runs/{id}/{question}`` for
    a run."""
    if is_node:
        return get(url, api_key, timeout, f"/api/v1/{question}", {"nodeId": target, **params})
    path = f"/api/v1/jobs/runs/{quote(target, safe='')}/{question}"
    return get(url, api_key, timeout, path, params)


def print_diff(body: dict[str, Any]) -> None:
    """The diff as a few lines and tables."""
    out = console()
    run, against = body["run"], body.get("against")
    job = job_label(run["job"]["namespace"], run["job"]["name"])
    reason = {
        "lastCompleteBefore": "the job's last COMPLETE run before it",
        "requested": "as asked",
        "noEarlierCompleteRun": "no earlier COMPLETE run to compare with",
    }.get(body["againstReason"], body["againstReason"])
    out.print(f"run {_short(run)} of {job} against {_short(against)}: {reason}", markup=False)
    for pruned in body.get("prunedRuns") or []:
        out.print(
            f"note: run {pruned['id']} ({pruned['state']}) of this job was pruned at "
            f"{pruned['prunedAt']}; it is not compared",
            markup=False,
        )
    if against:
        changed = body.get("jobVersionChanged")
        facets = ", ".join(c["facet"] for c in body.get("jobFacetChanges") or [])
        out.print(
            f"job version: {'changed' if changed else 'unchanged'}"
            + (f" (job facets changed: {facets})" if facets else ""),
            markup=False,
        )
        spark = _pair(body["sparkVersion"])
        if spark:
            out.print(f"engine: {spark}", markup=False)
        out.print(f"duration: {_pair(_seconds(body['durationMs']), ' s')}", markup=False)
    if body.get("error"):
        out.print(f"error: {body['error'].strip().splitlines()[0][:400]}", markup=False)
    suspects = body.get("suspects") or []
    if suspects:
        out.print("what changed, most likely cause first:", markup=False)
        for number, suspect in enumerate(suspects, start=1):
            detail = suspect["detail"][:300]
            out.print(f"  {number}. {suspect['kind']} {suspect['subject']}: {detail}", markup=False)
    effects = body.get("causedByFailure") or []
    if effects:
        out.print("caused by the failure (not a cause):", markup=False)
        for effect in effects:
            out.print(f"  - {effect['kind']} {effect['subject']}: {effect['detail']}", markup=False)
    for title in ("inputs", "outputs"):
        rows = body.get(title) or []
        if not rows:
            continue
        table = Table(title=title, show_header=True, header_style="bold", title_justify="left")
        for column in ("dataset", "status", "version", "schema changes", "rows", "bytes"):
            table.add_column(column)
        for io in rows:
            version = "changed" if io["versionChanged"] else (
                "same" if io["versionChanged"] is False else "unknown"
            )  # fmt: skip
            schema = ", ".join(schema_change(c) for c in io["schemaChanges"])
            if not io["schemaKnown"]:
                schema = schema or "unknown"
            table.add_row(
                f"{io['namespace']}:{io['name']}",
                io["status"],
                version,
                schema,
                _pair(io["rowCount"]),
                _pair(io["byteCount"]),
            )
        out.print(table)
    for change in body.get("runFacetChanges") or []:
        keys = ", ".join(f"{k['key']}: {k['before']} -> {k['after']}" for k in change["keys"][:10])
        out.print(f"run facet {change['facet']} {change['change']} {keys}".rstrip(), markup=False)
    lineage = body["columnLineage"]
    if lineage["available"]:
        added, removed = len(lineage["added"]), len(lineage["removed"])
        out.print(f"column lineage: {added} edge(s) added, {removed} removed", markup=False)
    elif against:
        out.print(f"column lineage: not compared ({lineage['reason']})", markup=False)
    if truncation_note(body):
        out.print(truncation_note(body), markup=False)


@click.command("root-cause")
@click.argument("node")
@click.option("--depth", type=int, help="Runs to walk upstream (default: the server's cap, 50).")
@format_option("table", "json")
@server_options
def root_cause(
    node: str,
    depth: int | None,
    output_format: str,
    url: str,
    api_key: str | None,
    timeout: float,
) -> None:
    """The upstream runs that produced what a run read, suspects first.

    NODE is a run id (or its first characters), job:NS:NAME (its last failed run) or dataset:NS:NAME (the run that wrote
    its current version).
    """
    target, is_node = _target(node, ("job", "dataset"), url, api_key, timeout)
    response = _ask(url, api_key, timeout, "root-cause", target, is_node, {"depth": depth})
    show(response, output_format, print_root_cause)


def print_root_cause(body: dict[str, Any]) -> None:
    """The root cause as a few lines and a table of upstream runs."""
    out = console()
    run = body["run"]
    job = job_label(run["job"]["namespace"], run["job"]["name"])
    out.print(f"run {_short(run)} of {job}", markup=False)
    if run.get("errorMessage"):
        out.print(f"error: {run['errorMessage'].strip().splitlines()[0][:400]}", markup=False)
    changes = body.get("changes") or []
    if changes:
        against = short_id(body.get("against") or "?")
        out.print(f"changed in the run itself (against {against}):", markup=False)
        for change in changes:
            if change["kind"] != "error":
                out.print(f"  {change['kind']} {change['subject']}: {change['detail'][:300]}",
                          markup=False)  # fmt: skip
    upstream = body.get("upstream") or []
    out.print(f"{len(upstream)} upstream run(s), suspects first", markup=False)
    if upstream:
        table = Table(show_header=True, header_style="bold")
        for column in ("distance", "run", "job", "suspect", "what changed", "produced"):
            table.add_column(column)
        for item in upstream:
            changes = "; ".join(f"{c['kind']} {c['subject']}" for c in item["changes"][:3])
            produced = ", ".join(p["name"] for p in item["produced"][:3])
            table.add_row(
                str(item["distance"]),
                _short(item["run"]),
                job_label(item["run"]["job"]["namespace"], item["run"]["job"]["name"]),
                ", ".join(item["reasons"]),
                changes,
                produced,
            )
        out.print(table)
    for pruned in body.get("prunedRuns") or []:
        out.print(
            f"note: run {pruned['id']} of {pruned['job']['namespace']}:{pruned['job']['name']} "
            f"wrote a version read here; it was pruned at {pruned['prunedAt']}",
            markup=False,
        )
    if truncation_note(body):
        out.print(truncation_note(body), markup=False)
