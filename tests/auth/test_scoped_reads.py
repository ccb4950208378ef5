"""Namespace-scoped reads over real HTTP, on both stores.

Three jobs in two namespaces share datasets: team_b's ``feed`` writes ``/data/a_in``; team_a's ``load``
reads it and writes ``/data/shared``; team_b's ``report`` reads ``/data/shared`` and ``s3://b-bucket``'s
``/only`` and writes ``/data/b_out``. A token limited to team_a must read team_a's job, its run and
event, and the two datasets ``load`` touches; nothing of team_b (its jobs, runs, events, the datasets
only its jobs touch, the nodes and edges beyond ``load`` in the graphs). An unlimited token sees all.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from urllib.parse import quote

import httpx
import pytest

from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine

SCHEMA = (
    "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
)
COLUMNS = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet"
PRODUCER = "https://example.com/producer"


def _dataset(namespace: str, name: str, source: tuple[str, str] | None = None) -> dict:
    facets: dict = {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": SCHEMA,
            "fields": [{"name": "id", "type": "int"}],
        }
    }
    if source is not None:
        facets["columnLineage"] = {
            "_producer": PRODUCER,
            "_schemaURL": COLUMNS,
            "fields": {
                "id": {
                    "inputFields": [
                        {
                            "namespace": source[0],
                            "name": source[1],
                            "field": "id",
                            "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}],
                        }
                    ]
                }
            },
        }
    return {"namespace": namespace, "name": name, "facets": facets}


def _complete(
    namespace: str, job: str, inputs: list[dict], outputs: list[dict]
) -> tuple[str, dict]:
    run_id = str(uuid.uuid4())
    return run_id, {
        "eventType": "COMPLETE",
        "eventTime": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "run": {"runId": run_id},
        "job": {"namespace": namespace, "name": job},
        "inputs": inputs,
        "outputs": outputs,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


def _node_ids(graph: dict) -> list[str]:
    return sorted(node["id"] for node in graph["graph"])


def _edges(graph: dict) -> list[tuple[str, str]]:
    return sorted(
        (edge["origin"], edge["destination"])
        for node in graph["graph"]
        for edge in node["outEdges"]
    )


@pytest.fixture
def world(make_server, db_url: str):
    """The server, the two tokens and the run ids of the three jobs."""
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    limited = create_token(engine, "team-a-reader", "read", ["team_a"])
    admin = create_token(engine, "root", "admin")
    engine.dispose()
    feed, feed_event = _complete("team_b", "feed", [], [_dataset("file", "/data/a_in")])
    load, load_event = _complete(
        "team_a",
        "load",
        [_dataset("file", "/data/a_in")],
        [_dataset("file", "/data/shared", source=("file", "/data/a_in"))],
    )
    report, report_event = _complete(
        "team_b",
        "report",
        [_dataset("file", "/data/shared"), _dataset("s3://b-bucket", "/only")],
        [_dataset("file", "/data/b_out", source=("file", "/data/shared"))],
    )
    root = {"Authorization": f"Bearer {admin}"}
    for event in (feed_event, load_event, report_event):
        assert (
            httpx.post(f"{server.url}/api/v1/lineage", json=event, headers=root).status_code == 201
        )
    with (
        httpx.Client(
            base_url=server.url + "/api/v1",
            headers={"Authorization": f"Bearer {limited}"},
            timeout=30,
        ) as a,
        httpx.Client(base_url=server.url + "/api/v1", headers=root, timeout=30) as everyone,
    ):
        yield {"a": a, "all": everyone, "feed": feed, "load": load, "report": report}


def _get(client: httpx.Client, path: str, **params) -> dict:
    response = client.get(path, params=params)
    assert response.status_code == 200, (path, response.status_code, response.text)
    return response.json()


def _missing(client: httpx.Client, path: str, **params) -> str:
    response = client.get(path, params=params)
    assert response.status_code == 404, (path, response.status_code, response.text)
    return response.json()["message"]


def ds(name: str) -> str:
    return quote(name, safe="")


def test_namespaces_and_sources(world) -> None:
    a, everyone = world["a"], world["all"]
    names = lambda body: [ns["name"] for ns in body["namespaces"]]  # noqa: E731
    assert names(_get(a, "/namespaces")) == ["file", "team_a"]
    assert _get(a, "/namespaces")["totalCount"] == 2
    assert names(_get(everyone, "/namespaces")) == ["file", "s3://b-bucket", "team_a", "team_b"]
    assert _get(a, "/namespaces/file")["name"] == "file"
    assert _missing(a, "/namespaces/team_b") == "namespace 'team_b' not found"
    assert (
        _missing(a, f"/namespaces/{ds('s3://b-bucket')}") == "namespace 's3://b-bucket' not found"
    )
    sources = lambda body: sorted(src["name"] for src in body["sources"])  # noqa: E731
    assert sources(_get(a, "/sources")) == ["file"]
    assert sources(_get(everyone, "/sources")) == ["file", "s3://b-bucket"]
    assert _missing(a, f"/sources/{ds('s3://b-bucket')}") == "source 's3://b-bucket' not found"


def test_datasets_touched_by_the_tokens_jobs_are_readable_others_are_missing(world) -> None:
    a, everyone = world["a"], world["all"]
    listing = _get(a, "/namespaces/file/datasets")
    assert [d["name"] for d in listing["datasets"]] == ["/data/a_in", "/data/shared"]
    assert listing["totalCount"] == 2
    assert _get(everyone, "/namespaces/file/datasets")["totalCount"] == 3
    shared = _get(a, f"/namespaces/file/datasets/{ds('/data/shared')}")
    assert (shared["namespace"], shared["name"], [f["name"] for f in shared["fields"]]) == (
        "file",
        "/data/shared",
        ["id"],
    )
    # team_b's datasets answer exactly like a dataset that does not exist
    for name in ("/data/b_out", "/data/nothing"):
        expected = f"dataset {name!r} not found in namespace 'file'"
        assert _missing(a, f"/namespaces/file/datasets/{ds(name)}") == expected
        assert _missing(a, f"/namespaces/file/datasets/{ds(name)}/versions") == expected
    assert (
        _missing(a, f"/namespaces/{ds('s3://b-bucket')}/datasets")
        == "namespace 's3://b-bucket' not found"
    )
    assert _get(everyone, f"/namespaces/file/datasets/{ds('/data/b_out')}")["name"] == "/data/b_out"


def test_versions_hide_runs_of_other_namespaces(world) -> None:
    a, everyone = world["a"], world["all"]
    # /data/shared was written by team_a's load: its run is visible
    shared = _get(a, f"/namespaces/file/datasets/{ds('/data/shared')}/versions")
    assert [v["createdByRun"]["id"] for v in shared["versions"]] == [world["load"]]
    # /data/a_in was written by team_b's feed: the version is there, its run is not
    a_in = _get(a, f"/namespaces/file/datasets/{ds('/data/a_in')}/versions")
    assert [v["createdByRun"] for v in a_in["versions"]] == [None]
    version = a_in["versions"][0]["version"]
    one = _get(a, f"/namespaces/file/datasets/{ds('/data/a_in')}/versions/{version}")
    assert one["createdByRun"] is None
    full = _get(everyone, f"/namespaces/file/datasets/{ds('/data/a_in')}/versions")
    assert [v["createdByRun"]["id"] for v in full["versions"]] == [world["feed"]]


def test_jobs_runs_and_events(world) -> None:
    a, everyone = world["a"], world["all"]
    assert [j["name"] for j in _get(a, "/jobs")["jobs"]] == ["load"]
    assert [j["name"] for j in _get(everyone, "/jobs")["jobs"]] == ["feed", "load", "report"]
    assert a.get("/namespaces/team_b/jobs").status_code == 403
    assert _get(a, f"/jobs/runs/{world['load']}")["id"] == world["load"]
    assert _get(a, f"/jobs/runs/{world['load']}/facets")["runId"] == world["load"]
    for run in (world["feed"], world["report"]):
        assert _missing(a, f"/jobs/runs/{run}") == f"run {run!r} not found"
        assert _missing(a, f"/jobs/runs/{run}/facets", type="job") == f"run {run!r} not found"
        assert _get(everyone, f"/jobs/runs/{run}")["id"] == run
    events = _get(a, "/events/lineage")
    assert [e["run"]["runId"] for e in events["events"]] == [world["load"]]
    assert events["totalCount"] == 1
    assert _get(everyone, "/events/lineage")["totalCount"] == 3


def test_search(world) -> None:
    a, everyone = world["a"], world["all"]
    hits = lambda body: [(r["type"], r["name"]) for r in body["results"]]  # noqa: E731
    assert hits(_get(a, "/search", q="a", limit=50)) == [
        ("DATASET", "/data/a_in"),
        ("DATASET", "/data/shared"),
        ("JOB", "load"),
    ]
    assert hits(_get(everyone, "/search", q="a", limit=50)) == [
        ("DATASET", "/data/a_in"),
        ("DATASET", "/data/b_out"),
        ("DATASET", "/data/shared"),
        ("JOB", "load"),
    ]


def test_stats_count_only_what_the_token_sees(world) -> None:
    a, everyone = world["a"], world["all"]

    def last(client: httpx.Client, what: str) -> int:
        return _get(client, f"/stats/{what}", period="DAY")[-1]["count"]

    assert [last(a, w) for w in ("jobs", "datasets", "sources")] == [1, 2, 1]
    assert [last(everyone, w) for w in ("jobs", "datasets", "sources")] == [3, 4, 2]
    completes = lambda c: sum(i["complete"] for i in _get(c, "/stats/lineage-events", period="DAY"))  # noqa: E731
    assert (completes(a), completes(everyone)) == (1, 3)


def test_lineage_graph_drops_nodes_and_edges_it_may_not_see(world) -> None:
    a, everyone = world["a"], world["all"]
    graph = _get(a, "/lineage", nodeId="dataset:file:/data/shared", depth=5)
    assert _node_ids(graph) == [
        "dataset:file:/data/a_in",
        "dataset:file:/data/shared",
        "job:team_a:load",
    ]
    assert _edges(graph) == [
        ("dataset:file:/data/a_in", "job:team_a:load"),
        ("job:team_a:load", "dataset:file:/data/shared"),
    ]
    assert graph["truncated"] is False
    full = _get(everyone, "/lineage", nodeId="dataset:file:/data/shared", depth=5)
    assert _node_ids(full) == [
        "dataset:file:/data/a_in",
        "dataset:file:/data/b_out",
        "dataset:file:/data/shared",
        "dataset:s3://b-bucket:/only",
        "job:team_a:load",
        "job:team_b:feed",
        "job:team_b:report",
    ]
    # the job's document lists only visible inputs and outputs (they are its own)
    load = next(n for n in graph["graph"] if n["id"] == "job:team_a:load")
    assert load["data"]["outputs"] == [{"namespace": "file", "name": "/data/shared"}]
    assert (
        _missing(a, "/lineage", nodeId="job:team_b:report")
        == "job 'report' not found in namespace 'team_b'"
    )
    assert _missing(a, "/lineage", nodeId="dataset:file:/data/b_out") == (
        "dataset '/data/b_out' not found in namespace 'file'"
    )


def test_column_lineage_drops_fields_it_may_not_see(world) -> None:
    a, everyone = world["a"], world["all"]
    graph = _get(a, "/column-lineage", nodeId="dataset:file:/data/shared", withDownstream="true")
    assert _node_ids(graph) == [
        "datasetField:file:/data/a_in:id",
        "datasetField:file:/data/shared:id",
    ]
    assert _edges(graph) == [
        ("datasetField:file:/data/a_in:id", "datasetField:file:/data/shared:id")
    ]
    full = _get(
        everyone, "/column-lineage", nodeId="dataset:file:/data/shared", withDownstream="true"
    )
    assert _node_ids(full) == [
        "datasetField:file:/data/a_in:id",
        "datasetField:file:/data/b_out:id",
        "datasetField:file:/data/shared:id",
    ]
    assert _missing(a, "/column-lineage", nodeId="datasetField:file:/data/b_out:id") == (
        "dataset '/data/b_out' not found in namespace 'file'"
    )


def test_upstream_runs_stop_at_runs_it_may_not_see(world) -> None:
    a, everyone = world["a"], world["all"]
    upstream = _get(a, "/runlineage/upstream", runId=world["load"])
    assert [r["run"]["id"] for r in upstream["runs"]] == [world["load"]]
    assert upstream["runs"][0]["inputs"][0]["name"] == "/data/a_in"
    assert upstream["runs"][0]["inputs"][0]["producedByRunId"] is None
    full = _get(everyone, "/runlineage/upstream", runId=world["load"])
    assert [r["run"]["id"] for r in full["runs"]] == [world["load"], world["feed"]]
    assert full["runs"][0]["inputs"][0]["producedByRunId"] == world["feed"]
    report = world["report"]
    assert _missing(a, "/runlineage/upstream", runId=report) == f"run {report!r} not found"


def test_open_server_shows_everything(make_server) -> None:
    server = make_server(auth="open")
    _, event = _complete("team_b", "report", [_dataset("file", "/data/shared")], [])
    assert httpx.post(f"{server.url}/api/v1/lineage", json=event).status_code == 201
    body = httpx.get(f"{server.url}/api/v1/namespaces/file/datasets").json()
    assert [d["name"] for d in body["datasets"]] == ["/data/shared"]


def _dataset_event(namespace: str, name: str) -> dict:
    return {
        "eventTime": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "dataset": _dataset(namespace, name),
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
    }


def test_dataset_events_are_read_by_their_dataset_namespace(world) -> None:
    a, everyone = world["a"], world["all"]
    for namespace in ("team_a", "team_b"):
        response = everyone.post("/lineage", json=_dataset_event(namespace, "/registered"))
        assert response.status_code == 201, response.text
    events = _get(a, "/events/lineage")
    assert (
        sorted((e.get("dataset") or e["job"])["namespace"] for e in events["events"])
        == ["team_a"] * 2
    )
    assert [e["dataset"]["name"] for e in events["events"] if "dataset" in e] == ["/registered"]
    assert events["totalCount"] == 2
    assert _get(everyone, "/events/lineage")["totalCount"] == 5
