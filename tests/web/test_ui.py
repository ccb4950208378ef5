"""The UI in a real headless Chromium against a live plumbline server holding known lineage.

Screenshots go to test-artifacts/ui/ for people to look at.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from . import lineage_events as ev
from .ui_server import UiServer

pytestmark = pytest.mark.browser

CLEAN = f"dataset:file:{ev.CLEAN_ORDERS}"
RAW = f"dataset:file:{ev.RAW_ORDERS}"
CUSTOMERS = f"dataset:file:{ev.RAW_CUSTOMERS}"
REVENUE = f"dataset:file:{ev.REVENUE}"
CLEAN_JOB = f"job:shop:{ev.CLEAN_JOB}"
REVENUE_JOB = f"job:shop:{ev.REVENUE_JOB}"


def lineage_url(server: UiServer, node: str, **params: str) -> str:
    q = "&".join(f"{k}={quote(v, safe='')}" for k, v in {"node": node, **params}.items())
    return f"{server.url}/lineage?{q}"


def node_ids(page: Any) -> set[str]:
    return set(page.eval_on_selector_all("svg.graph .node", "els => els.map(e => e.dataset.id)"))


def node_y(page: Any, node_id: str) -> float:
    transform = page.get_attribute(f'svg.graph .node[data-id="{node_id}"]', "transform")
    return float(re.match(r"translate\([-\d.]+,([-\d.]+)\)", transform).group(1))


def wait_graph(page: Any, nodes: int) -> None:
    page.wait_for_selector(f'svg.graph[data-nodes="{nodes}"]')


def test_lineage_graph_of_known_lineage(page: Any, ui_server: UiServer, artifacts: Path) -> None:
    page.goto(lineage_url(ui_server, CLEAN, depth="3"))
    wait_graph(page, 6)
    assert node_ids(page) == {RAW, CLEAN_JOB, CLEAN, CUSTOMERS, REVENUE_JOB, REVENUE}
    assert page.get_attribute("svg.graph", "data-edges") == "5"
    # Datasets and jobs are distinct nodes; jobs carry their latest run's state.
    assert page.get_attribute(f'.node[data-id="{CLEAN_JOB}"]', "class").split() == [
        "node",
        "node-job",
        "run-completed",
    ]
    assert page.get_attribute(f'.node[data-id="{REVENUE_JOB}"]', "class").split() == [
        "node",
        "node-job",
        "run-failed",
    ]
    assert "focus" in page.get_attribute(f'.node[data-id="{CLEAN}"]', "class").split()
    assert page.text_content(f'.node[data-id="{CLEAN}"] .node-title') == "orders"
    assert page.text_content(f'.node[data-id="{CLEAN}"] .node-sub') == "file · /data/clean"
    assert page.text_content(f'.node[data-id="{REVENUE_JOB}"] .node-sub') == "FAILED · 4.0 s"
    # One layer per hop: five layers are wider than the canvas left to right at a readable scale,
    # so the graph opens top to bottom, whole.
    assert page.get_attribute("svg.graph", "data-direction") == "TB"
    ys = [node_y(page, n) for n in (RAW, CLEAN_JOB, CLEAN, REVENUE_JOB, REVENUE)]
    assert ys == sorted(ys) and len(set(ys)) == 5
    assert node_y(page, CUSTOMERS) == node_y(page, CLEAN)
    # The focus node is selected and described in the side panel.
    assert page.get_attribute("#node-panel .panel-inner", "data-node") == CLEAN
    assert page.eval_on_selector_all("#node-panel .chip", "els => els.map(e => e.textContent)") == [
        "order_id",
        "customer_id",
        "amount",
        "currency",
    ]
    # Whole and readable: not clamped, titles at least 11 px.
    fitted = float(page.get_attribute("svg.graph", "data-scale"))
    assert fitted * 13 >= 11
    assert page.get_attribute("svg.graph", "data-clamped") == "false"
    page.screenshot(path=str(artifacts / "lineage_graph.png"))

    # Path between two nodes (zoomed out to see both): select raw orders, shift-click the mart.
    page.click("#zoom-out")
    page.click("#zoom-out")
    page.click(f'.node[data-id="{RAW}"] .node-box')
    page.click(f'.node[data-id="{REVENUE}"] .node-box', modifiers=["Shift"])
    assert (
        page.text_content("#path-summary") == "5 nodes and 4 edges lie on the paths between them."
    )
    highlighted = set(
        page.eval_on_selector_all("svg.graph .node.hl", "els => els.map(e => e.dataset.id)")
    )
    assert highlighted == {RAW, CLEAN_JOB, CLEAN, REVENUE_JOB, REVENUE}
    assert page.eval_on_selector_all("svg.graph .edge.hl", "els => els.length") == 4
    page.screenshot(path=str(artifacts / "lineage_path.png"))
    # No path between two sources.
    page.click(f'.node[data-id="{RAW}"] .node-box')
    page.click(f'.node[data-id="{CUSTOMERS}"] .node-box', modifiers=["Shift"])
    assert page.text_content("#path-summary") == "No directed path connects these two nodes."

    # Zoom buttons scale by 1.25; Fit comes back to the fitted (readable) scale.
    zoomed = float(page.get_attribute("svg.graph", "data-scale"))
    page.click("#zoom-in")
    assert float(page.get_attribute("svg.graph", "data-scale")) == pytest.approx(
        zoomed * 1.25, abs=0.002
    )
    page.click("#fit")
    assert float(page.get_attribute("svg.graph", "data-scale")) == pytest.approx(fitted, abs=0.002)
    assert page.page_errors == []


def test_expand_downstream_one_step_at_a_time(
    page: Any, ui_server: UiServer, artifacts: Path
) -> None:
    page.goto(lineage_url(ui_server, RAW, depth="0"))
    wait_graph(page, 3)
    assert node_ids(page) == {RAW, CLEAN_JOB, CLEAN}
    # Only clean orders has something more downstream (the revenue job).
    handles = page.eval_on_selector_all(
        "svg.graph .node .expand",
        "els => els.map(e => [e.closest('.node').dataset.id, e.dataset.dir])",
    )
    assert handles == [[CLEAN, "down"]]
    page.click(f'.node[data-id="{CLEAN}"] .expand[data-dir="down"]')
    wait_graph(page, 4)
    assert node_ids(page) == {RAW, CLEAN_JOB, CLEAN, REVENUE_JOB}
    handles = page.eval_on_selector_all(
        "svg.graph .node .expand",
        "els => els.map(e => [e.closest('.node').dataset.id, e.dataset.dir])",
    )
    assert sorted(handles) == [[REVENUE_JOB, "down"], [REVENUE_JOB, "up"]]
    # The panel's buttons do the same: expand the job upstream (adds raw customers).
    page.click(f'.node[data-id="{REVENUE_JOB}"] .node-box')
    assert page.text_content("#expand-up") == "Expand upstream (1)"
    page.click("#expand-up")
    wait_graph(page, 5)
    assert node_ids(page) == {RAW, CLEAN_JOB, CLEAN, REVENUE_JOB, CUSTOMERS}
    page.screenshot(path=str(artifacts / "lineage_expanded.png"))
    assert page.page_errors == []


def test_search_typeahead_opens_a_dataset(page: Any, ui_server: UiServer, artifacts: Path) -> None:
    page.goto(ui_server.url + "/")
    page.wait_for_selector("#home-jobs")
    page.fill("#search-input", "revenue")
    page.wait_for_selector(".search-item")
    items = page.eval_on_selector_all(
        ".search-item", "els => els.map(e => [e.dataset.type, e.dataset.name])"
    )
    assert items == [["DATASET", ev.REVENUE], ["JOB", ev.REVENUE_JOB]]
    page.screenshot(path=str(artifacts / "search.png"))
    # Keyboard: the first item is active; down selects the job; up and Enter open the dataset.
    page.press("#search-input", "ArrowDown")
    assert page.get_attribute(".search-item.active", "data-name") == ev.REVENUE_JOB
    page.press("#search-input", "ArrowUp")
    page.press("#search-input", "Enter")
    page.wait_for_selector(".page-header h1")
    assert page.url == f"{ui_server.url}/datasets/file/{quote(ev.REVENUE, safe='')}"
    assert page.text_content(".page-header h1") == "revenue_by_country"
    assert page.text_content("#full-name") == ev.REVENUE
    # The filter narrows the search to jobs.
    page.fill("#search-input", "")
    page.select_option("#search-filter", "JOB")
    page.fill("#search-input", "shop_etl")
    page.wait_for_selector(".search-item")
    names = page.eval_on_selector_all(".search-item", "els => els.map(e => e.dataset.name)")
    assert sorted(names) == sorted([ev.APP, ev.CLEAN_JOB, ev.REVENUE_JOB])
    page.fill("#search-input", "no-such-thing")
    page.wait_for_selector(".search-note:has-text('No datasets or jobs match')")
    assert page.page_errors == []


def test_dataset_page(page: Any, ui_server: UiServer, artifacts: Path) -> None:
    page.goto(f"{ui_server.url}/datasets/file/{quote(ev.CLEAN_ORDERS, safe='')}")
    page.wait_for_selector("#versions .version")
    rows = page.eval_on_selector_all(
        "#schema-table tbody tr",
        "rs => rs.map(r => [...r.cells].slice(0, 2).map(c => c.textContent))",
    )
    assert rows == [[n, t] for n, t in ev.CLEAN_V2]
    # Two versions, newest first, each with the run that produced it and the schema difference.
    versions = page.locator("#versions .version")
    assert versions.count() == 2
    newest = versions.nth(0)
    assert newest.locator(".diff-add").inner_text() == "+ currency string"
    assert newest.locator(".diff-chg").inner_text() == "~ amount int → double"
    assert (
        newest.locator(".version-head a[href^='/runs/']").get_attribute("href")
        == f"/runs/{ev.CLEAN_RUNS[1]}"
    )
    assert versions.nth(1).locator(":scope > .muted.small").inner_text() == "First version"
    assert (
        versions.nth(1).locator(".version-head a[href^='/runs/']").get_attribute("href")
        == f"/runs/{ev.CLEAN_RUNS[0]}"
    )
    # Producers and consumers.
    page.wait_for_selector("#producers")
    assert page.eval_on_selector_all("#producers a", "as => as.map(a => a.textContent)") == [
        ev.CLEAN_JOB
    ]
    assert page.eval_on_selector_all("#consumers a", "as => as.map(a => a.textContent)") == [
        ev.REVENUE_JOB
    ]
    # Rows written per run: 100 then 120, oldest first.
    bars = page.eval_on_selector_all(".chart .bar", "bs => bs.map(b => b.dataset.value)")
    assert bars == ["100", "120"]
    # Facets of the dataset.
    facets = page.eval_on_selector_all(".facet summary .mono", "ss => ss.map(s => s.textContent)")
    assert facets == ["columnLineage", "schema"]
    page.screenshot(path=str(artifacts / "dataset.png"), full_page=True)
    assert page.page_errors == []


def test_column_mode(page: Any, ui_server: UiServer, artifacts: Path) -> None:
    page.goto(f"{ui_server.url}/datasets/file/{quote(ev.REVENUE, safe='')}")
    page.click("#open-columns")
    page.wait_for_selector("#column-select option[value='total']", state="attached")
    page.select_option("#column-select", "total")
    wait_graph(page, 7)
    field = f"datasetField:file:{ev.REVENUE}:total"
    assert node_ids(page) == {
        field,
        f"datasetField:file:{ev.CLEAN_ORDERS}:amount",
        f"datasetField:file:{ev.RAW_ORDERS}:amount",
        f"datasetField:file:{ev.CLEAN_ORDERS}:customer_id",
        f"datasetField:file:{ev.RAW_ORDERS}:customer_id",
        f"datasetField:file:{ev.RAW_CUSTOMERS}:customer_id",
        f"datasetField:file:{ev.RAW_CUSTOMERS}:country",
    }
    assert "column=total" in page.url
    labels = sorted(
        page.eval_on_selector_all(".edge-label text", "ts => ts.map(t => t.textContent)")
    )
    assert labels == sorted(
        [
            "DIRECT · AGGREGATION",
            "DIRECT · TRANSFORMATION",
            "DIRECT · IDENTITY",
            "INDIRECT · JOIN",
            "INDIRECT · JOIN",
            "INDIRECT · GROUP_BY",
        ]
    )
    # Direct edges are drawn differently from indirect ones.
    kinds = page.eval_on_selector_all(
        "svg.graph .edge",
        "es => es.map(e => e.classList.contains('edge-indirect') ? 'I' : e.classList.contains('edge-direct') ? 'D' : '?')",
    )
    assert sorted(kinds) == ["D", "D", "D", "I", "I", "I"]
    inputs = page.eval_on_selector_all(
        "#node-panel .field-input", "ls => ls.map(l => l.innerText.replace(/\\n/g, ' '))"
    )
    assert sorted(inputs) == sorted(
        [
            f"amount {ev.CLEAN_ORDERS} DIRECT · AGGREGATION",
            f"customer_id {ev.CLEAN_ORDERS} INDIRECT · JOIN",
            f"country {ev.RAW_CUSTOMERS} INDIRECT · GROUP_BY",
            f"customer_id {ev.RAW_CUSTOMERS} INDIRECT · JOIN",
        ]
    )
    page.screenshot(path=str(artifacts / "column_lineage.png"))
    # Without indirect edges only the columns whose values flow into total remain.
    page.uncheck("#show-indirect")
    wait_graph(page, 3)
    assert "indirect=off" in page.url
    assert node_ids(page) == {
        field,
        f"datasetField:file:{ev.CLEAN_ORDERS}:amount",
        f"datasetField:file:{ev.RAW_ORDERS}:amount",
    }
    assert sorted(
        page.eval_on_selector_all(".edge-label text", "ts => ts.map(t => t.textContent)")
    ) == ["DIRECT · AGGREGATION", "DIRECT · TRANSFORMATION"]
    page.screenshot(path=str(artifacts / "column_lineage_direct.png"))
    assert page.page_errors == []


def test_failed_run(page: Any, ui_server: UiServer, artifacts: Path) -> None:
    page.goto(f"{ui_server.url}/jobs/shop/{quote(ev.REVENUE_JOB, safe='')}")
    page.wait_for_selector("#runs-table")
    assert page.inner_text("#latest-error .alert-msg") == ev.ERROR_MESSAGE
    states = page.eval_on_selector_all(
        "#runs-table tbody tr",
        "rs => rs.map(r => [r.dataset.run, r.cells[0].textContent, r.cells[3].textContent])",
    )
    assert states == [
        [ev.REVENUE_RUNS[1], "FAILED", "4.0 s"],
        [ev.REVENUE_RUNS[0], "COMPLETED", "30 s"],
    ]
    # Each run's inputs and outputs.
    first = page.locator("#runs-table tbody tr").nth(1)
    assert first.locator("td").nth(5).inner_text() == "revenue_by_country /data/marts"
    assert (
        first.locator("td:nth-child(6) a").get_attribute("href")
        == f"/datasets/file/{quote(ev.REVENUE, safe='')}"
    )
    assert (
        first.locator("td:nth-child(5) a").first.get_attribute("title") == f"file {ev.CLEAN_ORDERS}"
    )
    # Durations chart, oldest first, coloured by state.
    bars = page.eval_on_selector_all(
        ".chart .bar", "bs => bs.map(b => [b.dataset.value, b.getAttribute('class')])"
    )
    assert bars == [["30000", "bar state-completed"], ["4000", "bar state-failed"]]
    assert page.locator("#job-versions tbody tr").count() >= 1
    page.screenshot(path=str(artifacts / "job.png"), full_page=True)

    page.click(f"#latest-error a[href='/runs/{ev.FAILED_RUN}']")
    page.wait_for_selector("#run-error")
    assert page.url == f"{ui_server.url}/runs/{ev.FAILED_RUN}"
    assert page.inner_text("#error-message") == ev.ERROR_MESSAGE
    assert not page.locator("#stack-trace").is_visible()  # folded under the message (issue 27)
    page.click("#stack-trace-fold summary")
    assert page.inner_text("#stack-trace") == ev.STACK_TRACE
    assert page.inner_text(".page-header .badge") == "FAILED"
    parent = page.locator("#parent-run a")
    assert parent.nth(0).inner_text() == ev.APP
    assert parent.nth(1).get_attribute("href") == f"/runs/{ev.APP_RUNS[2]}"
    outputs = page.eval_on_selector_all(
        "#outputs-table tbody tr td:first-child a", "as => as.map(a => a.textContent)"
    )
    assert outputs == [ev.REVENUE]
    run_facets = page.eval_on_selector_all(
        ".card:has(h2:text-is('Run facets')) .facet summary .mono",
        "ss => ss.map(s => s.textContent)",
    )
    assert run_facets == ["errorMessage", "parent"]
    page.screenshot(path=str(artifacts / "failed_run.png"), full_page=True)
    assert page.page_errors == []


def test_run_page_shows_statistics_per_output(page: Any, ui_server: UiServer) -> None:
    page.goto(f"{ui_server.url}/runs/{ev.CLEAN_RUNS[1]}")
    page.wait_for_selector("#outputs-table")
    cells = page.eval_on_selector_all(
        "#outputs-table tbody tr td", "ts => ts.map(t => t.innerText)"
    )
    assert cells[0].splitlines() == [ev.CLEAN_ORDERS, "file"]
    assert cells[2:5] == ["120", "7.5 KB", "—"]


def test_run_inputs_list_every_dataset_read(page: Any, ui_server: UiServer) -> None:
    page.goto(f"{ui_server.url}/runs/{ev.REVENUE_RUNS[0]}")
    page.wait_for_selector("#inputs-table")
    inputs = page.eval_on_selector_all(
        "#inputs-table tbody tr td:first-child a", "as => as.map(a => a.textContent)"
    )
    assert sorted(inputs) == sorted([ev.CLEAN_ORDERS, ev.RAW_CUSTOMERS])


def test_events_page_filters_and_pages(page: Any, ui_server: UiServer, artifacts: Path) -> None:
    page.goto(f"{ui_server.url}/events?limit=5")
    page.wait_for_selector("#page-info")
    assert page.inner_text("#page-info") == "1–5 of 14"
    first = page.eval_on_selector_all(".event summary .badge", "bs => bs.map(b => b.textContent)")
    assert first == ["COMPLETE", "FAIL", "START", "START", "COMPLETE"]
    page.click("#next-page")
    page.wait_for_selector("#page-info:has-text('6–10 of 14')")
    assert "page=1" in page.url
    page.screenshot(path=str(artifacts / "events.png"))
    # Only what was received on day 3 (events carry their own eventTime).
    page.goto(f"{ui_server.url}/events?after={quote('2026-01-12T00:00:00.000Z')}")
    page.wait_for_selector("#page-info")
    assert page.inner_text("#page-info") == "1–4 of 4"
    runs = page.eval_on_selector_all(
        ".event summary a.mono", "as => as.map(a => a.getAttribute('href'))"
    )
    assert runs == [
        f"/runs/{r}" for r in (ev.APP_RUNS[2], ev.FAILED_RUN, ev.FAILED_RUN, ev.APP_RUNS[2])
    ]
    # An event expands into its raw JSON.
    page.click(".event summary .event-time")
    raw = page.inner_text(".event[open] pre.json")
    assert f'"runId": "{ev.APP_RUNS[2]}"' in raw
    page.goto(f"{ui_server.url}/events?after={quote('2027-01-01T00:00:00.000Z')}")
    page.wait_for_selector(".state-empty")
    assert page.inner_text(".state-empty .state-title") == "No events"
    assert page.page_errors == []


def test_deep_links_and_not_found(page: Any, ui_server: UiServer) -> None:
    page.goto(f"{ui_server.url}/datasets/file/{quote('/data/nope', safe='')}")
    page.wait_for_selector(".state-error")
    assert page.inner_text(".state-error .state-title") == "Not found"
    page.goto(f"{ui_server.url}/no/such/page")
    assert page.title() == "" or page.locator(".state-title").count() == 0  # the server's own 404
    page.goto(f"{ui_server.url}/jobs/shop/{quote(ev.CLEAN_JOB, safe='')}")
    page.wait_for_selector("#runs-table")
    # Browser back/forward keep working across client-side navigation.
    page.click(f"a[href='/runs/{ev.CLEAN_RUNS[1]}'] >> nth=0")
    page.wait_for_selector("#outputs-table")
    page.go_back()
    page.wait_for_selector("#runs-table")
    assert page.url.endswith(f"/jobs/shop/{quote(ev.CLEAN_JOB, safe='')}")
