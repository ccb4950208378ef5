"""`plumbline demo --no-serve` end to end: the real command, real Spark, capture over HTTP, then the
lineage a user would expect, read back through the Marquez-compatible HTTP API.

Runs once on the default demo database (SQLite in the user data dir, here a temporary
XDG_DATA_HOME) and once on a fresh PostgreSQL database.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import uuid
from collections import defaultdict
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import sqlalchemy as sa

from plumbline.demo.paths import DemoPaths
from plumbline.openlineage.urls import redact_url

ROOT = Path(__file__).resolve().parents[2]
PG_ADMIN_URL = os.environ.get(
    "PLUMBLINE_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
SCALE = "0.05"
JOB_NAMESPACE = "plumbline_demo"

FACT_COLUMNS = [
    "order_id", "order_date", "channel", "customer_id", "customer_name", "country",
    "product_id", "product_name", "category", "quantity", "unit_price", "amount",
    "returned_quantity",
]  # fmt: skip


def _missing_parts() -> str | None:
    import plumbline.spark
    from plumbline.server.api import routers

    if not hasattr(plumbline.spark, "enable"):
        return "needs plumbline.spark.enable (the Spark capture)"
    routes = {getattr(route, "path", "") for router in routers for route in router.routes}
    if not any(path.startswith("/api/v1/column-lineage") for path in routes):
        return "needs the read API (/api/v1/lineage, /api/v1/column-lineage, runs, versions)"
    return None


pytestmark = [
    pytest.mark.spark,
    pytest.mark.slow,
    pytest.mark.skipif(_missing_parts() is not None, reason=str(_missing_parts())),
]


def run_demo_command(data_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m plumbline demo --no-serve --port 0 --scale 0.05 ARGS` with its own data dir."""
    env = dict(os.environ, XDG_DATA_HOME=str(data_home), PYTHONPATH=str(ROOT), COLUMNS="100")
    command = [sys.executable, "-m", "plumbline", "demo", "--no-serve", "--port", "0"]
    return subprocess.run(
        [*command, "--scale", SCALE, *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip


class Lineage:
    """The read API of a server started on the demo's database."""

    def __init__(
        self, client: httpx.Client, paths: DemoPaths, demo_output: str, demo_errors: str = ""
    ) -> None:
        self.client = client
        self.paths = paths
        self.demo_output = demo_output
        self.demo_errors = demo_errors

    def get(self, path: str, **params: Any) -> Any:
        response = self.client.get(path, params=params)
        assert response.status_code == 200, (
            f"{path} {params}: {response.status_code} {response.text}"
        )
        return response.json()

    def graph(self, dataset: Path) -> list[dict[str, Any]]:
        return self.get("/api/v1/lineage", nodeId=f"dataset:file:{dataset}", depth=20)["graph"]

    def upstream_fields(self, dataset: Path, field: str) -> set[str]:
        graph = self.get(
            "/api/v1/column-lineage",
            nodeId=f"datasetField:file:{dataset}:{field}",
            depth=20,
            withDownstream="false",
        )["graph"]
        return {node["id"] for node in graph}

    def direct_inputs(self, dataset: Path, field: str) -> dict[tuple[str, str], set[str]]:
        """(input dataset, field) -> DIRECT subtypes, from the field's column-lineage node."""
        node_id = f"datasetField:file:{dataset}:{field}"
        graph = self.get("/api/v1/column-lineage", nodeId=node_id, depth=1)["graph"]
        node = next(n for n in graph if n["id"] == node_id)
        direct: dict[tuple[str, str], set[str]] = defaultdict(set)
        for source in node["data"]["inputFields"]:
            for transformation in source["transformations"]:
                if transformation["type"] == "DIRECT":
                    direct[(source["dataset"], source["field"])].add(transformation["subtype"])
        return dict(direct)

    def versions(self, dataset: Path) -> list[dict[str, Any]]:
        name = quote(str(dataset), safe="")
        return self.get(f"/api/v1/namespaces/file/datasets/{name}/versions", limit=100)["versions"]

    def runs(self, job: str) -> list[dict[str, Any]]:
        path = f"/api/v1/namespaces/{JOB_NAMESPACE}/jobs/{quote(job, safe='')}/runs"
        return self.get(path, limit=100)["runs"]


def _data_home(root: Path) -> Path:
    """A user data dir holding a stale demo.db, which the demo must recreate."""
    home = root / "data"
    stale = home / "plumbline" / "demo" / "demo.db"
    stale.parent.mkdir(parents=True)
    stale.write_text("not a database: the demo must recreate it")
    return home


@contextmanager
def _fresh_pg_database() -> Iterator[str]:
    admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"plumbline_demo_test_{uuid.uuid4().hex[:10]}"
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield sa.make_url(PG_ADMIN_URL).set(database=name).render_as_string(False)
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def demo_lineage(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Lineage]:
    """Run the demo command once per backend, then serve its database for the read API."""
    from plumbline.server.app import create_app
    from plumbline.server.runner import BackgroundServer
    from plumbline.server.settings import ServerSettings

    data_home = _data_home(tmp_path_factory.mktemp(f"demo-{request.param}"))
    demo_dir = data_home / "plumbline" / "demo"
    with ExitStack() as stack:
        if request.param == "sqlite":
            db_url = f"sqlite:///{demo_dir / 'demo.db'}"
            result = run_demo_command(data_home)
        else:
            db_url = stack.enter_context(_fresh_pg_database())
            result = run_demo_command(data_home, "--db", db_url)
        assert result.returncode == 0, result.stdout + result.stderr
        out = result.stdout
        # the demo's output is its own progress: no access-log line per posted batch
        assert '"POST /api/v1/lineage' not in result.stdout + result.stderr, result.stderr
        assert re.search(r"^plumbline serving on http://127\.0\.0\.1:\d+$", out, re.M), out
        assert re.search(r"failed runs\W+1\b", out), out
        assert re.search(r"Open the lineage UI: http://127\.0\.0\.1:\d+/", out), out
        # --no-serve: the printed links point at a server that has stopped; say how to serve them
        port = re.search(r"Open the lineage UI: http://127\.0\.0\.1:(\d+)/", out)
        assert port and f"plumbline serve --db {redact_url(db_url)} --port {port[1]}" in out, out
        server = BackgroundServer(create_app(ServerSettings(db_url=db_url, port=0)), port=0)
        url = server.start()
        stack.callback(server.stop)
        client = stack.enter_context(httpx.Client(base_url=url, timeout=60))
        yield Lineage(client, DemoPaths.under(demo_dir / "work"), out, result.stderr)


def _stage_inputs(graph: list[dict[str, Any]]) -> dict[str, set[str]]:
    """For each dataset some job wrote: the datasets jobs writing it read."""
    inputs: dict[str, set[str]] = defaultdict(set)
    for node in graph:
        if node["type"] != "JOB":
            continue
        reads = {edge["origin"] for edge in node["inEdges"]}
        for edge in node["outEdges"]:
            inputs[edge["destination"]] |= reads
    return inputs


def test_every_stage_reads_and_writes_what_its_code_says(demo_lineage: Lineage) -> None:
    p = demo_lineage.paths
    graph = [*demo_lineage.graph(p.table("country_report")), *demo_lineage.graph(p.raw_orders_web)]
    inputs = _stage_inputs(graph)

    def ds(path: Path) -> str:
        return f"dataset:file:{path}"

    expected = {
        p.clean_orders: {p.raw_orders_web, p.raw_orders_store},
        p.clean_customers: {p.raw_customers},
        p.clean_products: {p.raw_products},
        p.clean_returns: {p.raw_returns},
        p.table("fact_orders"): {
            p.clean_orders,
            p.clean_customers,
            p.clean_products,
            p.clean_returns,
        },
        p.table("daily_revenue"): {p.table("fact_orders")},
        p.customer_ltv: {p.table("fact_orders")},
        p.table("product_return_rates"): {p.table("fact_orders")},
        p.table("country_report"): {p.table("daily_revenue"), p.customer_ltv},
    }
    assert {ds(out): inputs[ds(out)] for out in expected} == {
        ds(out): {ds(i) for i in ins} for out, ins in expected.items()
    }
    assert set(inputs) == {ds(out) for out in expected}


def test_report_columns_trace_back_to_the_raw_files(demo_lineage: Lineage) -> None:
    p = demo_lineage.paths
    report = p.table("country_report")

    def field(path: Path, name: str) -> str:
        return f"datasetField:file:{path}:{name}"

    revenue = demo_lineage.upstream_fields(report, "revenue")
    for raw in (p.raw_orders_web, p.raw_orders_store):
        assert {field(raw, "quantity"), field(raw, "unit_price")} <= revenue
    assert field(p.table("daily_revenue"), "revenue") in revenue
    assert field(p.table("fact_orders"), "amount") in revenue
    assert field(p.raw_returns, "reason") not in revenue

    assert demo_lineage.direct_inputs(report, "revenue") == {
        (str(p.table("daily_revenue")), "revenue"): {"AGGREGATION"}
    }

    top_customer = demo_lineage.upstream_fields(report, "top_customer")
    assert {
        field(p.customer_ltv, "customer_name"),
        field(p.table("fact_orders"), "customer_name"),
        field(p.clean_customers, "name"),
        field(p.raw_customers, "name"),
    } <= top_customer
    assert field(p.raw_orders_web, "discount") not in top_customer


def test_the_failed_run_keeps_its_spark_error(demo_lineage: Lineage) -> None:
    p = demo_lineage.paths
    graph = demo_lineage.graph(p.clean_orders)
    writers = [
        node["data"]["name"]
        for node in graph
        if node["type"] == "JOB"
        and f"dataset:file:{p.clean_orders}" in {e["destination"] for e in node["outEdges"]}
    ]
    assert len(writers) == 1, writers
    runs = demo_lineage.runs(writers[0])
    oldest_first = sorted(runs, key=lambda run: run["createdAt"])
    assert [run["state"] for run in oldest_first] == ["COMPLETED", "FAILED", "COMPLETED"]
    error = oldest_first[1]["facets"]["errorMessage"]
    assert error["message"].find("[CAST_INVALID_INPUT]") >= 0, error
    assert error["programmingLanguage"]


def test_fact_orders_has_a_version_before_and_after_the_new_columns(demo_lineage: Lineage) -> None:
    versions = demo_lineage.versions(demo_lineage.paths.table("fact_orders"))
    schemas = [[f["name"] for f in version["fields"]] for version in versions if version["fields"]]
    assert FACT_COLUMNS in schemas
    assert [*FACT_COLUMNS, "discount", "net_amount"] in schemas
    newest = max(versions, key=lambda version: version["createdAt"])
    assert [f["name"] for f in newest["fields"]] == [*FACT_COLUMNS, "discount", "net_amount"]
    assert demo_lineage.direct_inputs(demo_lineage.paths.table("fact_orders"), "net_amount") == {
        (str(demo_lineage.paths.clean_orders), "quantity"): {"TRANSFORMATION"},
        (str(demo_lineage.paths.clean_orders), "unit_price"): {"TRANSFORMATION"},
        (str(demo_lineage.paths.clean_orders), "discount"): {"TRANSFORMATION"},
    }
    assert {tuple(s) for s in schemas} == {
        tuple(FACT_COLUMNS),
        (*FACT_COLUMNS, "discount", "net_amount"),
    }


def test_demo_serves_its_lineage_until_interrupted(tmp_path: Path) -> None:
    """Without --no-serve the command keeps serving the UI and API, and Ctrl-C ends it cleanly."""
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path), PYTHONPATH=str(ROOT), COLUMNS="100")
    command = [sys.executable, "-m", "plumbline", "demo", "--port", "0", "--scale", "0.01"]
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        assert process.stdout is not None
        lines = []
        for line in process.stdout:
            lines.append(line)
            if line.startswith("serving until Ctrl-C"):
                break
        out = "".join(lines)
        url = re.search(r"Open the lineage UI: (http://127\.0\.0\.1:\d+)/", out)
        assert url, out
        with httpx.Client(base_url=url.group(1), timeout=30) as client:
            assert client.get("/").status_code == 200
            jobs = client.get(f"/api/v1/namespaces/{JOB_NAMESPACE}/jobs").json()
            assert jobs["totalCount"] > 0
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=60)
        assert process.returncode == 0
        assert rest.strip().endswith("stopped")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.browser
