"""The impact view and the readable graph, in headless Chromium on a live server holding a crafted
diamond with a wide fan-out (tests/web/analysis_events.py)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import expect

from . import analysis_events as ae
from .ui_server import UiServer

pytestmark = pytest.mark.browser

SRC = f"dataset:file:{ae.SRC}"
SINK = f"dataset:file:{ae.SINK}"
LEFT = f"dataset:file:{ae.LEFT}"
JOIN = f"job:shop:{ae.JOIN_JOB}"
LEFT_JOB = f"job:shop:{ae.LEFT_JOB}"


def level_ids(page: Any, distance: int) -> list[str]:
    return page.eval_on_selector_all(
        f'.impact-level[data-distance="{distance}"] .impact-node',
        "els => els.map(e => e.dataset.id)",
    )


def test_impact_downstream_of_a_diamond(page: Any, diamond: UiServer, artifacts: Path) -> None:
    # From the dataset page's Impact button.
    page.goto(f"{diamond.url}/datasets/file/{quote(ae.SRC, safe='')}")
    page.click("#open-impact")
    page.wait_for_selector(".impact-level")
    assert page.url == f"{diamond.url}/impact?node={quote(SRC, safe='')}&direction=downstream"
    fan_jobs = [f"job:shop:{j}" for j in ae.FAN_JOBS]
    assert sorted(level_ids(page, 1)) == sorted([LEFT_JOB, f"job:shop:{ae.RIGHT_JOB}", *fan_jobs])
    assert len(level_ids(page, 2)) == 2 + ae.FAN
    assert level_ids(page, 3) == [JOIN]
    assert level_ids(page, 4) == [SINK]
    assert page.inner_text("#impact-summary") == "30 nodes downstream: 15 jobs, 15 datasets"
    sink = page.locator(f'.impact-node[data-id="{SINK}"]')
    # One shortest path (ties by id: through the left branch) and the last version's run.
    assert sink.locator(".impact-path").inner_text() == "via diamond.left → left → diamond.join"
    join = page.locator(f'.impact-node[data-id="{JOIN}"]')
    assert join.locator(".badge").inner_text() == "FAILED"
    assert join.locator("a[href^='/runs/']").get_attribute("href") == f"/runs/{ae.JOIN_RUNS[1]}"
    left = page.locator(f'.impact-node[data-id="{LEFT}"] .impact-last a')
    assert left.get_attribute("href") == f"/runs/{ae.LEFT_RUNS[1]}"
    # The graph beside the list folds the 14 jobs reading src into 8 and a "+6 more" node.
    page.wait_for_selector("svg.graph .node-more")
    assert page.locator("svg.graph .node-more").get_attribute("data-count") == "6"
    assert float(page.get_attribute("svg.graph", "data-scale")) >= 0.8
    # The list scrolls beside a graph the size of the window, the start node in sight.
    graph = page.locator("svg.graph").bounding_box()
    assert graph["y"] + graph["height"] <= 900
    start = page.locator(f'svg.graph .node[data-id="{SRC}"]').bounding_box()
    assert graph["y"] < start["y"] < graph["y"] + graph["height"] - start["height"]
    page.screenshot(path=str(artifacts / "impact_downstream.png"))
    # Picking a folded node in the list shows it in the graph and selects it.
    hidden = [j for j in fan_jobs if page.locator(f'svg.graph .node[data-id="{j}"]').count() == 0]
    assert len(hidden) == 6
    page.click(f'.impact-node[data-id="{hidden[0]}"] .muted')
    page.wait_for_selector(f'svg.graph .node.selected[data-id="{hidden[0]}"]')
    assert "selected" in page.get_attribute(f'.impact-node[data-id="{hidden[0]}"]', "class")

    # Export: the CSV and JSON links are the API's answers.
    csv_href = page.get_attribute("#export-csv", "href")
    assert "format=csv" in csv_href and page.get_attribute("#export-csv", "download")
    rows = list(csv.DictReader(io.StringIO(httpx.get(diamond.url + csv_href).text)))
    assert [r["id"] for r in rows if r["distance"] == "4"] == [SINK]
    body = httpx.get(diamond.url + page.get_attribute("#export-json", "href")).json()
    assert body["direction"] == "downstream" and len(body["nodes"]) == 31

    # Nothing is upstream of the source.
    page.click("#dir-upstream")
    page.wait_for_selector("#impact-summary:text('Nothing upstream.')")
    assert page.locator(".canvas .state-title").inner_text() == "Nothing upstream"
    # Upstream of the sink; the depth select keeps the deep link.
    page.goto(f"{diamond.url}/impact?node={quote(SINK, safe='')}&direction=upstream")
    page.wait_for_selector('.impact-level[data-distance="4"]')
    page.select_option("#impact-depth", "2")
    page.wait_for_url(
        f"{diamond.url}/impact?node={quote(SINK, safe='')}&direction=upstream&depth=2"
    )
    expect(page.locator(".impact-level")).to_have_count(2)  # (no string eval: the CSP forbids it)
    assert level_ids(page, 1) == [JOIN]
    assert sorted(level_ids(page, 2)) == [LEFT, f"dataset:file:{ae.RIGHT}"]
    assert page.locator('.impact-level[data-distance="3"]').count() == 0
    assert page.locator("#dir-upstream").get_attribute("class") == "on"
    assert page.page_errors == []


def test_column_impact_and_unknown_node(page: Any, diamond: UiServer) -> None:
    field = f"datasetField:file:{ae.SRC}:amount"
    page.goto(f"{diamond.url}/datasets/file/{quote(ae.SRC, safe='')}")
    page.wait_for_selector("#schema-table")
    page.click("#schema-table a[title='What amount feeds']")
    page.wait_for_selector(".impact-level")
    assert page.url == f"{diamond.url}/impact?node={quote(field, safe='')}&direction=downstream"
    assert level_ids(page, 1) == [f"datasetField:file:{ae.LEFT}:amount"]
    assert level_ids(page, 2) == [f"datasetField:file:{ae.SINK}:total"]
    assert page.inner_text("#impact-summary") == "2 nodes downstream: 0 jobs, 2 fields"
    page.goto(f"{diamond.url}/impact?node={quote('dataset:file:/nope', safe='')}")
    page.wait_for_selector(".state-error")
    assert "/nope" in page.inner_text(".state-error .state-detail")
    assert page.page_errors == []


def test_lineage_fan_out_folds_and_expands(page: Any, diamond: UiServer, artifacts: Path) -> None:
    page.goto(f"{diamond.url}/lineage?node={quote(SRC, safe='')}&depth=1")
    src_more = f'svg.graph .node-more[data-id="more:out:{SRC}"]'
    page.wait_for_selector(src_more)
    # 14 jobs read src: 8 drawn, then "+6 more"; the graph opens whole at a readable scale, so
    # join, one step further than fits, folds after left and right.
    assert page.locator("svg.graph .node-job").count() == 8
    assert page.text_content(f"{src_more} .node-title") == "+6 more"
    assert page.locator(f'svg.graph .node-more[data-id="more:out:{LEFT}"]').count() == 1
    assert float(page.get_attribute("svg.graph", "data-scale")) * 13 >= 11
    assert page.get_attribute("svg.graph", "data-clamped") == "false"
    page.screenshot(path=str(artifacts / "lineage_fanout_folded.png"))
    page.click(src_more)
    expect(page.locator("svg.graph .node-job")).to_have_count(14)
    assert page.locator(src_more).count() == 0
    # (the grown graph keeps the zoom and centres on src: left's fold may be out of view)
    page.locator(f'svg.graph .node-more[data-id="more:out:{LEFT}"]').dispatch_event("click")
    expect(page.locator("svg.graph .node-job")).to_have_count(15)
    page.click("#fit")
    assert float(page.get_attribute("svg.graph", "data-scale")) * 13 >= 11
    assert page.locator("#open-impact").get_attribute("href") == (
        f"/impact?node={quote(SRC, safe='')}&direction=downstream"
    )
    # The side panel links the selected node's impact both ways.
    page.click(f'svg.graph .node[data-id="{LEFT_JOB}"] .node-box')
    page.click("#panel-impact-up")
    page.wait_for_selector(".impact-level")
    assert page.url.endswith(f"/impact?node={quote(LEFT_JOB, safe='')}&direction=upstream")
    assert level_ids(page, 1) == [SRC]
    assert page.page_errors == []
