"""A streaming run's page lists its micro-batches (issue 26 §2) in headless Chromium on a live
server: per batch the Kafka offsets each partition read and the Delta version the sink committed;
a run without the ``streamBatches`` facet has no such section."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .ui_server import UiServer, serving

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "store")]
from stream_batch_events import kafka_batch, stream_event  # noqa: E402

pytestmark = pytest.mark.browser

STREAM = str(uuid.uuid4())
PLAIN = str(uuid.uuid4())


@pytest.fixture(scope="module")
def streams(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    events = [
        stream_event(STREAM, "START", 1, kafka_batch(0, 0, 10, "56")),
        stream_event(STREAM, "RUNNING", 2, kafka_batch(1, 10, 25, "57", backward=True)),
    ]
    plain = stream_event(PLAIN, "COMPLETE", 3)
    del plain["run"]["facets"]["streamBatches"]
    yield from serving(tmp_path_factory, "ui-batches", [*events, plain])


def test_the_run_page_lists_its_micro_batches(
    page: Any, streams: UiServer, artifacts: Path
) -> None:
    page.goto(f"{streams.url}/runs/{STREAM}")
    page.wait_for_selector("#batches-table")
    rows = page.locator("#batches-table tbody tr")
    assert rows.count() == 2
    second = page.locator('#batches-table tr[data-batch="1"]')
    assert second.locator(".batch-read").inner_text().splitlines() == [
        "orders[0] 10–25",
        "orders[3] 20–50 (backward)",
    ]
    assert second.locator(".batch-wrote").inner_text() == "/lake/orders version 57"
    assert "offsets backward" in second.inner_text()
    first = page.locator('#batches-table tr[data-batch="0"]')
    assert first.locator(".batch-wrote").inner_text() == "/lake/orders version 56"
    page.screenshot(path=str(artifacts / "run_batches.png"), full_page=True)
    page.goto(f"{streams.url}/runs/{PLAIN}")
    page.wait_for_selector("text=Run facets")
    assert page.locator("#batches").count() == 0