def test_the_printed_ui_links_show_the_report_lineage(demo_lineage: Lineage) -> None:
    """The deep links the demo prints open the report's graph and its revenue column's graph."""
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("chromium is not installed")
    from playwright.sync_api import sync_playwright

    links = re.findall(
        r"^  .*?: http://127\.0\.0\.1:\d+(/lineage\?\S+)$", demo_lineage.demo_output, re.M
    )
    assert len(links) == 2, demo_lineage.demo_output
    p = demo_lineage.paths
    report, revenue = f"file:{p.table('country_report')}", f"file:{p.table('daily_revenue')}"
    expected = [
        [f"dataset:{report}", f"dataset:{revenue}"],
        [f"datasetField:{report}:revenue", f"datasetField:{revenue}:revenue"],
    ]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        for link, node_ids in zip(links, expected, strict=True):
            page.goto(f"{demo_lineage.client.base_url}".rstrip("/") + link)
            for node_id in node_ids:
                page.wait_for_selector(f'g.node[data-id="{node_id}"]', timeout=30_000)
        browser.close()
    assert errors == []


def test_the_planned_failure_keeps_the_output_a_readable_story(demo_lineage: Lineage) -> None:
    """PySpark 4 logs a failed query's error with its stack trace as a multi-kilobyte JSON line on
    stderr; the demo writes that to a file in its folder and says where."""
    import pyspark

    console = demo_lineage.demo_output + demo_lineage.demo_errors
    assert '"logger"' not in console and '"stacktrace"' not in console, console
    assert "Traceback" not in console, console
    log = demo_lineage.paths.root / "spark-errors.log"
    if int(pyspark.__version__.split(".")[0]) >= 4:
        logged = [json.loads(line) for line in log.read_text().splitlines()]
        assert [entry["logger"] for entry in logged] == ["DataFrameQueryContextLogger"]
        assert "[CAST_INVALID_INPUT]" in logged[0]["msg"]
        assert f"  Spark's error log: {log}" in demo_lineage.demo_output.splitlines()
    assert re.search(r"failed as planned 2024-03-02 clean_orders", demo_lineage.demo_output)


