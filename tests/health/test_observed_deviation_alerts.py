"""``observed-deviation`` alerts (issue 31 §3): a run's end that states where its plan and its
execution disagree (the capture's ``plumbline_observedDeviations`` run facet) raises one alert per
deviation, on both backends; ``plumbline check --fail-on observed-deviation`` fails on them over
real HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from click.testing import CliRunner
from pipeline import DS, NS, alerts_of, orders, raw, run_id
from sqlalchemy.engine import Engine
from store_summary import facet, ingest, run_event

from plumbline.cli import main

FACET = "plumbline_observedDeviations"


def deviating_run() -> list[dict[str, Any]]:
    """A load run that read nothing of raw and wrote orders empty, with qty null throughout."""
    found = [
        {"kind": "unreadInput", "namespace": DS, "name": "raw",
         "detail": "the plan reads it; the run read 0 rows, 0 files"},
        {"kind": "emptyOutput", "namespace": DS, "name": "orders", "detail": "the run wrote 0 rows"},
        {"kind": "allNullColumn", "namespace": DS, "name": "orders", "field": "qty",
         "detail": "null in every row written (delta statistics)"},
        {"kind": "notAKind", "namespace": DS, "name": "orders", "detail": "ignored"},
    ]  # fmt: skip
    io = {"inputs": [raw()], "outputs": [orders()], "job": "load", "namespace": NS}
    return [
        run_event(run_id(1), "START", "2024-05-01T00:00:00Z", **io),
        run_event(
            run_id(1), "COMPLETE", "2024-05-01T00:05:00Z", **io, **{FACET: facet(deviations=found)}
        ),  # fmt: skip
    ]


def test_each_deviation_of_a_run_end_is_an_alert_once(store: Engine) -> None:
    ingest(store, deviating_run())
    found = alerts_of(store, "observed-deviation")
    assert sorted((a["subject"], a["details"]["deviation"]) for a in found) == [
        (f"dataset:{DS}:orders", "emptyOutput"),
        (f"dataset:{DS}:raw", "unreadInput"),
        (f"datasetField:{DS}:orders:qty", "allNullColumn"),
    ]
    for alert in found:
        assert alert["runId"] == run_id(1) and alert["namespace"] == DS
        assert alert["details"]["job"] == f"job:{NS}:load"
    unread = next(a for a in found if a["details"]["deviation"] == "unreadInput")
    assert unread["details"]["detail"] == "the plan reads it; the run read 0 rows, 0 files"
    ingest(store, deviating_run()[1:])  # the same end again: stored once
    assert len(alerts_of(store, "observed-deviation")) == 3


def test_a_run_without_the_facet_raises_none(store: Engine) -> None:
    events = deviating_run()
    del events[1]["run"]["facets"][FACET]
    ingest(store, events)
    assert alerts_of(store, "observed-deviation") == []


def test_check_fails_on_observed_deviations_when_asked(
    make_server: Callable[..., Any], db_url: str
) -> None:
    import httpx

    server = make_server()
    posted = httpx.post(f"{server.url}/api/v1/lineage", json=deviating_run(), timeout=30)
    assert posted.status_code == 201, posted.text

    def check(*args: str) -> Any:
        return CliRunner().invoke(main, ["check", *args], env={"PLUMBLINE_URL": server.url})

    failed = check("--fail-on", "observed-deviation")
    assert failed.exit_code == 1, failed.output
    assert f"observed-deviation datasetField:{DS}:orders:qty" in failed.output
    assert check("--fail-on", "schema-drift").exit_code == 0
