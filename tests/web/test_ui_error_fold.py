"""A failed Spark run's error as a newcomer first sees it (issue 27 §3), in headless Chromium at
1440 x 900: the run page and the run-diff page open with the innermost cause on top and the Java
stack trace folded under it (a closed <details>), so "What changed" is on the first screen."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from . import analysis_events as ae
from .ui_server import UiServer, serving

pytestmark = pytest.mark.browser

FAILED = ae.JOIN_RUNS[1]
CAUSE = (
    "org.apache.spark.sql.execution.datasources.SchemaColumnConvertNotSupportedException: "
    "column: [temp_c], physicalType: BINARY, logicalType: double"
)
FRAMES = "\n".join(
    f"\tat org.apache.spark.sql.execution.Frame{i}.run(Frame.scala:{i})" for i in range(80)
)
WRAPPER = (
    "org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in stage 1.0 "
    "failed 1 times: org.apache.spark.SparkException: [TASK_WRITE_FAILED] Task failed while "
    f"writing rows to file:/d/sink.\n{FRAMES}"
)
MESSAGE = f"{CAUSE}\n{WRAPPER}"  # as the capture now sends it: the innermost cause first
STACK = f"{WRAPPER}\nCaused by: {CAUSE}\n{FRAMES}"


def _with_java_error(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = copy.deepcopy(events)
    for event in found:
        if event["run"]["runId"] == FAILED and event["eventType"] == "FAIL":
            facet = event["run"]["facets"]["errorMessage"]
            facet.update(message=MESSAGE, stackTrace=STACK, programmingLanguage="JAVA")
    return found


@pytest.fixture(scope="module")
def java_failure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiServer]:
    yield from serving(tmp_path_factory, "ui-java-error", _with_java_error(ae.events()))


def test_the_run_page_opens_with_the_cause_and_the_stack_folded(
    page: Any, java_failure: UiServer
) -> None:
    page.goto(f"{java_failure.url}/runs/{FAILED}")
    page.wait_for_selector("#run-error")
    assert page.inner_text("#error-message") == CAUSE
    assert not page.locator("#stack-trace").is_visible()  # folded under its summary
    box = page.locator("#run-error").bounding_box()
    assert box is not None and box["height"] < 300, box
    page.click("#stack-trace-fold summary")
    assert page.locator("#stack-trace").is_visible()
    assert "Caused by: " + CAUSE in page.inner_text("#stack-trace")
    assert page.page_errors == []


def test_the_run_diff_opens_with_the_cause_and_what_changed_on_the_first_screen(
    page: Any, java_failure: UiServer
) -> None:
    page.goto(f"{java_failure.url}/runs/{FAILED}/diff")
    page.wait_for_selector("#diff-suspects")
    summary = page.inner_text("#error-summary")
    assert summary.startswith("SchemaColumnConvertNotSupportedException: column: [temp_c]"), summary
    full = page.locator("#diff-error-full pre")
    assert not full.is_visible()
    suspects = page.locator("#diff-suspects").bounding_box()
    assert suspects is not None and suspects["y"] < 900, suspects  # on the first screen
    page.click("#diff-error-full summary")
    assert full.is_visible() and "TASK_WRITE_FAILED" in full.inner_text()
    assert page.page_errors == []


def test_the_run_diff_lists_what_the_failure_caused_apart(
    page: Any, java_failure: UiServer
) -> None:
    """The failed join wrote 0 rows of the sink: under its own heading after "What changed",
    and its row count marked in the outputs table (issue 27 §4)."""
    page.goto(f"{java_failure.url}/runs/{FAILED}/diff")
    page.wait_for_selector("#diff-failure-effects")
    effects = page.locator("#diff-failure-effects li")
    assert effects.count() == 1
    assert effects.first.get_attribute("data-kind") == "outputWritten"
    assert (
        effects.first.inner_text() == f"Written file:{ae.SINK} · rows 3 -> none; bytes 300 -> none"
    )
    suspects = page.locator("#diff-suspects").bounding_box()
    listed = page.locator("#diff-failure-effects").bounding_box()
    assert suspects is not None and listed is not None and listed["y"] > suspects["y"]
    sink = page.locator(f'#diff-outputs tr[data-dataset="{ae.SINK}"] td[data-caused-by-failure]')
    assert sink.count() >= 1 and "caused by the failure" in sink.first.inner_text()
    assert page.page_errors == []