def test_the_demo_prints_the_failed_runs_links(demo_lineage: Lineage) -> None:
    """Beside the report's links: the failed run's page (with its root cause) and its diff."""
    failed = _failed_clean_orders_run(demo_lineage)["id"]
    out = demo_lineage.demo_output
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Open the lineage UI: "))
    base = lines[start].removeprefix("Open the lineage UI: ").rstrip("/")
    links = lines[start + 1 :]
    assert f"  the failed run and its root cause: {base}/runs/{failed}" in links, out
    assert f"  what changed since its last good run: {base}/runs/{failed}/diff" in links, out


@pytest.mark.browser
def test_the_printed_failed_run_links_open_its_root_cause_and_diff(demo_lineage: Lineage) -> None:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("chromium is not installed")
    from playwright.sync_api import sync_playwright

    paths = re.findall(
        r"^  (?:the failed run|what changed)[^:]*: http://127\.0\.0\.1:\d+(/runs/\S+)$",
        demo_lineage.demo_output,
        re.M,
    )
    assert len(paths) == 2, demo_lineage.demo_output
    base = f"{demo_lineage.client.base_url}".rstrip("/")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(base + paths[0])
        page.wait_for_selector("#root-cause table, #root-cause .muted", timeout=30_000)
        assert "CAST_INVALID_INPUT" in page.inner_text("#run-error")
        page.goto(base + paths[1])
        page.wait_for_selector("#run-diff #diff-runs", timeout=30_000)
        assert "CAST_INVALID_INPUT" in page.inner_text("#run-diff")
        browser.close()
    assert errors == []


def test_impact_of_a_raw_file_reaches_the_report(demo_lineage: Lineage) -> None:
    p = demo_lineage.paths
    body = demo_lineage.get(
        "/api/v1/impact", nodeId=f"dataset:file:{p.raw_orders_web}", direction="downstream"
    )
    distance = {node["id"]: node["distance"] for node in body["nodes"]}

    def ds(path: Path) -> str:
        return f"dataset:file:{path}"

    assert distance[ds(p.raw_orders_web)] == 0
    assert distance[ds(p.clean_orders)] == 2
    assert distance[ds(p.table("fact_orders"))] == 4
    assert distance[ds(p.table("daily_revenue"))] == 6
    assert distance[ds(p.table("country_report"))] == 8
    assert ds(p.raw_customers) not in distance  # upstream of fact_orders, not downstream
    report = next(n for n in body["nodes"] if n["id"] == ds(p.table("country_report")))
    assert report["path"][0] == ds(p.raw_orders_web)
    assert ds(p.table("fact_orders")) in report["path"]
    assert report["lastVersion"]["runId"]
    writer = next(n for n in body["nodes"] if n["id"] == report["path"][-2])
    assert writer["type"] == "JOB" and writer["lastRun"]["state"] == "COMPLETED"
    # upstream of the report: every raw file but none of the other reports
    up = demo_lineage.get(
        "/api/v1/impact", nodeId=ds(p.table("country_report")), direction="upstream"
    )
    reached = {node["id"] for node in up["nodes"]}
    assert {ds(p.raw_orders_web), ds(p.raw_orders_store), ds(p.raw_customers)} <= reached
    assert ds(p.table("product_return_rates")) not in reached


