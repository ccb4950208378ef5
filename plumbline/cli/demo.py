"""`plumbline demo`: run the demo pipeline with capture on, then serve its lineage."""

from __future__ import annotations

import shlex
import signal
import time
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

import click
import platformdirs

from plumbline.cli.options import PORT, check_db_url
from plumbline.openlineage.urls import redact_url

DEMO_NAMESPACE = "plumbline_demo"
REPORT_TABLE = "country_report"


def demo_dir() -> Path:
    """The demo's own directory in the user's data directory (never the real store)."""
    return Path(platformdirs.user_data_dir("plumbline")) / "demo"


def fresh_demo_db_url(directory: Path) -> str:
    """An SQLite URL for a demo database recreated on each run."""
    directory.mkdir(parents=True, exist_ok=True)
    db = directory / "demo.db"
    for stale in (db, db.with_name("demo.db-wal"), db.with_name("demo.db-shm")):
        stale.unlink(missing_ok=True)
    return f"sqlite:///{db}"


@click.command()
@click.option(
    "--db",
    "db_url",
    default=None,
    callback=check_db_url,
    help="Database URL to store the demo's lineage in "
    "(default: a fresh SQLite file in the user data dir, recreated on each run).",
)
@click.option(
    "--scale",
    type=click.FloatRange(min=0.01, max=100),
    default=1.0,
    show_default=True,
    help="Data volume: 1 is about 1,500 orders a day.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on.")
@click.option(
    "--port", type=PORT, default=5000, show_default=True, help="Port to serve on (0: a free port)."
)
@click.option("--no-serve", is_flag=True, help="Exit after the summary instead of serving.")
def demo(db_url: str | None, scale: float, host: str, port: int, no_serve: bool) -> None:
    """Run a multi-stage PySpark pipeline with lineage capture, then serve its lineage."""
    import httpx
    from rich.console import Console

    try:
        from plumbline.demo.errors import DemoError
        from plumbline.demo.progress import RichReporter, first_sentence, summary_table
        from plumbline.demo.runner import SPARK_ERROR_LOG, prepare_work_dir, run_demo
        from plumbline.demo.session import build_session
        from plumbline.demo.summary import fetch_summary
    except ModuleNotFoundError as exc:
        if exc.name != "pyspark":
            raise
        raise click.ClickException(
            "plumbline demo needs PySpark: pip install 'plumbline[spark]'"
        ) from exc
    from plumbline.server import (
        BackgroundServer,
        ServerSettings,
        create_app,
        schedule_full_collections,
    )
    from plumbline.store import StoreError

    console = Console()
    directory = demo_dir()
    db_url = db_url or fresh_demo_db_url(directory)
    schedule_full_collections()  # this process is the lineage server's
    try:
        # no access log: one line per posted event batch would bury the demo's own progress
        settings = ServerSettings(db_url=db_url, host=host, port=port, access_log=False)
        app = create_app(settings)
        server = BackgroundServer(app, host=host, port=port)
        url = server.start()
    except OSError as exc:
        raise click.ClickException(
            f"cannot serve on {host}:{port}: {exc} (--port 0 picks a free port)"
        ) from exc
    except (StoreError, RuntimeError) as exc:
        raise click.ClickException(f"cannot start the lineage server: {exc}") from exc
    console.print(f"plumbline serving on {url}")
    if host not in ("127.0.0.1", "localhost", "::1"):
        console.print(
            f"[yellow]warning:[/] the demo's lineage is readable by anyone who reaches {url}"
        )
    try:
        paths = prepare_work_dir(directory / "work")
        console.print(f"demo files in {paths.root}")
        with console.status("starting Spark (local[2])"):
            try:
                spark = build_session(paths.warehouse)
            except Exception as exc:  # PySpark raises bare runtime errors when Java is missing
                raise click.ClickException(
                    f"cannot start Spark ({exc}); PySpark needs Java 17 on PATH or JAVA_HOME"
                ) from exc
        try:
            with RichReporter(console) as reporter:
                run = run_demo(spark, paths, url, scale, DEMO_NAMESPACE, reporter)
        finally:
            spark.stop()
            # PySpark's SIGINT handler cancels jobs of the stopped context and would crash on Ctrl-C
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            lineage = fetch_summary(url, DEMO_NAMESPACE, paths.root)
        except httpx.HTTPError as exc:
            raise click.ClickException(f"cannot read the lineage summary: {exc}") from exc
        console.print(summary_table(run, lineage))
        failures = [outcome for outcome in run.outcomes if outcome.failed]
        for outcome in failures:
            console.print(f"failed run: {outcome.step.label}: {first_sentence(outcome.error)}")
        error_log = paths.root / SPARK_ERROR_LOG
        if failures and error_log.exists():
            console.print(f"  Spark's error log: {error_log}", soft_wrap=True)
        console.print(f"Open the lineage UI: [bold]{url}/[/]", soft_wrap=True)
        report = f"dataset:file:{paths.table(REPORT_TABLE)}"
        for title, query in (
            ("the report's lineage", {"node": report}),
            ("where the report's revenue comes from", {"node": report, "column": "revenue"}),
        ):
            console.print(f"  {title}: {url}/lineage?{urlencode(query)}", soft_wrap=True)
        for run_id in lineage.failed_run_ids:
            run_page = f"{url}/runs/{quote(run_id, safe='')}"
            console.print(f"  the failed run and its root cause: {run_page}", soft_wrap=True)
            console.print(
                f"  what changed since its last good run: {run_page}/diff", soft_wrap=True
            )
        if no_serve:
            # the links above point at this process's server, which stops when the command returns
            console.print(
                "The server stops now (--no-serve); to open these links, serve the demo's store: "
                f"plumbline serve --db {shlex.quote(redact_url(db_url))} --port {urlsplit(url).port}",
                soft_wrap=True,
            )
            return
        console.print("serving until Ctrl-C")
        while True:
            time.sleep(3600)
    except DemoError as exc:
        raise click.ClickException(str(exc)) from exc
    except KeyboardInterrupt:
        console.print("stopped")
    finally:
        server.stop()
