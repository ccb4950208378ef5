"""`plumbline check`: fail a CI build when a server holds unacknowledged alerts of listed kinds.

Exit status: 0 none; 1 at least one (each printed with its blast radius); 2 the check could not
be made (a bad option, an unreachable server, an error answer)."""

from __future__ import annotations

from typing import Any

import click

from plumbline.cli.client import get, known_namespaces, server_options
from plumbline.cli.run_ids import short_id
from plumbline.cli.since import since_option
from plumbline.store.write.alert_rules import KINDS

DEFAULT_FAIL_ON = "schema-drift,stopped-edge,failure-after-success"
NO_CHECK = 2  # the check could not be made
LISTED_NODES = 10


def _cannot(message: str) -> click.exceptions.Exit:
    click.echo(f"Error: {' '.join(message.split())}", err=True)
    return click.exceptions.Exit(NO_CHECK)


def parse_kinds(value: str) -> list[str]:
    kinds = [k.strip() for k in value.split(",") if k.strip()]
    if not kinds:
        raise ValueError("--fail-on: no kind given")
    for kind in kinds:
        if kind not in KINDS:
            raise ValueError(f"--fail-on: unknown kind {kind!r} (kinds: {', '.join(KINDS)})")
    return kinds


@click.command()
@click.option("--namespace", multiple=True, help="Only alerts about this namespace (repeatable).")
@click.option(
    "--fail-on",
    default=DEFAULT_FAIL_ON,
    show_default=True,
    help=f"Comma-separated alert kinds that fail the check ({', '.join(KINDS)}).",
)
@since_option("Only alerts seen since then")
@server_options
def check(
    namespace: tuple[str, ...],
    fail_on: str,
    since: str | None,
    url: str,
    api_key: str | None,
    timeout: float,
) -> None:
    """Exit 1 when the server has unacknowledged alerts of the --fail-on kinds (each printed
    with its blast radius), 0 when it has none, 2 when it cannot tell."""
    try:
        kinds = parse_kinds(fail_on)
    except ValueError as exc:
        raise _cannot(str(exc)) from None
    params: dict[str, Any] = {
        "kind": ",".join(kinds),
        "namespace": list(namespace) or None,
        "since": since,
        "acknowledged": "false",
        "limit": 10_000,
    }
    try:
        known_namespaces(url, api_key, timeout, namespace)
        response = get(url, api_key, timeout, "/api/v1/alerts", params)
    except click.exceptions.Exit:  # the client printed the one line
        raise click.exceptions.Exit(NO_CHECK) from None
    found = response.json()["alerts"]
    if not found:
        click.echo(f"ok: no unacknowledged {', '.join(kinds)} alert")
        return
    for alert in found:
        click.echo(describe(alert))
    click.echo(f"{len(found)} unacknowledged alert(s) of {', '.join(kinds)}", err=True)
    raise click.exceptions.Exit(1)


def _field(key: str, field: dict[str, Any]) -> str:
    """``temp_c string -> double`` (retyped), ``temp_c (double)`` (added, removed)."""
    if key == "retyped":
        return f"{field['name']} {field.get('before') or '?'} -> {field.get('after') or '?'}"
    return f"{field['name']} ({field['type']})" if field.get("type") else str(field["name"])


def describe(alert: dict[str, Any]) -> str:
    """An alert and its blast radius, a few lines."""
    run = f" run {short_id(alert['runId'])}" if alert.get("runId") else ""
    lines = [
        f"{alert['kind']} {alert['subject']}{run} seen {alert['seenAt']} (alert {alert['id']})"
    ]
    details = alert.get("details") or {}
    if details.get("dataset"):
        lines.append(f"  dataset: {details['dataset']}")
    for key in ("removed", "retyped", "added"):
        if details.get(key):
            lines.append(f"  {key}: {', '.join(_field(key, f) for f in details[key])}")
    if details.get("affectedColumns"):
        columns = ", ".join(c["nodeId"] for c in details["affectedColumns"][:LISTED_NODES])
        lines.append(f"  derived columns: {columns}")
    radius = alert.get("blastRadius")
    if radius is None:
        lines.append("  blast radius: not computed yet")
    else:
        lines.append(f"  blast radius: {radius['datasets']} dataset(s), {radius['jobs']} job(s)")
        for node in radius["nodes"][:LISTED_NODES]:
            lines.append(f"    {node['distance']}  {node['id']}")
        more = max(0, radius["datasets"] + radius["jobs"] + radius["fields"] - LISTED_NODES)
        if more:
            lines.append(f"    … {more} more")
    return "\n".join(lines)
