"""`plumbline serve`: run the lineage server."""

from __future__ import annotations

import socket
import sys

import click

from plumbline.cli.options import PORT, db_option
from plumbline.cli.stores import say_if_new
from plumbline.server import ConfigError, build_settings
from plumbline.store import default_db_url, single_writer


@click.command()
@db_option
@click.option("--host", default=None, help="Address to bind (default 127.0.0.1).")
@click.option("--port", type=PORT, default=None, help="Port (default 5000; 0 picks a free port).")
@click.option(
    "--auth",
    type=click.Choice(["open", "required"]),
    default=None,
    help="Require bearer tokens (default: open on localhost, required elsewhere).",
)
@click.option(
    "--allow-open-public", is_flag=True, help="Allow --auth open on a non-loopback address."
)
@click.option(
    "--notify",
    "notify_urls",
    multiple=True,
    metavar="URL",
    help="Post every change alert to this webhook (repeatable; [[notify]] in --config filters "
    "by namespace and kind).",
)
@click.option(
    "--forward",
    "forward_urls",
    multiple=True,
    metavar="URL",
    help="Pass every accepted event on to this OpenLineage backend (repeatable).",
)
@click.option(
    "--store",
    type=click.Choice(["on", "off"]),
    default=None,
    help="off: proxy-only, forward without keeping lineage.",
)
@click.option(
    "--catalog",
    "catalog_options",
    multiple=True,
    metavar="NAME:key=value,…",
    help="A pyiceberg catalog for enrichment (repeatable).",
)
@click.option(
    "--max-body-bytes",
    type=int,
    default=None,
    help="Largest request body accepted, also after gzip decompression (default 10 MiB).",
)
@click.option(
    "--ingest-memory-bytes",
    type=int,
    default=None,
    help="Memory all concurrent POST /api/v1/lineage requests and the normalizer may hold; "
    "beyond it requests wait up to 3 s, then get 503 + Retry-After (default 512 MiB).",
)
@click.option(
    "--access-log/--no-access-log",
    default=None,
    help="One line per request on stderr: method, path, status, time, token name (default on).",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="Also answer requests for this Host name (repeatable); on a non-loopback bind, "
    "only these names are answered.",
)
@click.option(
    "--auth-meta/--no-auth-meta",
    default=None,
    help="With --auth required, /metrics, /openapi.json and /docs need a read token too.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Server processes sharing the port (PostgreSQL only: SQLite has one writer).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="TOML config file; flags override it.",
)
def serve(
    db_url: str | None,
    host: str | None,
    port: int | None,
    auth: str | None,
    allow_open_public: bool,
    forward_urls: tuple[str, ...],
    notify_urls: tuple[str, ...],
    store: str | None,
    catalog_options: tuple[str, ...],
    max_body_bytes: int | None,
    ingest_memory_bytes: int | None,
    access_log: bool | None,
    allowed_hosts: tuple[str, ...],
    auth_meta: bool | None,
    workers: int,
    config_file: str | None,
) -> None:
    """Run the OpenLineage-compatible lineage server."""
    from plumbline.server import (
        base_url,
        bind_socket,
        create_app,
        run_workers,
        schedule_full_collections,
        uvicorn_server,
    )
    from plumbline.store import StoreError

    try:
        settings = build_settings(
            db_url=db_url or default_db_url(),
            host=host,
            port=port,
            auth=auth,
            allow_open_public=allow_open_public,
            store=None if store is None else store == "on",
            forward_urls=forward_urls,
            notify_urls=notify_urls,
            catalog_options=catalog_options,
            max_body_bytes=max_body_bytes,
            ingest_memory_bytes=ingest_memory_bytes,
            access_log=access_log,
            allowed_hosts=allowed_hosts,
            auth_meta=auth_meta,
            config_file=config_file,
        )
        if workers > 1 and single_writer(settings.db_url):
            raise ConfigError(
                "--workers above 1 needs PostgreSQL: an SQLite store has a single writer"
            )
        if settings.store:
            say_if_new(settings.db_url)
        app = create_app(settings)  # migrates the store, once, before any worker starts
    except (ConfigError, StoreError) as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        sock = bind_socket(settings.host, settings.port)
    except (OSError, OverflowError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise click.ClickException(
            f"cannot listen on {settings.host}:{settings.port}: {reason}"
        ) from exc
    click.echo(f"plumbline serving on {base_url(sock)}")
    sys.stdout.flush()
    if workers == 1:
        schedule_full_collections()
        uvicorn_server(app, log_level="info").run(sockets=[sock])
        return
    app.state.store.dispose()  # each worker opens its own connections

    def serve_one(worker_socket: socket.socket) -> None:
        schedule_full_collections()  # in the worker: threads do not survive the fork
        uvicorn_server(create_app(settings), log_level="info").run(sockets=[worker_socket])

    sys.exit(run_workers(workers, sock, serve_one))
