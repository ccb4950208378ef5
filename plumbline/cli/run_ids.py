"""Run ids as a person types them back: the whole id, or its start (at least 4 characters, as
git takes a commit), and the one short form the CLI prints (:func:`short_id`, the first 8
characters; the web UI prints the same)."""

from __future__ import annotations

import re

import click

from plumbline.cli.client import fail, get

SHORT = 8
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_PREFIX = re.compile(r"^[0-9a-f][0-9a-f-]{3,35}$", re.I)
LISTED = 10  # matches listed when a prefix is ambiguous


def short_id(some_id: str) -> str:
    """The one short form of an id, as the web UI's ``shortId``: a UUID's first 8 characters;
    another id (a table format's snapshot id) whole, up to 24 characters."""
    if _UUID.match(some_id):
        return some_id[:SHORT]
    return some_id if len(some_id) <= 24 else some_id[:23] + "…"


def is_run_id(text: str) -> bool:
    """Whether ``text`` can name a run: a whole id or the start of one."""
    return bool(_UUID.match(text) or _PREFIX.match(text))


def resolve_run(url: str, api_key: str | None, timeout: float, text: str, what: str = "run") -> str:
    """The whole id of the one run whose id is or starts with ``text``; an id that no run
    starts with ends the command with one line (exit 1), one that several start with lists them
    (exit 2). A whole id is taken as it is (the server says when it is unknown)."""
    if _UUID.match(text):
        return text.lower()
    if not _PREFIX.match(text):
        raise click.UsageError(f"{what}: expected a run id or its first characters, got {text!r}")
    body = get(url, api_key, timeout, "/api/v1/jobs/runs", {"idPrefix": text, "limit": LISTED})
    found = body.json()
    runs, total = found["runs"], found["totalCount"]
    if total == 1:
        return str(runs[0]["id"])
    if total == 0:
        fail(f"{what}: no run id starts with {text!r}")
    click.echo(f"Error: {what}: {total} runs have ids starting with {text!r}:", err=True)
    for run in runs:
        job = run["job"]
        when = run.get("startedAt") or run.get("endedAt") or ""
        click.echo(
            f"  {run['id']}  {run['state']:<9} {job['namespace']}:{job['name']}  {when}", err=True
        )
    if total > len(runs):
        click.echo(f"  … {total - len(runs)} more", err=True)
    click.echo("give more characters of the id", err=True)
    raise click.exceptions.Exit(2)
