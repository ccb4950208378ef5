"""`plumbline baseline save | diff`: a namespace's lineage per job, saved, and what changed since.

``diff`` exits 0 when nothing changed, 1 when something did (each job's changes printed), 2 when it
cannot tell (a bad file, an unreachable server, an answer cut by the server's work budget)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from plumbline.cli.client import get, server_options
from plumbline.cli.since import since_option

if TYPE_CHECKING:
    from plumbline.expectations.baseline import Baseline

NO_CHECK = 2


def _cannot(message: str) -> click.exceptions.Exit:
    click.echo(f"Error: {' '.join(message.split())}", err=True)
    return click.exceptions.Exit(NO_CHECK)


def fetch_baseline(
    url: str, api_key: str | None, timeout: float, namespace: str, since: str | None = None
) -> Baseline:
    """The server's ``/api/v1/expectations/baseline`` of ``namespace`` (exit 2 when it cannot be
    had whole)."""
    from plumbline.expectations.baseline import from_json

    try:
        doc = get(
            url,
            api_key,
            timeout,
            "/api/v1/expectations/baseline",
            {"namespace": namespace, "since": since},
        ).json()
    except click.exceptions.Exit:  # the client printed the one line
        raise click.exceptions.Exit(NO_CHECK) from None
    if doc.get("truncated"):
        raise _cannot(f"the server's answer is cut ({doc.get('truncatedReason')}): cannot tell")
    return from_json(doc, "the server's answer")


@click.group()
def baseline() -> None:
    """Baselines: a namespace's lineage saved, to diff after an engine upgrade or a refactor."""


@baseline.command()
@click.option("--namespace", required=True, help="The namespace whose jobs to save.")
@click.option(
    "--out", required=True, type=click.Path(dir_okay=False), help="The baseline file (JSON)."
)
@since_option("Only edges seen since then")
@server_options
def save(
    namespace: str, out: str, since: str | None, url: str, api_key: str | None, timeout: float
) -> None:
    """Save NAMESPACE's lineage (each job's reads, writes and column edges) to --out."""
    found = fetch_baseline(url, api_key, timeout, namespace, since)
    try:
        with open(out, "w", encoding="utf-8") as handle:
            json.dump(found.to_json(), handle, indent=2, sort_keys=True)
            handle.write("\n")
    except OSError as exc:
        raise _cannot(f"cannot write {out}: {exc}") from None
    edges = sum(len(j.reads) + len(j.writes) + len(j.columns) for j in found.jobs.values())
    click.echo(f"saved {len(found.jobs)} job(s), {edges} edge(s) of {namespace} to {out}", err=True)


@baseline.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: per job, + added, - removed, ~ changed in type; json: the same as a document.",
)
@since_option(
    "Compare with the edges seen since then (say, the upgrade), not every edge the server ever saw"
)
@server_options
def diff(
    file: str,
    output_format: str,
    since: str | None,
    url: str,
    api_key: str | None,
    timeout: float,
) -> None:
    """What changed in the lineage of FILE's namespace since FILE was saved: per job, edges and
    column edges added, removed or changed in type. Exit 0 none, 1 some, 2 cannot tell.

    The server keeps every edge it ever saw: to see edges a job no longer shows, run the jobs
    again and diff with --since the time they ran from."""
    from plumbline.expectations.baseline import BaselineError, load
    from plumbline.expectations.baseline import diff as changes_between

    try:
        before = load(file)
    except BaselineError as exc:
        raise _cannot(str(exc)) from None
    now = fetch_baseline(url, api_key, timeout, before.namespace, since)
    changes = changes_between(before, now)
    if output_format == "json":
        doc = {
            "namespace": before.namespace,
            "since": before.taken_at,
            "jobs": {name: c.to_json() for name, c in changes.items()},
        }
        click.echo(json.dumps(doc, indent=2))
    else:
        for name, c in changes.items():
            click.echo(f"job {before.namespace}:{name}")
            for sign, lines in (("+", c.added), ("-", c.removed), ("~", c.changed)):
                for line in lines:
                    click.echo(f"  {sign} {line}")
    if not changes:
        click.echo(f"ok: the lineage of {before.namespace} is as at {before.taken_at}", err=True)
        return
    click.echo(f"{len(changes)} job(s) changed since {before.taken_at}", err=True)
    raise click.exceptions.Exit(1)
