"""`plumbline check`: fail a CI build when a server holds unacknowledged alerts of listed kinds,
or (``--expect FILE``) when the lineage breaks an expectations file's rules.

Exit status: 0 none; 1 at least one (each printed: an alert with its blast radius, a broken
expectation on one line); 2 the check could not be made (a bad option or file, an unreachable
server, an error answer, an expectation the server could not decide)."""

from __future__ import annotations

import json
from typing import Any

import click

from plumbline.cli.client import get, known_namespaces, post, server_options
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
@click.option(
    "--expect",
    "expect_file",
    type=click.Path(dir_okay=False),
    help="Check this expectations file (TOML) against the server's lineage instead of alerts.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "junit"]),
    default="text",
    show_default=True,
    help="With --expect: text (one line per broken expectation), json (the server's answer) "
    "or junit (JUnit XML, one test case per rule).",
)
@server_options
def check(
    namespace: tuple[str, ...],
    fail_on: str,
    since: str | None,
    expect_file: str | None,
    output_format: str,
    url: str,
    api_key: str | None,
    timeout: float,
) -> None:
    """Exit 1 when the server has unacknowledged alerts of the --fail-on kinds (each printed
    with its blast radius), 0 when it has none, 2 when it cannot tell.

    With --expect FILE: exit 0 when every expectation holds, 1 with one line per broken one
    (expected, seen, the run that last showed it), 2 when it cannot tell (a malformed file, the
    server unreachable, a walk cut short)."""
    if expect_file is not None:
        check_expectations(expect_file, output_format, url, api_key, timeout)
        return
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


def check_expectations(
    path: str, output_format: str, url: str, api_key: str | None, timeout: float
) -> None:
    """``check --expect``: the file parsed here (a malformed one names its line), checked by the
    server (``POST /api/v1/expectations/check``)."""
    from plumbline.expectations import report
    from plumbline.expectations.rules import ExpectationsError, load, to_json

    try:
        rules = load(path)
    except ExpectationsError as exc:
        raise _cannot(str(exc)) from None
    try:
        answer = post(url, api_key, timeout, "/api/v1/expectations/check", to_json(rules)).json()
    except click.exceptions.Exit:  # the client printed the one line
        raise click.exceptions.Exit(NO_CHECK) from None
    outcomes = answer["outcomes"]
    if output_format == "json":
        click.echo(json.dumps(answer, indent=2))
    elif output_format == "junit":
        click.echo(report.junit(outcomes), nl=False)
    else:
        for outcome in outcomes:
            if outcome["status"] != "holds":
                run = short_id(outcome["runId"]) if outcome.get("runId") else None
                click.echo(report.line(outcome, run))
    status = report.exit_status(outcomes)
    holds = sum(1 for o in outcomes if o["status"] == "holds")
    summary = f"{holds} of {len(outcomes)} expectation(s) hold"
    if status == 0:
        click.echo(f"ok: {summary}", err=output_format != "text")
        return
    click.echo(f"{summary}; {answer['broken']} broken, {answer['undecided']} undecided", err=True)
    raise click.exceptions.Exit(status)


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
