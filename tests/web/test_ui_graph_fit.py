"""The lineage graph as first opened, on the demo's lineage (tests/web/demo_events.py): the whole
neighbourhood of ``country_report`` in view at every depth the selector offers, at 1400x900 and
1024x768, every text at least 11 px; what cannot fit is folded into counted "+K more" nodes that
expand on click (issue 27, "The first screens")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from . import demo_events
from .graph_checks import assert_whole_and_readable
from .ui_server import UiServer, serving

pytestmark = pytest.mark.browser

DEPTHS = ["0", "1", "2", "3", "5", "10"]  # the selector's
WINDOWS = [(1400, 900), (1024, 768)]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    yield from serving(tmp_path_factory, "ui-demo-graph", demo_events.events())


def open_graph(page: Any, server: UiServer, depth: str) -> None:
    page.goto(f"{server.url}/lineage?" + urlencode({"node": demo_events.REPORT, "depth": depth}))
    page.wait_for_selector(f'svg.graph .node[data-id="{demo_events.REPORT}"]')
    page.wait_for_selector("#node-panel .panel-inner[data-node]")


@pytest.mark.parametrize("window", WINDOWS, ids=lambda w: f"{w[0]}x{w[1]}")
def test_every_depth_opens_whole_and_readable(
    browser: Any, demo: UiServer, window: tuple[int, int], artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": window[0], "height": window[1]})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        drawn = {}
        for depth in DEPTHS:
            open_graph(page, demo, depth)
            m = assert_whole_and_readable(page, f"{window} depth {depth}")
            drawn[depth] = m["nodes"]
            # Fit keeps it so.
            page.click("#fit")
            assert_whole_and_readable(page, f"{window} depth {depth} after Fit")
            page.screenshot(path=str(artifacts / f"demo_graph_{window[0]}_depth{depth}.png"))
        # Deeper shows at least as much; what did not fit is folded, not dropped: depth 10 holds
        # a "+K more" node (the 27 nodes do not fit whole at a readable scale).
        assert [drawn[d] for d in DEPTHS] == sorted(drawn[d] for d in DEPTHS)
        assert page.locator("svg.graph .node-more").count() >= 1
        assert errors == []
    finally:
        context.close()


def test_a_fold_expands_on_click(page: Any, demo: UiServer) -> None:
    """The "+K more" node of a fold shows what it counts when clicked."""
    page.set_viewport_size({"width": 1024, "height": 768})
    open_graph(page, demo, "10")
    more = page.locator("svg.graph .node-more").first
    count = int(more.get_attribute("data-count"))
    fold = more.get_attribute("data-id")
    before = int(page.get_attribute("svg.graph", "data-nodes"))
    more.dispatch_event("click")
    page.wait_for_function(
        f"() => document.querySelector('svg.graph').dataset.nodes !== '{before}'"
    )
    assert page.locator(f'svg.graph .node-more[data-id="{fold}"]').count() == 0
    assert int(page.get_attribute("svg.graph", "data-nodes")) >= before - 1 + count
    assert page.page_errors == []
