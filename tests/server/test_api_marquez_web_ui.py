"""The requests Marquez's own web UI (MarquezProject/marquez ``web/``, commit a89b89c) sends, exactly
as its ``src/store/requests/*.ts`` build them, against a live server holding the golden events: each
must answer 200 with the fields the UI reads (docs/marquez-ui-check.md tells how the UI itself was
driven against plumbline)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import httpx
from golden_story import CLEAN, DAILY, DS_NS, JOB_NS, RAW, Story

from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine


def enc(value: str) -> str:
    """``encodeURIComponent``."""
    return quote(value, safe="!'()*-._~")


def test_dataset_column_lineage_lists_each_fields_inputs(http: httpx.Client, story: Story) -> None:
    # the `dataset` (whole-dataset, INDIRECT FILTER) dependency is an input of every field of the
    # dataset, as in /column-lineage (Marquez drops the facet's `dataset` list); the field-level
    # type summarizes the inputs: DIRECT when one is DIRECT, whichever input sorts first
    clean = http.get(f"/namespaces/{DS_NS}/datasets/{enc(CLEAN)}").json()
    status = {
        "namespace": DS_NS,
        "dataset": RAW,
        "field": "status",
        "transformationDescription": None,
        "transformationType": "INDIRECT",
    }
    assert clean["columnLineage"] == [
        {
            "name": name,
            "inputFields": sorted(
                [
                    {
                        "namespace": DS_NS,
                        "dataset": RAW,
                        "field": name,
                        "transformationDescription": None,
                        "transformationType": "DIRECT",
                    },
                    status,
                ],
                key=lambda i: i["field"],
            ),
            "transformationDescription": None,
            "transformationType": "DIRECT",
        }
        for name in ("id", "amount")
    ]
    listed = http.get(f"/namespaces/{DS_NS}/datasets?limit=20&offset=0").json()["datasets"]
    by_name = {d["name"]: d["columnLineage"] for d in listed}
    assert by_name[RAW] is None  # nothing computes the raw dataset's fields
    assert by_name[CLEAN] == clean["columnLineage"]
    assert [(c["name"], [i["dataset"] for i in c["inputFields"]]) for c in by_name[DAILY]] == [
        ("total", [CLEAN])
    ]


def test_the_web_uis_requests_answer(http: httpx.Client, story: Story) -> None:
    day_start = story.t0.replace(hour=0, minute=0, second=0)
    after = day_start.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    before = (day_start + timedelta(days=1, seconds=-1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    report = "shop_etl.daily_report"
    dataset_node = f"dataset:{DS_NS}:{enc(CLEAN)}"  # generateNodeId over encoded parts
    ui_requests = {
        "namespaces": "/namespaces",
        "tags": "/tags",
        "dashboard jobs": "/jobs?limit=10&offset=0",
        "dashboard failed jobs": "/jobs?limit=10&offset=0&lastRunStates=FAILED",
        **{
            f"{what} {period}": f"/stats/{what}?period={period}&timezone=America/New_York"
            for what in ("lineage-events", "jobs", "datasets", "sources")
            for period in ("DAY", "WEEK")
        },
        "datasets": f"/namespaces/{DS_NS}/datasets?limit=20&offset=0",
        "jobs": f"/namespaces/{JOB_NS}/jobs?limit=20&offset=0",
        "events": f"/events/lineage?limit=50&before={before}&after={after}&offset=0"
        "&sortDirection=desc",
        "dataset graph": f"/lineage?nodeId={dataset_node}&depth=2",
        "job graph": f"/lineage?nodeId=job:{JOB_NS}:{enc(report)}&depth=5",
        "dataset": f"/namespaces/{DS_NS}/datasets/{enc(CLEAN)}",
        "versions": f"/namespaces/{DS_NS}/datasets/{enc(CLEAN)}/versions?limit=10&offset=0",
        "column graph": f"/column-lineage?nodeId={dataset_node}&depth=2&withDownstream=true",
        "job": f"/namespaces/{JOB_NS}/jobs/{enc(report)}",
        "runs": f"/namespaces/{JOB_NS}/jobs/{enc(report)}/runs?limit=10&offset=0",
        "run facets": f"/jobs/runs/{story.report_run}/facets?type=run",
        "job facets": f"/jobs/runs/{story.report_run}/facets?type=job",
        "search": "/search?q=orders&sort=UPDATE_AT&limit=100",
        "search datasets": "/search?q=orders&sort=NAME&limit=100&filter=DATASET",
    }
    answers = {name: http.get(url) for name, url in ui_requests.items()}
    assert {name: r.status_code for name, r in answers.items() if r.status_code != 200} == {}

    assert len(answers["lineage-events DAY"].json()) == 24  # hourly intervals
    assert len(answers["jobs WEEK"].json()) == 7  # daily intervals
    events = answers["events"].json()
    assert events["totalCount"] == 4
    assert {e["run"]["runId"] for e in events["events"]} == {story.clean_run, story.report_run}
    runs = answers["runs"].json()["runs"]
    assert [(r["id"], r["state"]) for r in runs] == [(story.report_run, "FAILED")]
    run_facets = answers["run facets"].json()
    assert run_facets["facets"]["errorMessage"]["message"] == "division by zero"
    assert answers["job facets"].json()["runId"] == story.report_run
    failed = answers["dashboard failed jobs"].json()["jobs"]
    assert [j["name"] for j in failed] == [report]
    search = answers["search datasets"].json()["results"]
    assert {r["name"] for r in search} == {RAW, CLEAN}


def test_dataset_column_lineage_hides_inputs_a_limited_token_may_not_read(
    make_server: Any, db_url: str
) -> None:
    # team_b's feed computes /shared.id from /secret.id; team_a's use reads /shared: a team_a
    # token reads /shared but not /secret, so /shared has no column lineage it may see
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    team_a = create_token(engine, "team-a-reader", "read", ["team_a"])
    admin = create_token(engine, "root", "admin")
    engine.dispose()
    shared = {"namespace": DS_NS, "name": "/shared"}
    secret = {"namespace": DS_NS, "name": "/secret"}
    lineage = {
        "_producer": "https://github.com/plumbline/tests",
        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
        "fields": {"id": {"inputFields": [{**secret, "field": "id"}]}},
    }
    events = [
        _complete("team_b", "feed", [secret], [{**shared, "facets": {"columnLineage": lineage}}]),
        _complete("team_a", "use", [shared], []),
    ]
    for body in events:
        response = httpx.post(
            server.url + "/api/v1/lineage", json=body, headers={"Authorization": f"Bearer {admin}"}
        )
        assert response.status_code == 201, response.text
    path = f"{server.url}/api/v1/namespaces/{DS_NS}/datasets/{enc('/shared')}"
    seen_by = {
        who: httpx.get(path, headers={"Authorization": f"Bearer {token}"}).json()["columnLineage"]
        for who, token in (("admin", admin), ("team_a", team_a))
    }
    assert [i["dataset"] for i in seen_by["admin"][0]["inputFields"]] == ["/secret"]
    assert seen_by["team_a"] is None


def _complete(
    namespace: str, job: str, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": namespace, "name": job},
        "inputs": inputs,
        "outputs": outputs,
        "producer": "https://github.com/plumbline/tests",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }
