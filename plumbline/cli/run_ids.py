"""Run ids as a person types them back: the whole id, or its start or its end (at least 4
characters), and the one short form the CLI prints (:func:`short_id`, the last 8 characters,
random in random (v4) and time-ordered (v7) UUIDs alike; the web UI prints the same)."""

from __future__ import annotations

import re
from typing import Any

import click

from plumbline.cli.client import fail, get

SHORT = 8
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_PART = re.compile(r"^[0-9a-f-]{4,36}$", re.I)
LISTED = 10  # matches listed when a prefix is ambiguous


def short_id(some_id: str) -> str:
    """The one short form of an id, as the web UI's ``shortId``: a UUID's last 8 characters;
    another id (a table format's snapshot id) whole, up to 24 characters."""
    if _UUID.match(some_id):
        return some_id[-SHORT:]
    return some_id if len(some_id) <= 24 else some_id[:23] + "…"


def is_run_id(text: str) -> bool:
    """Whether ``text`` can name a run: a whole id, or the start or end of one."""
    return bool(_UUID.match(text) or _PART.match(text))


def resolve_run(url: str, api_key: str | None, timeout: float, text: str, what: str = "run") -> str:
    """The whole id of the one run whose id is, ends with (as shown) or starts with ``text``; a
    part no run id has ends the command with one line (exit 1), one that several have lists them
    (exit 2). A whole id is taken as it is (the server says when it is unknown)."""
    if _UUID.match(text):
        return text.lower()
    if not _PART.match(text):
        raise click.UsageError(
            f"{what}: expected a run id or 4 or more of its characters, got {text!r}"
        )
    runs: dict[str, dict[str, Any]] = {}
    total = 0
    for side in ("idSuffix", "idPrefix"):
        found = get(url, api_key, timeout, "/api/v1/jobs/runs", {side: text, "limit": LISTED})
        body = found.json()
        both = sum(1 for run in body["runs"] if run["id"] in runs)  # a run matching both ways
        total += body["totalCount"] - both
        runs.update({run["id"]: run for run in body["runs"]})
    if total == 1:
        return next(iter(runs))
    if total == 0:
        fail(f"{what}: no run id starts or ends with {text!r}")
    click.echo(f"Error: {what}: {total} runs have ids starting or ending with {text!r}:", err=True)
    for run in sorted(runs.values(), key=lambda r: str(r["id"]))[:LISTED]:
        job = run["job"]
        when = run.get("startedAt") or run.get("endedAt") or ""
        line = f"  {run['id']}  {run['state']:<9} {job['namespace']}:{job['name']}  {when}"
        click.echo(line, err=True)
    if total > min(len(runs), LISTED):
        click.echo(f"  … {total - min(len(runs), LISTED)} more", err=True)
    click.echo("give more characters of the id", err=True)
    raise click.exceptions.Exit(2)
