"""The impact view tells apart jobs that share a short name (issue 27: three jobs all shown as
`default_fact_orders`), in the list, the paths and the graph, in headless Chromium."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from .lineage_events import DS_NS, dataset, event
from .ui_server import UiServer, serving

pytestmark = pytest.mark.browser

SOURCE = "/data/orders_raw"
INSERT = "shop.execute_insert_into_hadoop_fs_relation_command.fact_orders"
SAVE = "shop.execute_save_into_data_source_command.fact_orders"


def _events() -> list[dict[str, Any]]:
    source = dataset(SOURCE, [("id", "int")])
    out = []
    for i, (job, target) in enumerate(
        [(INSERT, "/data/fact_orders"), (SAVE, "/warehouse/fact_orders")]
    ):
        run = f"0190a000-0000-7000-8000-00000000000{i}"
        written = dataset(target, [("id", "int")])
        out.append(event("START", f"2026-03-01T08:0{i}:00.000Z", job, run, inputs=[source]))
        out.append(
            event(
                "COMPLETE",
                f"2026-03-01T08:0{i}:30.000Z",
                job,
                run,
                inputs=[source],
                outputs=[written],
            )
        )
    return out


@pytest.fixture(scope="module")
def two_fact_orders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    yield from serving(tmp_path_factory, "impact_names", _events())


def test_jobs_sharing_a_short_name_are_told_apart(page: Any, two_fact_orders: UiServer) -> None:
    node = quote(f"dataset:{DS_NS}:{SOURCE}", safe="")
    page.goto(f"{two_fact_orders.url}/impact?node={node}&direction=downstream")
    page.wait_for_selector(".impact-level")
    names = page.eval_on_selector_all(
        '.impact-node[data-type="JOB"] .impact-name', "els => els.map(e => e.textContent)"
    )
    assert sorted(names) == [
        "fact_orders (insert_into_hadoop_fs_relation)",
        "fact_orders (save_into_data_source)",
    ]
    page.wait_for_selector("svg.graph .node")
    # the graph's labels (after each node's <title>, the full name) differ too; a long label is
    # shortened in its middle, so its end names the command
    shown = page.eval_on_selector_all(
        'svg.graph .node[data-id^="job:"]',
        "els => els.map(e => e.textContent.slice(e.querySelector('title').textContent.length))",
    )
    assert len(shown) == 2 and shown[0] != shown[1]
    assert any("relation)" in x for x in shown) and any("source)" in x for x in shown)