def test_column_impact_of_a_raw_column(demo_lineage: Lineage) -> None:
    p = demo_lineage.paths
    body = demo_lineage.get(
        "/api/v1/impact", nodeId=f"datasetField:file:{p.raw_orders_web}:quantity"
    )
    assert body["mode"] == "column"
    nodes = {node["id"]: node for node in body["nodes"]}
    revenue = nodes[f"datasetField:file:{p.table('country_report')}:revenue"]
    assert revenue["distance"] >= 3
    assert any(t["type"] == "DIRECT" for hop in revenue["pathTransformations"] for t in hop)
    # raw quantity reaches the report's revenue through DIRECT edges (an aggregation of amounts)
    assert revenue["indirectOnly"] is False


def test_rerun_plan_after_the_clean_orders_versions(demo_lineage: Lineage) -> None:
    p = demo_lineage.paths
    plan = demo_lineage.get(
        "/api/v1/rerun-plan",
        nodeId=f"dataset:file:{p.clean_orders}",
        since="2000-01-01T00:00:00Z",
    )
    assert plan["badVersions"]
    order_of: dict[str, int] = {}
    for step in plan["steps"]:
        for run in step["runs"]:
            for write in run["writes"]:
                order_of.setdefault(write["name"], step["order"])
            assert any(read["affected"] for read in run["reads"])
    fact, daily = str(p.table("fact_orders")), str(p.table("daily_revenue"))
    report = str(p.table("country_report"))
    assert order_of[fact] < order_of[daily] < order_of[report]
    assert order_of[str(p.customer_ltv)] < order_of[report]
    assert str(p.clean_customers) not in order_of  # reads no clean_orders version
    parents = {json_key(step["parentJob"]) for step in plan["steps"]}
    assert None not in parents  # every Spark action runs under its application's run
    assert sum(len(group["steps"]) for group in plan["groups"]) == len(plan["steps"])


