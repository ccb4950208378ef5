"""`plumbline declare FILE`: send an expectations file's declared edges to a server (issue 31 §2).

Each ``[[declare]]`` edge becomes lineage with edge source ``declared`` and completeness
``inferred`` (``plumbline.expectations.declare``): shown in the graph, never hiding how an
observed edge is known. Needs a write token."""

from __future__ import annotations

from typing import Any

import click

from plumbline.cli.client import post, server_options


@click.command()
@click.argument("file", type=click.Path(dir_okay=False))
@server_options
def declare(file: str, url: str, api_key: str | None, timeout: float) -> None:
    """Send FILE's declared edges ([[declare]]) to the server as lineage of source "declared"."""
    from plumbline.expectations.declare import declared_events
    from plumbline.expectations.rules import ExpectationsError, load

    try:
        expectations = load(file)
    except (ExpectationsError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    events: list[dict[str, Any]] = declared_events(expectations)
    if events:
        post(url, api_key, timeout, "/api/v1/lineage", events, also=(201,))
    edges = len(expectations.declare)
    click.echo(f"declared {edges} edge(s) in {len(events)} job(s)")
