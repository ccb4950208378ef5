"""Stored XSS: names, fields, descriptions, SQL and error messages that carry markup are shown as
text on every page of the UI and never run, in the real browser (issue 15's "XSS results still hold").

Each payload would set ``window.__xss`` if the UI inserted it as HTML; the ``page`` fixture also
fails the test if the Content-Security-Policy had to block anything (an inline handler reaching the
DOM is refused by the CSP and reported, so it is caught even where it could not run)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from . import lineage_events as ev
from .ui_server import serving

pytestmark = pytest.mark.browser

IMG = "<img src=x onerror=window.__xss=1>"
SCRIPT = "<script>window.__xss=1</script>"
SVG = '"><svg onload=window.__xss=1>'
JOB = f"xss.job{IMG}"
SOURCE = f"/data/{SVG}/in"
TARGET = f"/data/{SCRIPT}/out"
FIELD = f"col{IMG}"
ERROR = f"failed {SCRIPT} {IMG}"
RUNS = ["0194a000-0000-7000-8000-0000000bad01", "0194a000-0000-7000-8000-0000000bad02"]


def _events() -> list[dict[str, Any]]:
    source = ev.dataset(SOURCE, [(FIELD, f"string{IMG}")])
    target = ev.dataset(
        TARGET,
        [(FIELD, "string"), ("plain", "long")],
        documentation=ev.facet("DocumentationDatasetFacet", "1-1-0", description=f"about {IMG}"),
        columnLineage=ev.facet(
            "ColumnLineageDatasetFacet",
            "1-2-0",
            fields={
                FIELD: {"inputFields": [ev.field_input(SOURCE, FIELD, "DIRECT", "IDENTITY")]},
                "plain": {
                    "inputFields": [ev.field_input(SOURCE, FIELD, "DIRECT", "TRANSFORMATION")]
                },
            },
        ),
    )
    sql = {"sql": ev.facet("SQLJobFacet", "1-1-0", query=f"SELECT 1 -- {SCRIPT}")}
    good, bad = RUNS
    events = [
        ev.event("START", "2026-02-01T10:00:00Z", JOB, good, inputs=[source], outputs=[target]),
        ev.event("COMPLETE", "2026-02-01T10:01:00Z", JOB, good, inputs=[source], outputs=[target]),
        ev.event("START", "2026-02-02T10:00:00Z", JOB, bad, inputs=[source], outputs=[target]),
        ev.event(
            "FAIL",
            "2026-02-02T10:01:00Z",
            JOB,
            bad,
            inputs=[source],
            outputs=[target],
            run_facets={
                "errorMessage": ev.facet(
                    "ErrorMessageRunFacet",
                    "1-0-1",
                    message=ERROR,
                    programmingLanguage="python",
                    stackTrace=f"Traceback {SCRIPT}",
                )
            },
        ),
    ]
    for event in events:
        event["job"]["facets"].update(sql)
    return events


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    for server in serving(tmp_path_factory, "ui-xss", _events()):
        yield server.url


def _node(name: str) -> str:
    return quote(f"dataset:file:{name}", safe="")


PAGES = [
    ("/", None),
    ("/events", JOB),
    (f"/jobs/shop/{quote(JOB, safe='')}", JOB),
    (f"/datasets/file/{quote(TARGET, safe='')}", FIELD),
    (f"/datasets/file/{quote(SOURCE, safe='')}", SOURCE),
    (f"/runs/{RUNS[1]}", ERROR),
    (f"/runs/{RUNS[1]}/diff", None),
    (f"/lineage?node={_node(TARGET)}&depth=3", None),
    (f"/impact?node={_node(SOURCE)}", None),
    ("/coverage?days=3650", None),
]


@pytest.mark.parametrize(("path", "shown"), PAGES, ids=[p for p, _ in PAGES])
def test_markup_in_stored_lineage_is_text(
    page: Any, hostile_server: str, path: str, shown: str | None
) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{hostile_server}{path}")
    page.wait_for_load_state("networkidle")
    if shown is not None:  # the hostile text reached the page, as text
        page.wait_for_function("t => document.body.innerText.includes(t)", arg=shown)
    assert page.evaluate("window.__xss") is None
    # markup inserted as HTML leaves its element in the DOM even where the CSP stops it running
    assert page.evaluate("document.querySelectorAll('[onerror], [onload]').length") == 0
    assert dialogs == []
    assert page.page_errors == []
