"""Auth prompt, empty states and a 1,000-node graph, in the real browser against live servers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from . import lineage_events as ev
from .ui_server import post_events, start_server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server with auth required, the event set posted with a write token; yields (url, read token)."""
    from plumbline.server.tokens import create_token
    from plumbline.store.engine import create_store_engine

    db_url = f"sqlite:///{tmp_path_factory.mktemp('ui-auth') / 'store.db'}"
    server, url = start_server(db_url, auth="required")
    engine = create_store_engine(db_url)
    try:
        writer = create_token(engine, "ui-writer", "write")
        reader = create_token(engine, "ui-reader", "read")
        post_events(url, ev.events(), token=writer)
        yield url, reader
    finally:
        engine.dispose()
        server.stop()  # type: ignore[attr-defined]


def test_token_is_asked_once_and_kept_for_the_session(
    page: Any, auth_server: tuple[str, str], artifacts: Path
) -> None:
    url, token = auth_server
    sent: list[str | None] = []
    page.on(
        "request",
        lambda r: (
            sent.append(r.headers.get("authorization"))
            if "/api/v1/events/lineage" in r.url
            else None
        ),
    )
    page.goto(f"{url}/events?limit=5")
    page.wait_for_selector("#token-dialog")
    page.screenshot(path=str(artifacts / "auth_prompt.png"))
    page.fill("#token-input", "plb_not-a-real-token")
    page.click("#token-submit")
    page.wait_for_selector("#token-dialog:has-text('was not accepted')")
    page.fill("#token-input", token)
    page.click("#token-submit")
    page.wait_for_selector("#page-info")
    assert page.inner_text("#page-info") == "1–5 of 14"
    assert page.locator("#token-dialog").count() == 0
    assert sent == [None, "Bearer plb_not-a-real-token", f"Bearer {token}"]
    # Kept for the browser session: a reload and other pages ask no more.
    page.reload()
    page.wait_for_selector("#page-info")
    page.goto(f"{url}/jobs/shop/{quote(ev.REVENUE_JOB, safe='')}")
    page.wait_for_selector("#runs-table")
    assert page.locator("#token-dialog").count() == 0
    assert sent[-1] == f"Bearer {token}"
    assert page.evaluate("sessionStorage.getItem('plumbline.token')") == token
    assert page.page_errors == []


def test_a_new_session_asks_again(browser: Any, auth_server: tuple[str, str]) -> None:
    url, _ = auth_server
    context = browser.new_context()
    try:
        pg = context.new_page()
        pg.goto(f"{url}/")
        pg.wait_for_selector("#token-dialog")
        assert pg.evaluate("sessionStorage.getItem('plumbline.token')") is None
    finally:
        context.close()


@pytest.fixture(scope="module")
def empty_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db_url = f"sqlite:///{tmp_path_factory.mktemp('ui-empty') / 'store.db'}"
    server, url = start_server(db_url)
    yield url
    server.stop()  # type: ignore[attr-defined]


def test_empty_states(page: Any, empty_server: str, artifacts: Path) -> None:
    page.goto(f"{empty_server}/")
    page.wait_for_selector(".state-empty")
    assert page.inner_text(".state-empty .state-title") == "No lineage yet"
    page.screenshot(path=str(artifacts / "empty_overview.png"))
    page.goto(f"{empty_server}/events")
    page.wait_for_selector(".state-empty")
    assert page.inner_text(".state-empty .state-title") == "No events"
    page.goto(f"{empty_server}/lineage?node={quote('dataset:file:/nowhere', safe='')}")
    page.wait_for_selector(".state-error")
    assert page.inner_text(".state-error .state-title") == "Not found"
    page.goto(f"{empty_server}/lineage")
    page.fill("#lineage-pick", "orders")
    page.wait_for_selector(".pick-results :text('No matches')")
    assert page.page_errors == []


