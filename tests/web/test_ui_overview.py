"""The Overview in headless Chromium: what needs attention first, the latest failed runs and the open
change alerts, above the recently updated jobs and datasets (issue 27, "The first screens")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from . import analysis_events as ae
from . import lineage_events as ev
from .ui_server import UiServer, serving

pytestmark = pytest.mark.browser

FIX_RUN = "0194a000-0000-7000-8000-00000000e003"


def _fixed_revenue() -> list[dict[str, Any]]:
    """revenue_by_country completes again after its failed run: that failure was fixed since."""
    inputs = [ev.dataset(ev.CLEAN_ORDERS, ev.CLEAN_V2), ev.dataset(ev.RAW_CUSTOMERS, [])]
    outputs = [ev.dataset(ev.REVENUE, ev.REVENUE_FIELDS)]
    return [
        ev.event("START", "2026-01-13T08:00:00.000Z", ev.REVENUE_JOB, FIX_RUN, inputs=inputs),
        ev.event("COMPLETE", "2026-01-13T08:00:04.000Z", ev.REVENUE_JOB, FIX_RUN,
                 inputs=inputs, outputs=outputs),
    ]  # fmt: skip


@pytest.fixture(scope="module")
def overview(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    events = [*ev.events(), *_fixed_revenue(), *ae.events()]
    yield from serving(tmp_path_factory, "ui-overview", events)


def test_failures_and_open_alerts_come_first(
    page: Any, overview: UiServer, artifacts: Path
) -> None:
    alerts = httpx.get(f"{overview.url}/api/v1/alerts", params={"acknowledged": "false"}).json()
    assert alerts["alerts"], "the event set raises change alerts"
    page.goto(f"{overview.url}/")
    page.wait_for_selector("#home-failures")
    page.wait_for_selector("#home-jobs")
    # Above the jobs and datasets, in the page's order.
    order = page.eval_on_selector_all(
        "#home-failures, #home-alerts, #home-jobs, #home-datasets", "els => els.map(e => e.id)"
    )
    assert order == ["home-failures", "home-alerts", "home-jobs", "home-datasets"]
    # Newest failure first: diamond.join (March, still failing), then revenue_by_country (January,
    # fixed by a later run), each linking its run and its diff.
    rows = page.locator("#home-failures tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).get_attribute("data-run") == ae.JOIN_RUNS[1]
    assert rows.nth(1).get_attribute("data-run") == ev.FAILED_RUN
    first, second = rows.nth(0), rows.nth(1)
    job = first.locator("td").nth(0).locator("a")
    assert job.get_attribute("title") == ae.JOIN_JOB and job.inner_text() in ae.JOIN_JOB
    assert ae.ERROR[:40] in first.inner_text()
    assert first.locator("[data-fixed]").count() == 0
    assert second.locator("td a").first.get_attribute("title") == ev.REVENUE_JOB
    assert second.locator("[data-fixed]").inner_text() == " · a later run completed"
    assert second.locator(f'a[href="/runs/{ev.FAILED_RUN}"]').count() == 1
    assert second.locator(f'a[href="/runs/{ev.FAILED_RUN}/diff"]').count() == 1
    assert "Latest failures (2)" in page.inner_text("#attention")
    # Every open alert of the store, newest first (at most five), linking its subject.
    shown = page.eval_on_selector_all(
        "#home-alerts tbody tr", "els => els.map(e => e.dataset.alert)"
    )
    assert shown == [str(a["id"]) for a in alerts["alerts"][:5]]
    subject = alerts["alerts"][0]["subject"]
    link = page.locator("#home-alerts tbody tr").first.locator("td").nth(1).locator("a")
    assert link.get_attribute("title") == subject
    page.screenshot(path=str(artifacts / "overview_attention.png"), full_page=True)
    # The failed run's link opens its page.
    second.locator(f'a[href="/runs/{ev.FAILED_RUN}"]').click()
    page.wait_for_selector("#run-error")
    assert page.page_errors == []


def test_nothing_to_attend_to_is_one_quiet_line(
    page: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    day_one = [e for e in ev.events() if e["eventTime"] < "2026-01-11"]
    for server in serving(tmp_path_factory, "ui-overview-calm", day_one):
        page.goto(f"{server.url}/")
        page.wait_for_selector("#attention-none")
        assert page.inner_text("#attention-none") == "No failed run and no open alert."
        page.wait_for_selector("#home-jobs")
        assert page.page_errors == []