def json_key(value: Any) -> Any:
    return None if value is None else (value["namespace"], value["name"])


@pytest.mark.browser
def test_the_report_graph_opens_whole_and_readable(demo_lineage: Lineage) -> None:
    """The report's lineage graph, as the printed link opens it, at every depth the selector offers
    in a 1400x900 and a 1024x768 window: every node in view, every text at least 11 px."""
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("chromium is not installed")
    from playwright.sync_api import sync_playwright
    from web.graph_checks import assert_whole_and_readable

    report = f"dataset:file:{demo_lineage.paths.table('country_report')}"
    base = f"{demo_lineage.client.base_url}".rstrip("/")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for width, height in ((1400, 900), (1024, 768)):
            page = browser.new_page(viewport={"width": width, "height": height})
            for depth in ("0", "1", "2", "3", "5", "10"):
                page.goto(f"{base}/lineage?node={quote(report, safe='')}&depth={depth}")
                page.wait_for_selector(f'g.node[data-id="{report}"]', timeout=30_000)
                page.wait_for_selector("#node-panel .panel-inner[data-node]", timeout=30_000)
                assert_whole_and_readable(page, f"{width}x{height} depth {depth}")
            page.close()
        browser.close()


def _failed_clean_orders_run(lineage: Lineage) -> dict[str, Any]:
    p = lineage.paths
    writer = next(
        node["data"]["name"]
        for node in lineage.graph(p.clean_orders)
        if node["type"] == "JOB"
        and f"dataset:file:{p.clean_orders}" in {e["destination"] for e in node["outEdges"]}
    )
    return next(run for run in lineage.runs(writer) if run["state"] == "FAILED")


def test_the_failed_runs_diff_points_at_the_planted_cause(demo_lineage: Lineage) -> None:
    """Day 2's clean_orders failed on the store export's decimal-comma prices, with the job's
    code unchanged: the diff against day 1's run says the code did not change, puts the store
    export (its data changed: other bytes) first among the causes, and gives the cast error."""
    p = demo_lineage.paths
    failed = _failed_clean_orders_run(demo_lineage)
    diff = demo_lineage.get(f"/api/v1/jobs/runs/{failed['id']}/diff")
    assert diff["run"]["state"] == "FAILED" and diff["against"]["state"] == "COMPLETED"
    assert diff["againstReason"] == "lastCompleteBefore"
    assert diff["jobVersionChanged"] is False and diff["jobFacetChanges"] == []
    first = diff["suspects"][0]
    assert (first["kind"], first["subject"]) == ("inputChanged", f"file:{p.raw_orders_store}")
    store = next(i for i in diff["inputs"] if i["name"] == str(p.raw_orders_store))
    assert store["byteCount"]["before"] != store["byteCount"]["after"]
    assert store["schemaChanges"] == [] and store["schemaKnown"]
    assert diff["errorSummary"].startswith("[CAST_INVALID_INPUT] The value '")
    assert diff["suspects"][-1]["kind"] == "error"
    cause = demo_lineage.get(
        "/api/v1/root-cause", nodeId=f"job:{JOB_NAMESPACE}:{diff['run']['job']['name']}"
    )
    assert cause["run"]["id"] == failed["id"]
    assert cause["changes"][0]["subject"] == f"file:{p.raw_orders_store}"