@pytest.mark.slow
def test_thousand_node_graph(
    page: Any, tmp_path_factory: pytest.TempPathFactory, artifacts: Path
) -> None:
    db_url = f"sqlite:///{tmp_path_factory.mktemp('ui-big') / 'store.db'}"
    server, url = start_server(db_url)
    try:
        events = ev.big_graph_events(levels=5, width=100)
        post_events(url, events)
        page.goto(f"{url}/lineage?node={quote('dataset:file:/big/source', safe='')}&depth=10")
        page.wait_for_selector("svg.graph .node-more", timeout=60_000)
        # The 100 jobs reading the source fold into 8 and "+92 more"; every other wide fan-out too.
        more = page.locator('.node-more[data-id="more:out:dataset:file:/big/source"]')
        assert more.get_attribute("data-count") == "92"
        shown = int(page.get_attribute("svg.graph", "data-nodes"))
        assert shown < 1001
        # Folded further (what lies beyond the fan-out's first step) so that it opens whole at a
        # readable scale, the source in view.
        fitted = float(page.get_attribute("svg.graph", "data-scale"))
        assert fitted * 13 >= 11
        assert page.get_attribute("svg.graph", "data-clamped") == "false"
        box = page.locator('.node[data-id="dataset:file:/big/source"]').bounding_box()
        canvas = page.locator("#graph-canvas").bounding_box()
        assert canvas["x"] < box["x"] < canvas["x"] + canvas["width"] - box["width"]
        page.screenshot(path=str(artifacts / "big_graph_focus.png"))
        page.click("#fit")
        assert float(page.get_attribute("svg.graph", "data-scale")) == fitted
        assert "lod-low" not in page.get_attribute("svg.graph", "class")
        # The fold opens a page of 24 more on click.
        more.click()
        page.wait_for_selector(
            '.node-more[data-id="more:out:dataset:file:/big/source"][data-count="68"]'
        )
        assert int(page.get_attribute("svg.graph", "data-nodes")) > shown
        # Zooming out by hand is still possible (labels give way to boxes), and back in.
        page.mouse.move(canvas["x"] + canvas["width"] / 2, canvas["y"] + canvas["height"] / 2)
        scale = lambda: float(page.get_attribute("svg.graph", "data-scale"))  # noqa: E731
        for _ in range(8):
            page.mouse.wheel(0, 300)
            page.wait_for_timeout(50)
        assert scale() < 0.3 and "lod-low" in page.get_attribute("svg.graph", "class")
        page.screenshot(path=str(artifacts / "big_graph_zoomed_out.png"))
        steps = 0
        while scale() <= 0.55 and steps < 20:
            page.mouse.wheel(0, -300)
            page.wait_for_timeout(50)
            steps += 1
        assert 0.55 < scale() < 1.0
        assert "lod-low" not in page.get_attribute("svg.graph", "class")
        # Find in graph: outlines the matches; Enter centres on and selects each in turn.
        page.fill("#graph-find", "/big/l4/d05")
        assert page.inner_text("#find-count") == "10 found"
        page.press("#graph-find", "Enter")
        assert page.inner_text("#find-count") == "1 of 10"
        selected = page.get_attribute("#node-panel .panel-inner", "data-node")
        assert selected.startswith("dataset:file:/big/l4/d05")
        # It may have been folded away: finding it unfolds it.
        assert "match" in page.get_attribute(f'.node[data-id="{selected}"]', "class")
        box = page.locator(f'.node[data-id="{selected}"]').bounding_box()
        assert canvas["x"] < box["x"] < canvas["x"] + canvas["width"] - box["width"]
        assert canvas["y"] < box["y"] < canvas["y"] + canvas["height"] - box["height"]
        page.screenshot(path=str(artifacts / "big_graph_find.png"))
        assert page.page_errors == []
    finally:
        server.stop()  # type: ignore[attr-defined]


def test_truncated_graph_says_so(page: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    db_url = f"sqlite:///{tmp_path_factory.mktemp('ui-cap') / 'store.db'}"
    server, url = start_server(db_url, max_graph_nodes=30)
    try:
        post_events(url, ev.big_graph_events(levels=2, width=20))  # 81 nodes
        page.goto(f"{url}/lineage?node={quote('dataset:file:/big/source', safe='')}&depth=5")
        page.wait_for_selector("#truncated-note")
        note = page.inner_text("#truncated-note")
        shown = int(re.match(r"Showing the (\d+) ", note).group(1))
        assert 20 <= shown <= 30  # the server's cap; it may stop a little short of it
        # Drawn: fewer still, the source's 20 readers folded to 8 and "+K more".
        assert int(page.get_attribute("svg.graph", "data-nodes")) < shown
        assert page.inner_text("#truncated-note") == (
            f"Showing the {shown} nearest nodes: the server caps graph size. "
            "Lower the depth or expand step by step."
        )
    finally:
        server.stop()  # type: ignore[attr-defined]
