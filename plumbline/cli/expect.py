"""`plumbline expect init`: a starter expectations file from a namespace's lineage today."""

from __future__ import annotations

import click

from plumbline.cli.baseline import fetch_baseline
from plumbline.cli.client import server_options


@click.group()
def expect() -> None:
    """Expectations files (checked by `plumbline check --expect FILE`)."""


@expect.command()
@click.option("--namespace", required=True, help="The namespace whose lineage to start from.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the file here (default: stdout); an existing file is not overwritten.",
)
@server_options
def init(namespace: str, out: str | None, url: str, api_key: str | None, timeout: float) -> None:
    """Write a starter expectations file (TOML) from NAMESPACE's lineage as the server holds it:
    each job's reads and writes and each column edge into what they write, as rules that hold
    today. Keep what must hold, delete the rest."""
    from plumbline.expectations.baseline import starter

    text = starter(fetch_baseline(url, api_key, timeout, namespace))
    if out is None:
        click.echo(text, nl=False)
        return
    try:
        with open(out, "x", encoding="utf-8") as handle:
            handle.write(text)
    except FileExistsError:
        raise click.ClickException(f"{out} exists: not overwritten") from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc}") from None
    click.echo(f"wrote {out}", err=True)
