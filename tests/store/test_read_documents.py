"""Marquez-shaped documents from the store on both backends: namespaces, datasets and versions, jobs
and versions, runs and facets, paging, search, tags, soft delete, raw events and dashboard stats."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from builder import T0, StoreBuilder

from plumbline.store import schema as s
from plumbline.store.read import (
    datasets,
    events,
    jobs,
    namespaces,
    runs,
    search,
    stats,
    tags,
)
from plumbline.store.read.errors import InvalidArgumentError, NotFoundError
from plumbline.store.write import hiding, tagging


@pytest.fixture
def store(engine: sa.Engine) -> dict[str, str]:
    """Two runs of `load` (raw -> clean) and one of `report` (clean -> summary)."""
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("shop", "load", ("raw",), ("clean",))
        b.job("shop", "report", ("clean",), ("summary",))
        b.dataset("shop", "clean", ("id", "name"))
        b.field("shop", "summary", "total", "bigint")
        first = b.run("shop", "load", reads=("raw",), writes=("clean",), minutes=0)
        second = b.run("shop", "load", reads=("raw",), writes=("clean",), minutes=60)
        report = b.run("shop", "report", reads=("clean",), writes=("summary",), minutes=70)
        b.dataset("other", "elsewhere")
    return {"first": first, "second": second, "report": report}


def test_namespaces_list_and_get(engine: sa.Engine, store: dict[str, str]) -> None:
    with engine.connect() as conn:
        listed = namespaces.list_namespaces(conn, 100, 0)
        one = namespaces.get_namespace(conn, "shop")
        with pytest.raises(NotFoundError):
            namespaces.get_namespace(conn, "missing")
    assert [n["name"] for n in listed["namespaces"]] == ["other", "shop"]
    assert listed["totalCount"] == 2
    assert one == {
        "name": "shop",
        "createdAt": "2026-01-02T03:04:05Z",
        "updatedAt": "2026-01-02T03:04:05Z",
        "ownerName": "anonymous",
        "description": None,
        "isHidden": False,
    }


def test_dataset_document(engine: sa.Engine, store: dict[str, str]) -> None:
    with engine.connect() as conn:
        doc = datasets.get_dataset(conn, "shop", "clean")
        version = conn.execute(
            sa.select(s.dataset_versions.c.uuid).where(
                s.dataset_versions.c.run_uuid == store["second"]
            )
        ).scalar_one()
    assert doc["id"] == {"namespace": "shop", "name": "clean"}
    assert doc["type"] == "DB_TABLE"
    assert doc["physicalName"] == "clean"
    assert doc["sourceName"] == "shop"
    assert doc["fields"] == [
        {"name": "id", "type": "string", "tags": [], "description": None},
        {"name": "name", "type": "string", "tags": [], "description": None},
    ]
    assert doc["currentVersion"] == version
    assert doc["lastLifecycleState"] == "OVERWRITE"
    assert doc["deleted"] is False
    assert doc["facets"] == {}


def test_dataset_versions_newest_first_with_their_runs(
    engine: sa.Engine, store: dict[str, str]
) -> None:
    with engine.connect() as conn:
        listed = datasets.list_dataset_versions(conn, "shop", "clean", 100, 0)
        page = datasets.list_dataset_versions(conn, "shop", "clean", 1, 1)
        by_run_id = datasets.get_dataset_version(conn, "shop", "clean", store["first"])
    assert listed["totalCount"] == 2
    assert [v["createdByRun"]["id"] for v in listed["versions"]] == [
        store["second"],
        store["first"],
    ]
    assert [v["datasetVersion"] for v in page["versions"]] == [store["first"]]
    assert by_run_id["version"] == listed["versions"][1]["version"]
    assert by_run_id["createdByRun"]["state"] == "COMPLETED"
    assert by_run_id["createdByRun"]["durationMs"] == 90_000


def test_list_datasets_pages_by_name(engine: sa.Engine, store: dict[str, str]) -> None:
    with engine.connect() as conn:
        first = datasets.list_datasets(conn, "shop", 2, 0)
        rest = datasets.list_datasets(conn, "shop", 2, 2)
    assert first["totalCount"] == 3
    assert [d["name"] for d in first["datasets"]] == ["clean", "raw"]
    assert [d["name"] for d in rest["datasets"]] == ["summary"]


def test_job_document_with_io_and_latest_runs(engine: sa.Engine, store: dict[str, str]) -> None:
    with engine.connect() as conn:
        doc = jobs.get_job(conn, "shop", "load")
        listed = jobs.list_jobs(conn, "shop", 100, 0)
        everywhere = jobs.list_jobs(conn, None, 100, 0, ["COMPLETED"])
        failed = jobs.list_jobs(conn, None, 100, 0, ["FAILED"])
    assert doc["id"] == {"namespace": "shop", "name": "load"}
    assert doc["inputs"] == [{"namespace": "shop", "name": "raw"}]
    assert doc["outputs"] == [{"namespace": "shop", "name": "clean"}]
    assert [r["id"] for r in doc["latestRuns"]] == [store["second"], store["first"]]
    assert doc["latestRun"]["id"] == store["second"]
    assert doc["simpleName"] == "load" and doc["parentJobName"] is None
    assert [j["name"] for j in listed["jobs"]] == ["load", "report"]
    assert everywhere["totalCount"] == 2
    assert failed == {"totalCount": 0, "jobs": []}


def test_run_document_and_facets(engine: sa.Engine, store: dict[str, str]) -> None:
    with engine.connect() as conn:
        run = runs.get_run(conn, store["report"])
        run_facets = runs.get_run_facets(conn, store["report"], "run")
        job_facets = runs.get_run_facets(conn, store["report"], "job")
        listed = runs.list_job_runs(conn, jobs.job_pk(conn, "shop", "load"), 1, 0)
        with pytest.raises(NotFoundError):
            runs.get_run(conn, "00000000-0000-0000-0000-000000000000")
        with pytest.raises(InvalidArgumentError):
            runs.get_run_facets(conn, store["report"], "dataset")
    assert run["state"] == "COMPLETED"
    assert run["startedAt"] == "2026-01-02T04:14:05Z"
    assert run["endedAt"] == "2026-01-02T04:15:35Z"
    assert [v["datasetVersionId"]["name"] for v in run["inputDatasetVersions"]] == ["clean"]
    assert [v["datasetVersionId"]["name"] for v in run["outputDatasetVersions"]] == ["summary"]
    with engine.connect() as conn:
        first = runs.get_run(conn, store["first"])
    # raw was never written by a run: listed without a version
    assert first["inputDatasetVersions"] == [
        {
            "datasetVersionId": {"namespace": "shop", "name": "raw", "version": None},
            "facets": {},
            "datasetVersion": None,
        }
    ]
    assert run_facets == {
        "runId": store["report"],
        "facets": {"nominalTime": {"nominalStartTime": "2026-01-02T04:14:05+00:00"}},
    }
    assert job_facets["facets"] == {"jobType": {"jobType": "JOB"}}
    assert listed["totalCount"] == 2 and [r["id"] for r in listed["runs"]] == [store["second"]]


def test_search_by_name_filter_and_sort(engine: sa.Engine, store: dict[str, str]) -> None:
    with engine.connect() as conn:
        found = search.search(conn, "LOA")
        datasets_only = search.search(conn, "a", filter="DATASET")
        percent = search.search(conn, "%")
    assert found == {
        "totalCount": 1,
        "results": [
            {
                "type": "JOB",
                "name": "load",
                "updatedAt": "2026-01-02T03:04:05Z",
                "namespace": "shop",
                "nodeId": "job:shop:load",
            }
        ],
    }
    assert [r["name"] for r in datasets_only["results"]] == ["clean", "raw", "summary"]
    assert percent["totalCount"] == 0  # LIKE wildcards are matched literally


def test_tags_on_datasets_fields_and_jobs(engine: sa.Engine, store: dict[str, str]) -> None:
    with engine.begin() as conn:
        tagging.put_tag(conn, "pii", "personal data")
        tagging.tag_dataset(conn, "shop", "clean", "pii")
        tagging.tag_dataset(conn, "shop", "clean", "pii")  # idempotent
        tagging.tag_field(conn, "shop", "clean", "name", "pii")
        tagging.tag_job(conn, "shop", "load", "nightly")  # creates the tag
        with pytest.raises(NotFoundError):
            tagging.tag_field(conn, "shop", "clean", "nope", "pii")
    with engine.connect() as conn:
        doc = datasets.get_dataset(conn, "shop", "clean")
        listed = tags.list_tags(conn, 100, 0)
        job = jobs.get_job(conn, "shop", "load")
    assert doc["tags"] == ["pii"]
    assert [f["tags"] for f in doc["fields"]] == [[], ["pii"]]
    assert job["tags"] == ["nightly"]
    assert listed["tags"] == [
        {"name": "nightly", "description": None},
        {"name": "pii", "description": "personal data"},
    ]
    with engine.begin() as conn:
        tagging.tag_dataset(conn, "shop", "clean", "pii", add=False)
    with engine.connect() as conn:
        assert datasets.get_dataset(conn, "shop", "clean")["tags"] == []


def test_soft_delete_hides_everywhere(engine: sa.Engine, store: dict[str, str]) -> None:
    with engine.begin() as conn:
        before = hiding.hide_dataset(conn, "shop", "raw")
        hiding.hide_job(conn, "shop", "report")
    assert before["name"] == "raw" and before["deleted"] is False
    with engine.connect() as conn:
        with pytest.raises(NotFoundError):
            datasets.get_dataset(conn, "shop", "raw")
        with pytest.raises(NotFoundError):
            jobs.get_job(conn, "shop", "report")
        assert [d["name"] for d in datasets.list_datasets(conn, "shop", 100, 0)["datasets"]] == [
            "clean",
            "summary",
        ]
        assert jobs.get_job(conn, "shop", "load")["inputs"] == []
        found = search.search(conn, "r")["results"]
        assert [r["name"] for r in found] == ["elsewhere", "summary"]
    with engine.begin() as conn:
        hiding.hide_namespace(conn, "other")
    with engine.connect() as conn:
        assert [n["name"] for n in namespaces.list_namespaces(conn, 100, 0)["namespaces"]] == [
            "shop"
        ]
        assert search.search(conn, "elsewhere")["totalCount"] == 0


def _event(conn: sa.Connection, at: datetime, event_type: str, n: int) -> None:
    conn.execute(
        sa.insert(s.lineage_events).values(
            kind="RunEvent",
            event_type=event_type,
            event_time=at,
            job_namespace="shop",
            job_name="load",
            digest=f"digest-{n}",
            payload={"eventType": event_type, "eventTime": at.isoformat(), "n": n},
            received_at=at,
        )
    )


def test_events_filtered_sorted_and_paged(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        for n in range(5):
            _event(conn, T0 + timedelta(hours=n), "START", n)
    with engine.connect() as conn:
        newest = events.list_lineage_events(
            conn, before=None, after=None, sort_direction="desc", limit=2, offset=0
        )
        window = events.list_lineage_events(
            conn,
            before=T0 + timedelta(hours=3),
            after=T0 + timedelta(hours=1),
            sort_direction="asc",
            limit=10,
            offset=1,
        )
    assert [e["n"] for e in newest["events"]] == [4, 3] and newest["totalCount"] == 5
    assert [e["n"] for e in window["events"]] == [2, 3] and window["totalCount"] == 3


def test_stats_per_hour_and_per_local_day(engine: sa.Engine, store: dict[str, str]) -> None:
    now = datetime(2026, 1, 2, 5, 30, tzinfo=UTC)
    with engine.begin() as conn:
        _event(conn, datetime(2026, 1, 2, 5, 10, tzinfo=UTC), "START", 1)
        _event(conn, datetime(2026, 1, 2, 5, 20, tzinfo=UTC), "COMPLETE", 2)
        _event(conn, datetime(2026, 1, 2, 3, 0, tzinfo=UTC), "FAIL", 3)
        _event(conn, datetime(2025, 12, 30, 23, 0, tzinfo=UTC), "ABORT", 4)
    with engine.connect() as conn:
        day = stats.lineage_event_stats(conn, "DAY", None, now)
        week = stats.lineage_event_stats(conn, "WEEK", "America/New_York", now)
        job_growth = stats.growth_stats(conn, "jobs", "DAY", None, now)
        with pytest.raises(InvalidArgumentError):
            stats.lineage_event_stats(conn, "MONTH", None, now)
        with pytest.raises(InvalidArgumentError):
            stats.lineage_event_stats(conn, "WEEK", "Mars/Olympus", now)
    assert len(day) == 24
    assert day[-1] == {
        "startInterval": "2026-01-02T05:00:00Z",
        "endInterval": "2026-01-02T06:00:00Z",
        "fail": 0,
        "start": 1,
        "complete": 1,
        "abort": 0,
    }
    assert day[-3]["fail"] == 1 and sum(d["abort"] for d in day) == 0
    # New York is UTC-5: 05:30Z is 00:30 local on Jan 2, so the last day starts at 05:00Z
    assert len(week) == 7
    assert week[-1]["startInterval"] == "2026-01-02T05:00:00Z"
    assert (week[-1]["start"], week[-1]["complete"], week[-1]["fail"]) == (1, 1, 0)
    assert week[-2]["fail"] == 1  # 03:00Z on Jan 2 is Jan 1 local
    assert week[-4]["abort"] == 1  # 23:00Z on Dec 30 is 18:00 on Dec 30 local
    assert sum(d["abort"] for d in week) == 1
    # both jobs were created at 03:04:05Z: counted from the 03:00 interval on
    assert [g["count"] for g in job_growth[-4:]] == [0, 2, 2, 2]


def test_namespace_limited_callers_see_only_their_part(
    engine: sa.Engine, store: dict[str, str]
) -> None:
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("other", "copy", ("elsewhere",), ("elsewhere_copy",))
        _event(conn, T0, "START", 1)
    only_other = frozenset({"other"})
    with engine.connect() as conn:
        listed = jobs.list_jobs(conn, None, 100, 0, namespaces=only_other)
        found = search.search(conn, "e", visible_to=only_other)
        shop_datasets = search.search(conn, "a", filter="DATASET", visible_to=frozenset({"shop"}))
        hidden_events = events.list_lineage_events(
            conn,
            before=None,
            after=None,
            sort_direction="desc",
            limit=10,
            offset=0,
            visible_to=only_other,
        )
    assert [j["name"] for j in listed["jobs"]] == ["copy"] and listed["totalCount"] == 1
    assert [r["name"] for r in found["results"]] == ["elsewhere", "elsewhere_copy"]
    assert [r["name"] for r in shop_datasets["results"]] == ["clean", "raw", "summary"]
    assert hidden_events == {"events": [], "totalCount": 0}