def test_rerun_plan_from_the_landing_file_since_the_failed_run(demo_lineage: Lineage) -> None:
    """The store export no job writes: day 2's file (decimal-comma prices) is a version its reads
    observed, so the plan from it since the failed clean_orders run started names that run, the
    fixed rerun after it, and what read their output (issue 31 §5: the plan was empty)."""
    p = demo_lineage.paths
    failed = _failed_clean_orders_run(demo_lineage)
    plan = demo_lineage.get(
        "/api/v1/rerun-plan",
        nodeId=f"dataset:file:{p.raw_orders_store}",
        since=failed["startedAt"],
    )
    runs = {run["id"]: run for step in plan["steps"] for run in step["runs"]}
    assert failed["id"] in runs
    (read,) = [r for r in runs[failed["id"]]["reads"] if r["name"] == str(p.raw_orders_store)]
    assert read["affected"] and read["versionSource"] == "observed"
    written = {w["name"] for run in runs.values() for w in run["writes"]}
    assert str(p.table("country_report")) in written  # followed to the end of the pipeline


def test_version_lineage_of_the_report(demo_lineage: Lineage) -> None:
    """The report's current version was made from day 2's fact_orders, which was made from the
    fixed clean_orders run's version (never the failed run's)."""
    p = demo_lineage.paths
    report = p.table("country_report")
    name = quote(str(report), safe="")
    current = demo_lineage.get(f"/api/v1/namespaces/file/datasets/{name}")["currentVersion"]
    up = demo_lineage.get(f"/api/v1/namespaces/file/datasets/{name}/versions/{current}/lineage")
    versions = up["versions"]
    assert versions[0]["version"] == current and versions[0]["distance"] == 0
    failed = _failed_clean_orders_run(demo_lineage)
    orders = [v for v in versions if v["name"] == str(p.clean_orders)]
    assert orders and all(v["runId"] != failed["id"] for v in orders)
    assert {v["versionSource"] for v in versions[1:]} == {"eventTime", "observed"}
    # the landing files no job writes have the versions their reads observed (issue 31 §5)
    observed = [v for v in versions[1:] if v["versionSource"] == "observed"]
    assert str(p.raw_orders_store) in {v["name"] for v in observed}
    assert all(v["runId"] is None for v in observed)
    assert {v["name"] for v in versions} >= {str(p.raw_orders_store), str(p.table("fact_orders"))}
    down = demo_lineage.get(
        f"/api/v1/namespaces/file/datasets/{quote(str(p.clean_orders), safe='')}/versions/"
        f"{orders[0]['version']}/lineage",
        direction="downstream",
    )
    assert str(report) in {v["name"] for v in down["versions"]}


def test_the_demo_raises_only_the_alerts_it_plants(demo_lineage: Lineage) -> None:
    """Change alerts from the demo's real events (issue 19): its normal runs, day after day, raise
    none; the schema change it plants (``fact_orders`` gains ``discount`` and ``net_amount``) is
    one schema-drift alert naming both. Its failed run follows a single success, fewer than
    failure-after-success needs (3), and two days are too little history for anomalies."""
    alerts = demo_lineage.get("/api/v1/alerts", limit=1000)["alerts"]
    assert [(a["kind"], a["subject"]) for a in alerts] == [
        ("schema-drift", f"dataset:file:{demo_lineage.paths.table('fact_orders')}")
    ]
    (drift,) = alerts
    assert [f["name"] for f in drift["details"]["added"]] == ["discount", "net_amount"]
    assert (drift["details"]["removed"], drift["details"]["retyped"]) == ([], [])
    facts = demo_lineage.paths.table("fact_orders")
    writer = next(
        node["data"]["name"]
        for node in demo_lineage.graph(facts)
        if node["type"] == "JOB"
        and f"dataset:file:{facts}" in {e["destination"] for e in node["outEdges"]}
    )
    day_2 = max(demo_lineage.runs(writer), key=lambda run: run["createdAt"])
    assert (drift["runId"], day_2["state"]) == (day_2["id"], "COMPLETED")  # day 2's run
    reached = {node["id"] for node in drift["blastRadius"]["nodes"]}
    assert f"dataset:file:{demo_lineage.paths.table('country_report')}" in reached
