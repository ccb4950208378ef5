"""`plumbline db upgrade` applies schema migrations; `plumbline db prune` trims per-run history;
`plumbline db renormalize` retries the events that could not be normalized."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import click

from plumbline.cli.options import db_option
from plumbline.cli.stores import existing_store, reachable, say_if_new
from plumbline.store import Store, default_db_url


@click.group()
def db() -> None:
    """Manage the store's database."""


@db.command()
@db_option
def upgrade(db_url: str | None) -> None:
    """Migrate the database to the newest schema."""
    from plumbline.store import StoreError, current_revision
    from plumbline.store import upgrade as run_upgrade

    url = db_url or default_db_url()
    say_if_new(url)
    store = reachable(url)
    before = current_revision(store.engine)
    try:
        after = run_upgrade(store.engine)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"database at revision {after} (was {before or 'empty'})")


_UNITS = {
    "m": timedelta(minutes=1),
    "h": timedelta(hours=1),
    "d": timedelta(days=1),
    "w": timedelta(weeks=1),
}


def _age(text: str) -> timedelta:
    """`30d`, `12h`, `2w`, `90m` as a timedelta (a click parameter converter)."""
    number, unit = text[:-1], text[-1:].lower()
    if unit not in _UNITS or not number.isdigit() or int(number) == 0:
        raise click.BadParameter(
            f"{text!r}: expected a positive number and a unit m, h, d or w (e.g. 30d)"
        )
    return int(number) * _UNITS[unit]


def _instant(text: str) -> datetime:
    """An ISO 8601 date or date-time; naive values are taken as UTC."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(f"{text!r}: expected an ISO 8601 date or date-time") from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


@db.command()
@db_option
@click.option(
    "--older-than", "older_than", help="Prune what is older than this age: 30d, 12h, 2w, 90m."
)
@click.option(
    "--before",
    "before_text",
    help="Prune what is older than this ISO 8601 date or time (UTC if no zone).",
)
@click.option(
    "--batches-older-than",
    help="Prune streaming runs' micro-batches older than this age (default: the cut-off above).",
)
@click.option(
    "--batches-before",
    "batches_before_text",
    help="Prune micro-batches older than this ISO 8601 date or time (UTC if no zone).",
)
@click.option("--dry-run", is_flag=True, help="Count what would be deleted; change nothing.")
def prune(
    db_url: str | None,
    older_than: str | None,
    before_text: str | None,
    batches_older_than: str | None,
    batches_before_text: str | None,
    dry_run: bool,
) -> None:
    """Delete raw events and finished runs older than a cut-off.

    Lineage (datasets, jobs, fields, edges) is never pruned, and every job keeps its latest run.
    Streaming runs' micro-batches go by their own cut-off (--batches-older-than/--batches-before,
    default the same), whatever their run.
    """
    from plumbline.store import prune as run_prune

    if (older_than is None) == (before_text is None):
        raise click.UsageError("give exactly one of --older-than and --before")
    if batches_older_than is not None and batches_before_text is not None:
        raise click.UsageError("give at most one of --batches-older-than and --batches-before")
    now = datetime.now(UTC)
    before = _instant(before_text) if before_text else now - _age(older_than or "")
    batches_before = before
    if batches_before_text is not None:
        batches_before = _instant(batches_before_text)
    elif batches_older_than is not None:
        batches_before = now - _age(batches_older_than)
    store = _store_at_newest_schema(db_url)
    deleted = run_prune(store.engine, before, batches_before=batches_before, dry_run=dry_run)
    verb = "would delete" if dry_run else "deleted"
    click.echo(f"cut-off {before.isoformat(timespec='seconds')}")
    if batches_before != before:
        click.echo(f"micro-batch cut-off {batches_before.isoformat(timespec='seconds')}")
    for table, count in deleted.items():
        click.echo(f"{verb} {count} {table} rows")


def _store_at_newest_schema(db_url: str | None) -> Store:
    """The store, once it exists (nothing is created: a missing one is refused, exit 2)
    and its schema is known to be this plumbline's newest (read without alembic when it is;
    alembic explains when it is not)."""
    from plumbline.store import at_newest_schema

    store = existing_store(db_url)
    if at_newest_schema(store.engine):
        return store
    from plumbline.store import StoreError, check_not_newer, current_revision, head_revision

    try:
        check_not_newer(store.engine)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    if current_revision(store.engine) != head_revision():
        raise click.ClickException(
            "the database is not at the newest schema: run `plumbline db upgrade` first"
        )
    return store


@db.command()
@db_option
@click.option("--dry-run", is_flag=True, help="Count the failed events by error; change nothing.")
def renormalize(db_url: str | None, dry_run: bool) -> None:
    """Normalize again the events that could not be normalized.

    Such events are kept, raw, with their error (``plumbline_normalize_failed`` counts them);
    after an upgrade that mends the cause, this writes them into the lineage tables. Those that
    fail again stay marked, with their new error, and the command exits with status 1.
    """
    from sqlalchemy.exc import DBAPIError

    from plumbline.store import failed_events
    from plumbline.store.write import StoreWriter

    store = _store_at_newest_schema(db_url)
    _rebuild_input_versions(store, dry_run)
    _rebuild_column_history(store, dry_run)
    with store.connection() as connection:
        by_error = failed_events(connection)
    total = sum(by_error.values())
    if not total:
        click.echo("no failed events")
        return
    click.echo(f"{total} failed event{'s' if total != 1 else ''}, by error:")
    for error, count in by_error.items():
        click.echo(f"  {count:>7}  {_one_line(error)}")
    if dry_run:
        return

    def progress(done: int, of: int) -> None:
        click.echo(f"normalized again: {done} of {of}")

    try:
        retried = StoreWriter(store.engine).normalizer.retry_failed(progress)
    except DBAPIError as exc:  # the database went away: what was unmarked stays pending
        raise click.ClickException(
            f"the database failed: {exc.orig}. Events already taken up are pending again and "
            "a server normalizes them when it starts; run this again for the rest"
        ) from exc
    click.echo(f"{retried.normalized} normalized, {len(retried.failed)} failed again")
    if retried.failed:
        first = _one_line(next(iter(retried.failed.values())))
        raise click.ClickException(
            f"{len(retried.failed)} event(s) still cannot be normalized, e.g. {first}"
        )


def _rebuild_input_versions(store: Store, dry_run: bool) -> None:
    """Run inputs linked before schema 0010 get their version and its source from their runs'
    raw events (said only when there are any)."""
    from plumbline.store.write.input_versions import rebuild_input_versions

    done = rebuild_input_versions(store.engine, dry_run=dry_run)
    if done.rebuilt or done.without_events:
        verb = "would link" if dry_run else "linked"
        click.echo(
            f"{verb} {done.rebuilt} run input(s) from before schema 0010 to the version they read"
            f" (from their runs' raw events); {done.without_events} have no raw events left and"
            " keep their old link (versionSource null)"
        )


def _rebuild_column_history(store: Store, dry_run: bool) -> None:
    """Runs recorded before schema 0012 get their column-lineage history (which run carried
    which column edge) from their raw events (said only when there are any)."""
    from plumbline.store.write.history_rebuild import rebuild_column_history

    done = rebuild_column_history(store.engine, dry_run=dry_run)
    if done.runs or done.skipped:
        verb = "would give" if dry_run else "gave"
        click.echo(
            f"{verb} {done.runs} run(s) from before schema 0012 their column-lineage history"
            f" ({done.rows} rows, from their raw events); {done.skipped} run(s) whose events"
            " name datasets no longer stored keep none"
        )


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
