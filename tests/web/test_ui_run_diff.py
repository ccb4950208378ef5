"""The run diff page, the root-cause panel and version lineage on the dataset page, in headless
Chromium on a live server holding the crafted diamond (tests/web/analysis_events.py): on day 2
``diamond.left`` drops ``amount`` from ``/d/left`` and ``diamond.join`` fails on it."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from . import analysis_events as ae
from .ui_server import UiServer

pytestmark = pytest.mark.browser

FAILED = ae.JOIN_RUNS[1]
GOOD = ae.JOIN_RUNS[0]


def test_run_diff_of_a_failed_run(page: Any, diamond: UiServer, artifacts: Path) -> None:
    page.goto(f"{diamond.url}/jobs/shop/{quote(ae.JOIN_JOB, safe='')}")
    page.wait_for_selector("#runs-table")
    diff = page.locator(f'#runs-table tr[data-run="{FAILED}"] a.run-diff')
    assert diff.get_attribute("href") == f"/runs/{FAILED}/diff"
    page.goto(f"{diamond.url}/runs/{FAILED}")
    page.click("#compare-run")
    page.wait_for_selector("#diff-inputs")
    assert page.url == f"{diamond.url}/runs/{FAILED}/diff"
    # Against the last COMPLETE run of the job before it.
    assert page.get_attribute("#against-link", "href") == f"/runs/{GOOD}"
    assert page.inner_text("#against-reason").startswith("Compared with the last COMPLETE run")
    # The left input: a new version, `amount` removed, 10 -> 12 rows.
    left = page.locator(f'#diff-inputs tr[data-dataset="{ae.LEFT}"]')
    assert left.get_attribute("data-status") == "kept"
    assert left.locator(".version-cell .diff-chg").inner_text() == "changed"
    change = left.locator(".schema-change")
    assert change.count() == 1
    assert change.get_attribute("data-field") == "amount"
    assert change.inner_text().startswith("removed amount")
    assert "diff-del" in change.get_attribute("class")
    assert left.locator("td").nth(4).inner_text().replace("\n", " ") == "10 → 12"
    # The right input did not change.
    right = page.locator(f'#diff-inputs tr[data-dataset="{ae.RIGHT}"]')
    assert right.locator(".version-cell").inner_text().startswith("same")
    assert right.locator(".schema-cell").inner_text() == "same"
    # The error, and the input change ranked among the causes.
    assert ae.ERROR in page.inner_text("#diff-error")
    kinds = page.eval_on_selector_all("#diff-suspects li", "ls => ls.map(l => l.dataset.kind)")
    assert "inputChanged" in kinds and kinds.index("inputChanged") < kinds.index("error")
    # Column lineage: the failed run wrote none, so total <- left.amount is gone.
    removed = page.eval_on_selector_all(
        "#column-lineage .diff-del", "es => es.map(e => e.textContent)"
    )
    assert any("left.amount → sink.total" in r for r in removed), removed
    page.screenshot(path=str(artifacts / "run_diff.png"), full_page=True)

    # The first run has no COMPLETE run before it: the page says so, and the picker compares it
    # with another run of the job.
    page.goto(f"{diamond.url}/runs/{GOOD}/diff")
    page.wait_for_selector(f'#against-select option[value="{FAILED}"]', state="attached")
    assert page.locator("#no-against").is_visible()
    page.select_option("#against-select", FAILED)
    page.wait_for_url(f"**/runs/{GOOD}/diff?against={FAILED}")
    page.wait_for_selector("#against-link")
    assert page.get_attribute("#against-link", "href") == f"/runs/{FAILED}"
    left = page.locator(f'#diff-inputs tr[data-dataset="{ae.LEFT}"]')
    assert left.locator(".schema-change").get_attribute("data-change") == "added"
    assert page.page_errors == []


def test_root_cause_panel_on_a_failed_run(page: Any, diamond: UiServer, artifacts: Path) -> None:
    page.goto(f"{diamond.url}/runs/{FAILED}")
    page.wait_for_selector("#root-cause-upstream")
    rows = page.locator("#root-cause-upstream tbody tr")
    runs = dict(rows.evaluate_all("rs => rs.map(r => [r.dataset.run, r.dataset.suspect])"))
    assert set(runs) == {ae.LEFT_RUNS[1], ae.RIGHT_RUN}
    # The run that rewrote left without `amount` is a suspect, and says why.
    assert runs[ae.LEFT_RUNS[1]] == "true"
    left = page.locator(f'#root-cause-upstream tr[data-run="{ae.LEFT_RUNS[1]}"]')
    assert "output changed" in left.inner_text()
    assert "amount removed" in left.inner_text()
    kinds = page.eval_on_selector_all("#root-cause-changes li", "ls => ls.map(l => l.dataset.kind)")
    assert "inputChanged" in kinds
    page.screenshot(path=str(artifacts / "root_cause.png"), full_page=True)
    # A completed run has no root-cause panel.
    page.goto(f"{diamond.url}/runs/{GOOD}")
    page.wait_for_selector("#compare-run")
    assert page.locator("#root-cause").count() == 0
    assert page.page_errors == []


def test_version_lineage_on_the_dataset_page(page: Any, diamond: UiServer, artifacts: Path) -> None:
    page.goto(f"{diamond.url}/datasets/file/{quote(ae.LEFT, safe='')}")
    page.wait_for_selector("#versions .version-upstream li")
    versions = page.locator("#versions .version")
    assert versions.count() == 2
    newest, oldest = versions.nth(0), versions.nth(1)
    # Both were made from the source.
    for v in (newest, oldest):
        v.locator(".version-upstream li").first.wait_for()
        assert v.locator(".version-upstream li").evaluate_all(
            "ls => ls.map(l => l.dataset.dataset)"
        ) == [ae.SRC]
    # Each version was used by the version of the sink its join run made (the failed run
    # named the sink in its START event: the store keeps a version for it).
    for v, run in ((oldest, GOOD), (newest, FAILED)):
        v.locator(".version-downstream li").first.wait_for()
        used = v.locator(".version-downstream li")
        assert used.evaluate_all("ls => ls.map(l => l.dataset.dataset)") == [ae.SINK]
        assert used.locator("a[href^='/runs/']").get_attribute("href") == f"/runs/{run}"
        assert used.locator("a[href^='/datasets/']").get_attribute("href") == (
            f"/datasets/file/{quote(ae.SINK, safe='')}"
        )
    assert newest.locator(".version-current").inner_text() == "current"
    # The sink's version: made from both inputs and, two runs away, what they were made from;
    # used by nothing.
    page.goto(f"{diamond.url}/datasets/file/{quote(ae.SINK, safe='')}")
    page.wait_for_selector("#versions .version-downstream .muted")
    oldest = page.locator("#versions .version").last
    oldest.locator(".version-upstream li").first.wait_for()

    def made_from(distance: int) -> list[str]:
        return sorted(oldest.locator(f'.version-upstream li[data-distance="{distance}"]').evaluate_all(
            "ls => ls.map(l => l.dataset.dataset)"
        ))  # fmt: skip

    assert made_from(1) == [ae.LEFT, ae.RIGHT]
    assert set(made_from(2)) == {ae.SRC}
    assert "2 runs away" in oldest.locator(".version-upstream").inner_text()
    assert oldest.locator(".version-downstream").inner_text().endswith("not read yet")
    # The failed join run named the sink in its START: that version is in the history, never
    # current, and says so; the current one is the last complete run's.
    newest = page.locator("#versions .version").first
    assert newest.locator(".version-incomplete").inner_text() == "not current: its run failed"
    assert oldest.locator(".version-current").inner_text() == "current"
    page.screenshot(path=str(artifacts / "dataset_version_lineage.png"), full_page=True)
    assert page.page_errors == []


def test_versions_are_shown_by_one_id(page: Any, diamond: UiServer) -> None:
    # issue 27: the UI showed a version's UUID where the CLI and impact show the writer's run id;
    # both now show the dataset version (here the writing run's id), in the one short form
    page.goto(f"{diamond.url}/datasets/file/{quote(ae.SINK, safe='')}")
    page.wait_for_selector("#versions .version-upstream li")
    for version in page.locator("#versions .version").all():
        shown = version.locator(".version-id").inner_text()
        writer = version.locator(".version-head a[href^='/runs/']").get_attribute("href")
        assert writer is not None and shown == writer[-8:], shown
    current = page.locator("#versions .version").filter(has=page.locator(".version-current"))
    assert current.count() == 1
    assert (
        page.locator("#current-version").inner_text() == current.locator(".version-id").inner_text()
    )
    made_from = page.locator("#versions .version").last.locator(
        ".version-upstream li .version-shown"
    )
    made_from.first.wait_for()
    # the two inputs' versions, written by time-ordered (v7-like) runs of the same minute, read
    # apart (their first 8 characters are the same); the source was read before any version
    known = [text for text in made_from.all_inner_texts() if text != "unknown version"]
    assert len(known) == 2 and len(set(known)) == 2, known
    assert all(len(text) == 8 for text in known), known
    assert page.page_errors == []


def test_a_runs_outputs_show_the_version_as_the_dataset_page_does(
    page: Any, diamond: UiServer
) -> None:
    # issue 27: the run page showed a version's UUID; it shows the dataset version, as elsewhere
    page.goto(f"{diamond.url}/runs/{GOOD}")
    page.wait_for_selector("#outputs-table .version-shown")
    assert page.locator("#outputs-table .version-shown").all_inner_texts() == [GOOD[-8:]]
    assert page.page_errors == []
