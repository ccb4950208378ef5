"""Versions of a dataset no tracked job writes, from what its reads observe (issue 31 §5): a
landing file replaced between two runs is two versions, so a rerun plan from it since the
change lists the runs that read the new data, then everything downstream. Before, such a
dataset had no versions and the plan was empty. Real events over HTTP, both backends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from run_events import DS, at, orders_out, raw, run, run_id
from store_summary import dataset

RAW = f"dataset:{DS}:raw"


def _post(url: str, events: list[dict[str, Any]]) -> None:
    for event in events:
        answer = httpx.post(f"{url}/api/v1/lineage", json=event, timeout=30)
        assert answer.status_code == 201, answer.text


def _plan(url: str, since_minute: int) -> dict[str, Any]:
    answer = httpx.get(
        f"{url}/api/v1/rerun-plan", params={"nodeId": RAW, "since": at(since_minute)}, timeout=30
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _runs(plan: dict[str, Any]) -> list[tuple[str, str]]:
    return [(step["job"]["name"], r["id"]) for step in plan["steps"] for r in step["runs"]]


def _pipeline(load_state: str = "COMPLETE") -> list[dict[str, Any]]:
    """Day 1: load reads raw (10 rows, 100 bytes), report reads orders. Day 2 (minute 60): raw
    was replaced (12 rows, 130 bytes); load reads it (ending ``load_state``), report runs, and
    audit reads the same new raw."""
    report = [dataset(DS, "orders")]
    return (
        run(1, "load", 0, inputs=[raw(10, 100)], outputs=[orders_out()])
        + run(2, "report", 10, inputs=report, outputs=[dataset(DS, "report")])
        + run(3, "load", 60, inputs=[raw(12, 130)], outputs=[orders_out(12)], state=load_state)
        + run(4, "report", 70, inputs=report, outputs=[dataset(DS, "report")])
        + run(5, "audit", 80, inputs=[raw(12, 130)], outputs=[dataset(DS, "audit")])
    )


def test_a_replaced_landing_file_is_a_new_version_and_the_plan_follows_it(
    make_server: Callable[..., Any],
) -> None:
    url = make_server().url
    _post(url, _pipeline())
    versions = httpx.get(f"{url}/api/v1/namespaces/{DS}/datasets/raw/versions", timeout=30).json()
    observed = [v["facets"]["plumbline_observed"] for v in versions["versions"]]
    assert observed == [
        {"size": 130, "fileCount": 1},
        {"size": 100, "fileCount": 1},
    ]
    assert [v["createdAt"] for v in versions["versions"]] == [at(60), at(0)]
    assert all(v["datasetVersion"].startswith("observed:") for v in versions["versions"])
    # since the replacement: its readers, then what read their output
    plan = _plan(url, 30)
    assert sorted(_runs(plan)) == [
        ("audit", run_id(5)), ("load", run_id(3)), ("report", run_id(4)),
    ]  # fmt: skip
    (load,) = [s for s in plan["steps"] if s["job"]["name"] == "load"]
    (read,) = load["runs"][0]["reads"]
    assert (read["name"], read["affected"], read["versionSource"]) == ("raw", True, "observed")
    report_step = next(s for s in plan["steps"] if s["job"]["name"] == "report")
    assert load["order"] in report_step["after"]
    # since the start: the first version's readers too
    assert sorted(_runs(_plan(url, 0))) == sorted(
        [("load", run_id(1)), ("report", run_id(2))] + _runs(plan)
    )
    # the run diff of the two loads sees the input change
    diff = httpx.get(
        f"{url}/api/v1/jobs/runs/{run_id(3)}/diff", params={"against": run_id(1)}, timeout=30
    ).json()
    (raw_diff,) = [i for i in diff["inputs"] if i["name"] == "raw"]
    assert raw_diff["versionChanged"] is True
    assert raw_diff["versionSource"] == {"before": "observed", "after": "observed"}


def test_the_failed_run_that_read_the_bad_file_is_in_the_plan(
    make_server: Callable[..., Any],
) -> None:
    """The demo's story: day 2's load failed on the replaced file; the plan from the file since
    the failed run's start names that run (and audit), not day 2's report, which read day 1's
    orders (the failed load made no current version)."""
    url = make_server().url
    _post(url, _pipeline(load_state="FAIL"))
    assert sorted(_runs(_plan(url, 60))) == [("audit", run_id(5)), ("load", run_id(3))]


def test_a_dataset_a_job_writes_keeps_its_written_versions_only(
    make_server: Callable[..., Any],
) -> None:
    """orders is written by load: its reads (with statistics) make no observed version."""
    url = make_server().url
    with_stats = {**dataset(DS, "orders"), "inputFacets": raw(99, 999)["inputFacets"]}
    _post(url, run(1, "load", 0, inputs=[raw()], outputs=[orders_out()]))
    _post(url, run(2, "report", 10, inputs=[with_stats], outputs=[dataset(DS, "report")]))
    versions = httpx.get(f"{url}/api/v1/namespaces/{DS}/datasets/orders/versions", timeout=30)
    assert [v["createdByRun"]["id"] for v in versions.json()["versions"]] == [run_id(1)]


def test_version_lineage_names_the_observed_version_read(make_server: Callable[..., Any]) -> None:
    url = make_server().url
    _post(url, _pipeline())
    base = f"{url}/api/v1/namespaces/{DS}/datasets/orders"
    current = httpx.get(base, timeout=30).json()["currentVersion"]
    up = httpx.get(f"{base}/versions/{current}/lineage", timeout=30).json()["versions"]
    (read,) = [v for v in up if v["name"] == "raw"]
    assert (read["runId"], read["versionSource"], read["viaRunId"]) == (None, "observed", run_id(3))
    assert read["createdAt"] == at(60)
