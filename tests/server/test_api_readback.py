"""End to end: golden OpenLineage events POSTed to a live server (SQLite and PostgreSQL), read back
through the Marquez-compatible API with Marquez's own Python client and plain HTTP."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from golden_story import CLEAN, DAILY, DS_NS, JOB_NS, RAW, Story
from marquez_client import MarquezClient


def iso(story: Story, minutes: int) -> str:
    return (story.t0 + timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


@pytest.fixture
def marquez(live_server: Any) -> MarquezClient:
    return MarquezClient(live_server.url)


def ids(graph: dict[str, Any]) -> list[str]:
    return [node["id"] for node in graph["graph"]]


def test_namespaces_datasets_and_versions(marquez: MarquezClient, story: Story) -> None:
    assert [n["name"] for n in marquez.list_namespaces()["namespaces"]] == [DS_NS, JOB_NS]
    dataset = marquez.get_dataset(DS_NS, CLEAN)  # the client encodes the slashes of the name
    assert dataset["id"] == {"namespace": DS_NS, "name": CLEAN}
    assert [(f["name"], f["type"], f["description"]) for f in dataset["fields"]] == [
        ("id", "long", "the id"),
        ("amount", "double", "the amount"),
    ]
    assert dataset["facets"]["schema"]["fields"][0]["name"] == "id"
    assert dataset["deleted"] is False
    listed = marquez.list_datasets(DS_NS)
    assert listed["totalCount"] == 3
    assert [d["name"] for d in listed["datasets"]] == [CLEAN, RAW, DAILY]
    versions = marquez.list_dataset_versions(DS_NS, CLEAN)
    assert versions["totalCount"] == 1
    (version,) = versions["versions"]
    assert version["version"] == dataset["currentVersion"]
    assert version["createdByRun"]["id"] == story.clean_run
    assert version["createdByRun"]["state"] == "COMPLETED"
    assert (
        marquez.get_dataset_version(DS_NS, CLEAN, version["version"])["version"]
        == version["version"]
    )


def test_jobs_and_runs(marquez: MarquezClient, story: Story) -> None:
    job = marquez.get_job(JOB_NS, "shop_etl.clean_orders")
    assert job["simpleName"] == "clean_orders"
    assert job["parentJobName"] == "shop_etl"
    assert job["inputs"] == [{"namespace": DS_NS, "name": RAW}]
    assert job["outputs"] == [{"namespace": DS_NS, "name": CLEAN}]
    latest = job["latestRun"]
    assert (latest["id"], latest["state"], latest["durationMs"]) == (
        story.clean_run,
        "COMPLETED",
        60_000,
    )
    assert latest["startedAt"] == iso(story, 0) and latest["endedAt"] == iso(story, 1)
    assert latest["parentRunId"] == story.app_run
    assert [v["datasetVersionId"]["name"] for v in latest["outputDatasetVersions"]] == [CLEAN]
    assert [
        (v["datasetVersionId"]["name"], v["datasetVersionId"]["version"])
        for v in latest["inputDatasetVersions"]
    ] == [(RAW, None)]
    assert latest["outputDatasetVersions"][0]["facets"]["outputStatistics"]["rowCount"] == 42

    runs = marquez.list_job_runs(JOB_NS, "shop_etl.daily_report")
    assert [(r["id"], r["state"]) for r in runs["runs"]] == [(story.report_run, "FAILED")]
    run = marquez.get_job_run(story.report_run)
    assert run["errorMessage"] == "division by zero"
    assert run["jobVersion"]["name"] == "shop_etl.daily_report"
    names = [j["name"] for j in marquez.list_jobs(JOB_NS)["jobs"]]
    assert names == ["shop_etl", "shop_etl.clean_orders", "shop_etl.daily_report"]


def test_run_facets(http: httpx.Client, story: Story) -> None:
    run_facets = http.get(f"/jobs/runs/{story.report_run}/facets", params={"type": "run"}).json()
    assert run_facets["runId"] == story.report_run
    assert run_facets["facets"]["errorMessage"]["message"] == "division by zero"
    assert run_facets["facets"]["parent"]["run"]["runId"] == story.app_run
    job_facets = http.get(f"/jobs/runs/{story.report_run}/facets", params={"type": "job"}).json()
    assert job_facets["facets"]["jobType"]["integration"] == "SPARK"


def test_lineage_graph(http: httpx.Client, story: Story) -> None:
    job = "job:shop:shop_etl.clean_orders"
    near = http.get("/lineage", params={"nodeId": job, "depth": 0}).json()
    assert ids(near) == [f"dataset:file:{CLEAN}", f"dataset:file:{RAW}", job]
    assert near["truncated"] is False
    far = http.get("/lineage", params={"nodeId": f"dataset:file:{RAW}", "depth": 5}).json()
    assert ids(far) == [
        f"dataset:file:{CLEAN}",
        f"dataset:file:{RAW}",
        f"dataset:file:{DAILY}",
        job,
        "job:shop:shop_etl.daily_report",
    ]
    report = next(n for n in far["graph"] if n["id"] == "job:shop:shop_etl.daily_report")
    assert [(e["origin"], e["destination"]) for e in report["inEdges"]] == [
        (f"dataset:file:{CLEAN}", "job:shop:shop_etl.daily_report")
    ]
    assert report["data"]["latestRun"]["state"] == "FAILED"


def test_column_lineage_with_marquez_client(marquez: MarquezClient, story: Story) -> None:
    graph = marquez.get_column_lineage_by_dataset_field(DS_NS, DAILY, "total", depth=5)
    assert ids(graph) == [
        f"datasetField:file:{CLEAN}:amount",
        f"datasetField:file:{RAW}:amount",
        f"datasetField:file:{RAW}:status",
        f"datasetField:file:{DAILY}:total",
    ]
    clean_amount = graph["graph"][0]["data"]
    assert [
        (i["field"], i["transformations"][0]["subtype"]) for i in clean_amount["inputFields"]
    ] == [
        ("amount", "IDENTITY"),
        ("status", "FILTER"),
    ]
    downstream = marquez.get_column_lineage_by_dataset_field(
        DS_NS, RAW, "status", depth=5, with_downstream=True
    )
    assert ids(downstream) == [
        f"datasetField:file:{CLEAN}:amount",
        f"datasetField:file:{CLEAN}:id",
        f"datasetField:file:{RAW}:status",
        f"datasetField:file:{DAILY}:total",
    ]


def test_upstream_runs(http: httpx.Client, story: Story) -> None:
    body = http.get("/runlineage/upstream", params={"runId": story.report_run, "depth": 5}).json()
    assert [(r["run"]["id"], r["run"]["status"]) for r in body["runs"]] == [
        (story.report_run, "FAILED"),
        (story.clean_run, "COMPLETED"),
    ]
    assert body["runs"][0]["inputs"][0]["producedByRunId"] == story.clean_run


def test_events_search_and_stats(http: httpx.Client, story: Story) -> None:
    events = http.get("/events/lineage", params={"limit": 10}).json()
    assert events["totalCount"] == 4
    assert [e["eventType"] for e in events["events"]] == ["FAIL", "START", "COMPLETE", "START"]
    window = http.get(
        "/events/lineage",
        params={"after": iso(story, 1), "before": iso(story, 2), "sortDirection": "asc"},
    ).json()
    assert [e["eventType"] for e in window["events"]] == ["COMPLETE", "START"]

    found = http.get("/search", params={"q": "daily"}).json()
    assert [(r["type"], r["name"], r["nodeId"]) for r in found["results"]] == [
        ("DATASET", DAILY, f"dataset:file:{DAILY}"),
        ("JOB", "shop_etl.daily_report", "job:shop:shop_etl.daily_report"),
    ]
    jobs_only = http.get("/search", params={"q": "daily", "filter": "JOB"}).json()
    assert jobs_only["totalCount"] == 1

    day = http.get("/stats/lineage-events", params={"period": "DAY"}).json()
    assert len(day) == 24
    totals = {
        key: sum(bucket[key] for bucket in day) for key in ("start", "complete", "fail", "abort")
    }
    assert totals == {"start": 2, "complete": 1, "fail": 1, "abort": 0}
    week = http.get("/stats/datasets", params={"period": "WEEK", "timezone": "Europe/Paris"}).json()
    assert len(week) == 7 and week[-1]["count"] == 3


def test_tags_with_marquez_client(marquez: MarquezClient, story: Story) -> None:
    marquez.create_tag("pii", "personal data")
    tagged = marquez.tag_dataset(DS_NS, CLEAN, "pii")
    assert tagged["tags"] == ["pii"]
    field_tagged = marquez.tag_dataset_field(DS_NS, CLEAN, "amount", "finance")
    assert [(f["name"], f["tags"]) for f in field_tagged["fields"]] == [
        ("id", []),
        ("amount", ["finance"]),
    ]
    assert marquez.list_tags()["tags"] == [
        {"name": "finance", "description": None},
        {"name": "pii", "description": "personal data"},
    ]


def test_soft_delete(http: httpx.Client, story: Story) -> None:
    path = f"/namespaces/file/datasets/{quote(DAILY, safe='')}"
    deleted = http.delete(path)
    assert deleted.status_code == 200 and deleted.json()["name"] == DAILY
    missing = http.get(path)
    assert missing.status_code == 404
    assert missing.json() == {
        "code": 404,
        "message": f"dataset {DAILY!r} not found in namespace 'file'",
        "errors": [],
    }
    lineage = http.get("/lineage", params={"nodeId": "job:shop:shop_etl.daily_report", "depth": 0})
    assert ids(lineage.json()) == [f"dataset:file:{CLEAN}", "job:shop:shop_etl.daily_report"]
    assert http.delete("/namespaces/shop/jobs/shop_etl.daily_report").status_code == 200
    assert http.get("/namespaces/shop/jobs/shop_etl.daily_report").status_code == 404
    assert http.delete("/namespaces/shop").status_code == 200
    assert [n["name"] for n in http.get("/namespaces").json()["namespaces"]] == ["file"]


def test_soft_deleted_dataset_returns_with_new_events(
    http: httpx.Client, live_server: Any, story: Story
) -> None:
    path = f"/namespaces/file/datasets/{quote(DAILY, safe='')}"
    assert http.delete(path).status_code == 200
    Story().post(live_server.url)  # new runs mention the dataset again
    assert http.get(path).status_code == 200


def test_names_with_slashes_and_colons_in_paths(http: httpx.Client, live_server: Any) -> None:
    event = Story().events()[0]
    event["outputs"][0]["namespace"] = "postgres://db:5432"
    event["outputs"][0]["name"] = "public.orders"
    assert httpx.post(live_server.lineage_url, json=event).status_code == 201
    ns = quote("postgres://db:5432", safe="")
    dataset = http.get(f"/namespaces/{ns}/datasets/public.orders")
    assert dataset.status_code == 200 and dataset.json()["namespace"] == "postgres://db:5432"
    graph = http.get("/lineage", params={"nodeId": "dataset:postgres://db:5432:public.orders"})
    assert "job:shop:shop_etl.clean_orders" in ids(graph.json())


def test_bad_requests_answer_in_the_common_error_shape(http: httpx.Client, story: Story) -> None:
    bad_node = http.get("/lineage", params={"nodeId": "table:x:y"})
    assert bad_node.status_code == 400
    assert (
        bad_node.json()["code"] == 400 and bad_node.json()["errors"][0]["field"] == "query.nodeId"
    )
    assert "table:x:y" in bad_node.json()["errors"][0]["message"]
    missing_param = http.get("/lineage")
    assert missing_param.status_code == 400
    assert missing_param.json()["errors"][0]["field"] == "query.nodeId"
    negative = http.get("/lineage", params={"nodeId": f"dataset:file:{RAW}", "depth": -1})
    assert negative.status_code == 400
    assert http.get("/jobs/runs/00000000-0000-0000-0000-000000000000").status_code == 404
    assert http.get("/stats/jobs", params={"period": "YEAR"}).status_code == 400
    assert (
        http.get("/stats/jobs", params={"period": "DAY", "timezone": "Nowhere/City"}).status_code
        == 400
    )
    assert http.get("/namespaces/nope/datasets").status_code == 404


def test_marquez_python_lists_events(marquez: MarquezClient, story: Story) -> None:
    """marquez-python 0.50's list_events calls GET /api/v1/events and /api/v1/events/{namespace}."""
    every = marquez.list_events(limit=100)
    assert every["totalCount"] == len(every["events"]) > 0
    one = marquez.list_events(namespace=JOB_NS)
    assert 0 < one["totalCount"] <= every["totalCount"]
    assert {e["job"]["namespace"] for e in one["events"] if "job" in e} == {JOB_NS}
    assert marquez.list_events(namespace="no-such-namespace")["totalCount"] == 0
