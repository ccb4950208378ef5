"""The namespace rule of a limited token, over real HTTP on both stores.

A token limited to ``team_a`` and ``lake_a`` writes events whose job and outputs are in those
namespaces (the others of a batch are rejected one by one, the rest stored); inputs from elsewhere
are recorded as edges without changing the foreign dataset; global things (the forwarding outbox,
tag definitions) need an unlimited token; and no route of the OpenAPI document shows it anything
of another namespace (``zzb_*``), whatever its scope.
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine

PRODUCER = "https://example.com/producer"
SCHEMA = (
    "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet"
)
DOCS = "https://openlineage.io/spec/facets/1-0-1/DocumentationDatasetFacet.json"
COLUMNS = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"
SYMLINKS = "https://openlineage.io/spec/facets/1-0-1/SymlinksDatasetFacet.json"
MINE = ["team_a", "lake_a"]
FOREIGN = "zzb"  # every name of the other namespaces contains it; nothing of team_a's does


def dataset(namespace: str, name: str, columns: dict[str, str], **more: Any) -> dict[str, Any]:
    facets: dict[str, Any] = {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": SCHEMA,
            "fields": [{"name": c, "type": t} for c, t in columns.items()],
        },
        **more,
    }
    return {"namespace": namespace, "name": name, "facets": facets}


def documented(text: str) -> dict[str, Any]:
    return {"documentation": {"_producer": PRODUCER, "_schemaURL": DOCS, "description": text}}


def event(
    namespace: str,
    job: str,
    inputs: list[dict[str, Any]],
    outputs: list[dict[str, Any]],
    kind: str = "COMPLETE",
    run_id: str | None = None,
) -> dict[str, Any]:
    return {
        "eventType": kind,
        "eventTime": "2026-01-01T00:00:00Z",
        "run": {"runId": run_id or str(uuid.uuid4())},
        "job": {"namespace": namespace, "name": job},
        "inputs": inputs,
        "outputs": outputs,
        "producer": PRODUCER,
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def server(make_server: Any, db_url: str) -> Any:
    return make_server(auth="required")


@pytest.fixture
def tokens(server: Any, db_url: str) -> dict[str, str]:
    engine = create_store_engine(db_url)
    made = {
        scope: create_token(engine, f"limited-{scope}", scope, MINE)
        for scope in ("read", "write", "admin")
    }
    made["root"] = create_token(engine, "root", "admin")
    engine.dispose()
    return made


def _foreign_world(client: httpx.Client, root: dict[str, str]) -> dict[str, str]:
    """zzb_ns's job reads zzb_lake's zzb_in and writes zzb_out (retyped once: an alert)."""
    lineage = {
        "columnLineage": {
            "_producer": PRODUCER,
            "_schemaURL": COLUMNS,
            "fields": {
                "zzb_col": {
                    "inputFields": [{"namespace": "zzb_lake", "name": "zzb_in", "field": "zzb_col"}]
                }
            },
        }
    }
    source = dataset("zzb_lake", "zzb_in", {"zzb_col": "int"})
    runs = []
    for column_type in ("int", "string"):
        run = str(uuid.uuid4())
        runs.append(run)
        sink = dataset("zzb_lake", "zzb_out", {"zzb_col": column_type}, **lineage)
        for kind in ("START", "COMPLETE"):
            body = event("zzb_ns", "zzb_job", [source], [sink], kind, run)
            assert client.post("/api/v1/lineage", json=body, headers=root).status_code == 201
    mine = event("team_a", "etl", [dataset("lake_a", "orders", {"id": "int"})], [])
    assert client.post("/api/v1/lineage", json=mine, headers=root).status_code == 201
    deadline = time.monotonic() + 30
    alerts: list[Any] = []
    while not alerts and time.monotonic() < deadline:
        alerts = client.get("/api/v1/alerts", headers=root).json()["alerts"]
        time.sleep(0.2)
    assert alerts, "the retyped zzb_out raised no alert"
    out = client.get("/api/v1/namespaces/zzb_lake/datasets/zzb_out/versions", headers=root).json()
    job = client.get("/api/v1/namespaces/zzb_ns/jobs/zzb_job/versions", headers=root).json()
    return {
        "run": runs[-1],
        "alert": str(alerts[0]["id"]),
        "version": out["versions"][0]["version"],
        "job_version": job["versions"][0]["version"],
    }


def test_a_limited_writer_writes_its_namespaces_only(server: Any, tokens: dict[str, str]) -> None:
    root, writer = bearer(tokens["root"]), bearer(tokens["write"])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        original = dataset("zzb_lake", "zzb_in", {"zzb_col": "int"}, **documented("theirs"))
        assert (
            client.post(
                "/api/v1/lineage", json=event("zzb_ns", "zzb_job", [], [original]), headers=root
            ).status_code
            == 201
        )
        changed = dataset("zzb_lake", "zzb_in", {"hijacked": "string"}, **documented("mine now"))
        aliased = dataset("lake_a", "alias", {"id": "int"})
        aliased["facets"]["symlinks"] = {
            "_producer": PRODUCER,
            "_schemaURL": SYMLINKS,
            "identifiers": [{"namespace": "zzb_lake", "name": "zzb_in", "type": "TABLE"}],
        }
        batch = [
            event("team_a", "load", [changed], [dataset("lake_a", "out", {"id": "int"})]),
            event("team_a", "spill", [], [dataset("zzb_lake", "zzb_in", {"x": "int"})]),
            event("zzb_ns", "intruder", [], []),
            event("team_a", "alias", [], [aliased]),
        ]
        response = client.post("/api/v1/lineage", json=batch, headers=writer)
        assert response.status_code == 201, response.text
        answer = response.json()
        assert (answer["accepted"], answer["rejected"]) == (1, [1, 2, 3])
        assert answer["errors"] == [
            {
                "index": 1,
                "field": "outputs[0].namespace",
                "message": "this token may not access namespace 'zzb_lake'",
            },
            {
                "index": 2,
                "field": "job.namespace",
                "message": "this token may not access namespace 'zzb_ns'",
            },
            {
                "index": 3,
                "field": "outputs[0].facets.symlinks",
                "message": "this token may not access namespace 'zzb_lake'",
            },
        ]
        single = client.post("/api/v1/lineage", json=batch[1], headers=writer)
        assert single.status_code == 403
        assert single.json()["message"] == "this token may not access namespace 'zzb_lake'"
        assert client.post("/api/v1/lineage", json=batch[1:3], headers=writer).status_code == 403

        # the foreign input is an edge of team_a's job; the foreign dataset is as its owners left it
        theirs = client.get("/api/v1/namespaces/zzb_lake/datasets/zzb_in", headers=root).json()
        assert [f["name"] for f in theirs["fields"]] == ["zzb_col"]
        assert theirs["description"] == "theirs"
        load = client.get("/api/v1/namespaces/team_a/jobs/load", headers=root).json()
        assert load["inputs"] == [{"namespace": "zzb_lake", "name": "zzb_in"}]
        raw = client.get("/api/v1/events/lineage", headers=root).json()["events"]
        [stored] = [e for e in raw if e["job"]["name"] == "load"]
        assert "facets" not in stored["inputs"][0]  # what is kept (and forwarded) is screened
        for name in ("intruder", "spill", "alias"):
            assert (
                client.get(f"/api/v1/namespaces/team_a/jobs/{name}", headers=root).status_code
                == 404
            )


def test_global_things_need_an_unlimited_token(server: Any, tokens: dict[str, str]) -> None:
    root, writer, admin = bearer(tokens["root"]), bearer(tokens["write"]), bearer(tokens["admin"])
    with httpx.Client(base_url=server.url, timeout=30) as client:
        body = event("team_a", "etl", [], [dataset("lake_a", "orders", {"id": "int"})])
        assert client.post("/api/v1/lineage", json=body, headers=writer).status_code == 201
        for method, path in (("GET", "/api/v1/forwarding"), ("POST", "/api/v1/forwarding/retry")):
            denied = client.request(method, path, headers=admin)
            assert denied.status_code == 403
            assert denied.json()["message"] == (
                "the forwarding outbox belongs to no namespace and needs a token not limited to "
                "namespaces (this token is limited to lake_a, team_a)"
            )
            assert client.request(method, path, headers=root).status_code == 200
        assert client.put("/api/v1/tags/PII", json={}, headers=writer).status_code == 403
        assert client.put("/api/v1/tags/PII", json={}, headers=admin).status_code == 403
        assert client.put("/api/v1/tags/PII", json={}, headers=root).status_code == 200
        tag = "/api/v1/namespaces/lake_a/datasets/orders/tags"
        assert client.post(f"{tag}/PII", headers=writer).status_code == 200  # an existing tag
        new = client.post(f"{tag}/Secret", headers=writer)
        assert new.status_code == 403
        assert new.json()["message"].startswith("tag 'Secret' is not defined; a new tag belongs")
        tags = client.get("/api/v1/tags", headers=root).json()["tags"]
        assert [t["name"] for t in tags] == ["PII"]
        assert client.post(f"{tag}/Secret", headers=root).status_code == 200
        assert client.delete(f"{tag}/PII", headers=writer).status_code == 200
        job_tag = "/api/v1/namespaces/team_a/jobs/etl/tags/PII"
        assert client.post(job_tag, headers=writer).status_code == 200


# the foreign value of each parameter a route may take (path or query)
def _values(world: dict[str, str], template: str) -> dict[str, str]:
    node = "dataset:zzb_lake:zzb_out"
    return {
        "namespace": "zzb_lake" if "{dataset}" in template or "/events/" in template else "zzb_ns",
        "dataset": "zzb_out",
        "job": "zzb_job",
        "field": "zzb_col",
        "tag": "PII",
        "version": world["job_version"] if "/jobs/" in template else world["version"],
        "id": world["alert"] if "/alerts/" in template else world["run"],
        "source": "zzb_lake",
        "catalog": "lake",
        "table": "zzb_out",
        "nodeId": "job:zzb_ns:zzb_job" if template.endswith("/diff") else node,
        "runId": world["run"],
        "q": FOREIGN,
        "since": "2000-01-01T00:00:00Z",
        "period": "DAY",
    }


def _call(
    client: httpx.Client,
    method: str,
    template: str,
    operation: dict[str, Any],
    world: dict[str, str],
    token: str,
) -> httpx.Response:
    values = _values(world, template)
    path = re.sub(r"\{(\w+)\}", lambda m: quote(values[m.group(1)], safe=""), template)
    query = {
        p["name"]: values[p["name"]]
        for p in operation.get("parameters", [])
        if p["in"] == "query" and p["name"] in ("nodeId", "runId", "q", "since", "period")
    }
    if "nodeId" in query:
        query.pop("runId", None)  # the routes taking both take one at a time
    kwargs: dict[str, Any] = {}
    if template == "/api/v1/lineage" and method == "POST":
        kwargs["json"] = event("zzb_ns", "zzb_job", [], [])
    elif method in ("POST", "PUT"):
        kwargs["json"] = {}
    return client.request(method, path, params=query, headers=bearer(token), **kwargs)


def test_no_route_shows_a_limited_token_another_namespace(
    server: Any, tokens: dict[str, str]
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        world = _foreign_world(client, bearer(tokens["root"]))
        spec = client.get("/openapi.json").json()
        operations = sorted(
            (method.upper(), template, operation)
            for template, ops in spec["paths"].items()
            for method, operation in ops.items()
            if template.startswith("/api/") and method in ("get", "post", "put", "delete")
        )
        assert len(operations) >= 50
        deletes_last = sorted(operations, key=lambda o: o[0] == "DELETE")
        seen_by_root = 0
        failures = []
        for method, template, operation in deletes_last:
            if method == "GET":  # the control: an unlimited token sees the foreign thing
                answer = _call(client, method, template, operation, world, tokens["root"])
                seen_by_root += answer.status_code == 200 and FOREIGN in answer.text
                if answer.status_code >= 400 and "/catalogs/" not in template:  # none configured
                    failures.append(f"GET {template} as root: {answer.status_code} {answer.text}")
            for scope in ("read", "write", "admin"):
                answer = _call(client, method, template, operation, world, tokens[scope])
                status = answer.status_code
                allowed = status in (403, 404) or (status < 300 and FOREIGN not in answer.text)
                if method != "GET" and template != "/api/v1/health":
                    allowed = status in (403, 404)  # nothing foreign is changed
                if not allowed:
                    failures.append(
                        f"{method} {template} as limited {scope}: {status} {answer.text[:200]}"
                    )
        assert failures == [], "\n".join(failures)
        assert seen_by_root >= 25
        still = client.get("/api/v1/namespaces/zzb_ns/jobs/zzb_job", headers=bearer(tokens["root"]))
        assert still.status_code == 200
