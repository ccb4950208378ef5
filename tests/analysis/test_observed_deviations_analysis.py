"""Designed vs observed in run diff and root cause (issue 31 §3), both backends: a run whose end
states deviations (the capture's plumbline_observedDeviations run facet) shows them beside the run
it is compared with, new ones are suspects, and root cause names the upstream run that had them."""

from __future__ import annotations

from typing import Any

import pytest
from model_mirror import assert_mirrors
from run_events import DS, orders_out, raw, run, run_id
from sqlalchemy.engine import Engine
from store_summary import dataset, facet, ingest

from plumbline.analysis.root_cause import root_cause
from plumbline.analysis.run_diff import diff_runs

FACET = "plumbline_observedDeviations"
UNREAD = {"kind": "unreadInput", "namespace": DS, "name": "raw",
          "detail": "the plan reads it; the run read 0 rows, 0 files"}  # fmt: skip
EMPTY = {"kind": "emptyOutput", "namespace": DS, "name": "orders", "detail": "the run wrote 0 rows"}


def _with_deviations(events: list[dict[str, Any]], found: list[dict[str, Any]]) -> list[Any]:
    events[-1]["run"]["facets"][FACET] = facet(deviations=found)
    return events


@pytest.fixture
def runs(engine: Engine) -> Engine:
    """load: run 1 (unread raw, already), run 2 (unread raw and orders written empty); report:
    run 3 reads the orders run 2 wrote."""
    ingest(engine, _with_deviations(run(1, "load", 0, inputs=[raw()], outputs=[orders_out()]),
                                    [UNREAD]))  # fmt: skip
    ingest(engine, _with_deviations(
        run(2, "load", 60, inputs=[raw(rows=0)], outputs=[orders_out(rows=0)]), [UNREAD, EMPTY]
    ))  # fmt: skip
    ingest(engine, run(3, "report", 70, inputs=[dataset(DS, "orders")],
                       outputs=[dataset(DS, "report")]))  # fmt: skip
    return engine


def test_run_diff_shows_each_side_s_deviations_and_suspects_the_new_one(runs: Engine) -> None:
    with runs.connect() as conn:
        diff = diff_runs(conn, run_id(2)).to_json()
    assert_mirrors(diff, "/api/v1/jobs/runs/{id}/diff")  # the route's documented model
    assert diff["against"]["id"] == run_id(1)
    assert diff["observedDeviations"] == {"before": [UNREAD], "after": [UNREAD, EMPTY],
                                          "new": [EMPTY]}  # fmt: skip
    suspects = [s for s in diff["suspects"] if s["kind"] == "observedDeviation"]
    assert suspects == [{"kind": "observedDeviation", "subject": f"{DS}:orders",
                         "detail": "emptyOutput: the run wrote 0 rows"}]  # fmt: skip
    # compared on their own, not as a changed run facet
    assert all(c["facet"] != FACET for c in diff["runFacetChanges"])


def test_root_cause_names_the_upstream_run_whose_plan_and_run_disagreed(runs: Engine) -> None:
    with runs.connect() as conn:
        cause = root_cause(conn, run_id(3)).to_json()
    assert_mirrors(cause, "/api/v1/jobs/runs/{id}/root-cause")
    (upstream,) = cause["upstream"]
    assert upstream["run"]["id"] == run_id(2)
    assert upstream["suspect"] and "observedDeviation" in upstream["reasons"]
    assert {"kind": "observedDeviation", "subject": f"{DS}:orders",
            "detail": "emptyOutput: the run wrote 0 rows"} in upstream["changes"]  # fmt: skip
