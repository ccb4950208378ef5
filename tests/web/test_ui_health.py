"""The alerts and coverage pages in headless Chromium, on a live server holding the steady
pipeline and then a load run that changes orders' schema and reads a new input (issue 19)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from health.pipeline import DS, NS, day, orders, raw
from playwright.sync_api import expect
from store_summary import dataset

from .ui_server import UiServer, post_events, start_server

pytestmark = pytest.mark.browser

HOURS = 6


@pytest.fixture(scope="module")
def health(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    db_url = f"sqlite:///{tmp_path_factory.mktemp('ui-health') / 'store.db'}"
    server, url = start_server(db_url, alert_check_seconds=3600)  # no freshness alert here
    try:
        post_events(url, [e for hour in range(HOURS) for e in day(hour)])
        changed = day(HOURS, inputs=[raw(), dataset(DS, "fx")],
                      outputs=[orders({"id": "string", "price": "double"})])  # fmt: skip
        post_events(url, changed)
        _wait_for_blast_radius(url)
        yield UiServer(url=url, db_url=db_url)
    finally:
        server.stop()  # type: ignore[attr-defined]


def _wait_for_blast_radius(url: str) -> None:
    """Alerts are listed at once; their blast radius is attached right after the write commits."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        alerts = httpx.get(f"{url}/api/v1/alerts").json()["alerts"]
        if len(alerts) == 2 and all(a["blastRadius"] is not None for a in alerts):
            return
        time.sleep(0.1)
    raise AssertionError("no blast radius after 30 s")


def test_alerts_page_shows_blast_radius_and_acknowledges(
    page: Any, health: UiServer, artifacts: Path
) -> None:
    page.goto(f"{health.url}/")
    page.click("a[data-nav='alerts']")
    page.wait_for_selector(".alert-card [data-blast-radius]")
    kinds = page.eval_on_selector_all(".alert-card", "els => els.map(e => e.dataset.kind)")
    assert sorted(kinds) == ["new-edge", "schema-drift"]
    drift = page.locator(".alert-card[data-kind='schema-drift']")
    assert f"dataset:{DS}:orders" in drift.locator(".alert-head").inner_text()
    text = drift.inner_text()
    assert "removed: qty (int)" in text and "retyped: price: decimal(10,2) → double" in text
    assert f"datasetField:{DS}:report:items (from qty)" in text
    radius = drift.locator("[data-blast-radius]")
    assert "1 dataset(s), 1 job(s) downstream" in radius.inner_text()
    assert radius.locator(f"a[href='/jobs/{NS}/report']").count() == 1
    page.screenshot(path=str(artifacts / "alerts.png"), full_page=True)
    # Acknowledge, then the unacknowledged-only filter leaves the new edge alone.
    drift.locator("button[data-ack]").click()
    page.wait_for_selector(".alert-card[data-kind='schema-drift'] [data-acknowledged]")
    alert_id = drift.get_attribute("data-alert")
    stored = httpx.get(f"{health.url}/api/v1/alerts", params={"acknowledged": "true"}).json()
    assert [str(a["id"]) for a in stored["alerts"]] == [alert_id]
    page.check("#alerts-open")
    page.click("#alerts-filter button[type=submit]")
    page.wait_for_url("**/alerts?open=1")
    expect(page.locator(".alert-card")).to_have_count(1)  # (no string eval: the CSP forbids it)
    assert page.get_attribute(".alert-card", "data-kind") == "new-edge"
    assert f"dataset:{DS}:fx" in page.inner_text(".alert-card .alert-details")
    page.select_option("#alerts-kind", "volume-anomaly")
    page.click("#alerts-filter button[type=submit]")
    page.wait_for_selector(".state-empty")
    assert page.page_errors == []


def test_coverage_page_per_namespace(page: Any, health: UiServer, artifacts: Path) -> None:
    page.goto(f"{health.url}/coverage?days=3650")
    page.wait_for_selector("#coverage-table")
    headers = page.eval_on_selector_all("#coverage-table th", "els => els.map(e => e.textContent)")
    assert headers == ["", "overall", NS, DS]  # the jobs' namespace, the datasets'
    row = page.locator("tr[data-measure='unproducedInputs'] td")
    assert row.all_inner_texts()[1:] == ["2", "0", "2"]
    share = page.locator("tr[data-measure='columnLineageShare'] td").all_inner_texts()
    assert share[1:] == ["100%", "–", "100%"]
    assert "fx, raw" in page.inner_text(f"section[data-namespace='{DS}']")
    assert "plumbline-tests" in page.inner_text("#coverage-producers")
    page.screenshot(path=str(artifacts / "coverage.png"), full_page=True)
    page.select_option("#coverage-window", "1")
    page.wait_for_url("**/coverage?days=1")
    page.wait_for_selector("#coverage .state-empty, #coverage-table")
    assert page.page_errors == []
