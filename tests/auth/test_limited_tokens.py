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


SOURCE = "https://openlineage.io/spec/facets/1-0-1/DatasourceDatasetFacet.json"


def _alerts(client: httpx.Client, root: dict[str, str], wanted: int) -> list[Any]:
    deadline = time.monotonic() + 30
    alerts: list[Any] = []
    while time.monotonic() < deadline:
        alerts = client.get("/api/v1/alerts", headers=root).json()["alerts"]
        if len(alerts) >= wanted and all(a["blastRadius"] is not None for a in alerts):
            break
        time.sleep(0.2)
    return alerts


def _latest_version(client: httpx.Client, path: str, root: dict[str, str]) -> str:
    return str(client.get(f"{path}/versions", headers=root).json()["versions"][0]["version"])


def _foreign_world(client: httpx.Client, tokens: dict[str, str]) -> dict[str, Any]:
    """zzb_ns's job reads zzb_lake's zzb_in and writes zzb_out (retyped once: an alert). And where
    the tenants meet (nothing the limited token may read is named zzb*):

    - zzb_ns's zzb_payroll writes payroll_db's salaries, with a zzb source, field and description;
      team_a's spy (sent with the limited writer token) names salaries as its input;
    - zzb_ns's zzb_reader reads lake_a's orders (team_a's etl writes it; retyped once: team_a's
      alert, whose blast radius reaches zzb_reader and zzb_down);
    - orders' columnLineage facet names zzb_lake's zzb_hidden, which no team_a job reads.

    Returns the foreign ids (``foreign``) and two sets of the limited token's own (``salaries``,
    ``orders``) to call every route with."""
    root, writer = bearer(tokens["root"]), bearer(tokens["write"])

    def post(body: Any, headers: dict[str, str]) -> None:
        response = client.post("/api/v1/lineage", json=body, headers=headers)
        assert response.status_code == 201, response.text
        assert response.json().get("rejected", []) == [], response.text

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
    # a producer classifies zzb_in.zzb_col PII: it follows the column edge to zzb_out.zzb_col
    classified = {
        "_producer": PRODUCER,
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/TagsDatasetFacet.json#/$defs/TagsDatasetFacet",
        "tags": [{"key": "PII", "value": "zzb_value", "source": "zzb", "field": "zzb_col"}],
    }
    source = dataset("zzb_lake", "zzb_in", {"zzb_col": "int"}, tags=classified)
    runs = []
    for column_type in ("int", "string"):
        run = str(uuid.uuid4())
        runs.append(run)
        sink = dataset("zzb_lake", "zzb_out", {"zzb_col": column_type}, **lineage)
        for kind in ("START", "COMPLETE"):
            post(event("zzb_ns", "zzb_job", [source], [sink], kind, run), root)
    hidden = dataset("zzb_lake", "zzb_hidden", {"zzb_col": "int"})
    post(event("zzb_ns", "zzb_hider", [], [hidden]), root)
    salaries = dataset(
        "payroll_db",
        "salaries",
        {"zzb_salary": "decimal"},
        **documented("zzb secret"),
        dataSource={
            "_producer": PRODUCER,
            "_schemaURL": SOURCE,
            "name": "zzb_source",
            "uri": "postgres://db.example:5432/zzb_payroll",
        },
    )
    post(event("zzb_ns", "zzb_payroll", [], [salaries]), root)
    spy = str(uuid.uuid4())
    post(
        event("team_a", "spy", [dataset("payroll_db", "salaries", {"x": "int"})], [], run_id=spy),
        writer,
    )
    post(
        event(
            "zzb_ns",
            "zzb_reader",
            [{"namespace": "lake_a", "name": "orders"}],
            [dataset("zzb_lake", "zzb_down", {"zzb_col": "int"})],
        ),
        root,
    )
    from_hidden = {
        "columnLineage": {
            "_producer": PRODUCER,
            "_schemaURL": COLUMNS,
            "fields": {
                "id": {
                    "inputFields": [
                        {"namespace": "zzb_lake", "name": "zzb_hidden", "field": "zzb_col"}
                    ]
                }
            },
        }
    }
    etl = []
    for column_type in ("int", "string"):
        run = str(uuid.uuid4())
        etl.append(run)
        orders = dataset("lake_a", "orders", {"id": column_type}, **from_hidden)
        for kind in ("START", "COMPLETE"):
            post(event("team_a", "etl", [], [orders], kind, run), writer)
    alerts = _alerts(client, root, 2)
    mine = [a for a in alerts if a["namespace"] == "lake_a"]
    theirs = [a for a in alerts if a["namespace"] == "zzb_lake"]
    assert mine and theirs, alerts
    reached = {n["id"] for n in mine[0]["blastRadius"]["nodes"]}
    assert {"job:zzb_ns:zzb_reader", "dataset:zzb_lake:zzb_down"} <= reached, reached

    def versions(namespace: str, name: str, job: str) -> dict[str, str]:
        return {
            "version": _latest_version(
                client, f"/api/v1/namespaces/{namespace}/datasets/{quote(name, safe='')}", root
            ),
            "job_version": _latest_version(client, f"/api/v1/namespaces/team_a/jobs/{job}", root)
            if namespace != "zzb_lake"
            else _latest_version(client, "/api/v1/namespaces/zzb_ns/jobs/zzb_job", root),
        }

    return {
        "foreign": {
            "run": runs[-1],
            "alert": str(theirs[0]["id"]),
            **versions("zzb_lake", "zzb_out", "zzb_job"),
        },
        "salaries": {
            "run": spy,
            "alert": str(mine[0]["id"]),
            "dataset_namespace": "payroll_db",
            "job_namespace": "team_a",
            "dataset": "salaries",
            "job": "spy",
            "source": "payroll_db",
            "node": "dataset:payroll_db:salaries",
            "q": "s",
            **versions("payroll_db", "salaries", "spy"),
        },
        "orders": {
            "run": etl[-1],
            "alert": str(mine[0]["id"]),
            "dataset_namespace": "lake_a",
            "job_namespace": "team_a",
            "dataset": "orders",
            "job": "etl",
            "source": "lake_a",
            "node": "dataset:lake_a:orders",
            "q": "o",
            **versions("lake_a", "orders", "etl"),
        },
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


# routes that answer the limited token's own ids (checked: they do, and show nothing of zzb's)
OWN_READS = {
    "/api/v1/alerts",
    "/api/v1/sources",
    "/api/v1/lineage",
    "/api/v1/column-lineage",
    "/api/v1/namespaces/{namespace}/datasets",
    "/api/v1/namespaces/{namespace}/datasets/{dataset}",
    "/api/v1/namespaces/{namespace}/datasets/{dataset}/versions",
    "/api/v1/namespaces/{namespace}/datasets/{dataset}/versions/{version}",
    "/api/v1/namespaces/{namespace}/jobs/{job}",
    "/api/v1/jobs/runs/{id}",
    "/api/v1/impact",
}


# the value of each parameter a route may take (path or query), for one set of ids
def _values(ids: dict[str, str], template: str) -> dict[str, str]:
    if "dataset" not in ids:  # the foreign set
        ids = {
            **ids,
            "dataset_namespace": "zzb_lake",
            "job_namespace": "zzb_ns",
            "dataset": "zzb_out",
            "job": "zzb_job",
            "source": "zzb_lake",
            "node": "dataset:zzb_lake:zzb_out",
            "q": FOREIGN,
        }
    by_dataset = "{dataset}" in template or "/events/" in template
    return {
        "namespace": ids["dataset_namespace"] if by_dataset else ids["job_namespace"],
        "dataset": ids["dataset"],
        "job": ids["job"],
        "field": "zzb_col",
        "tag": "PII",
        "version": ids["job_version"] if "/jobs/" in template else ids["version"],
        "id": ids["alert"] if "/alerts/" in template else ids["run"],
        "source": ids["source"],
        "catalog": "lake",
        "table": ids["dataset"],
        "nodeId": f"job:{ids['job_namespace']}:{ids['job']}"
        if template.endswith("/diff")
        else ids["node"],
        "runId": ids["run"],
        "idPrefix": ids["run"][:8],
        "q": ids["q"],
        "since": "2000-01-01T00:00:00Z",
        "period": "DAY",
    }


def _call(
    client: httpx.Client,
    method: str,
    template: str,
    operation: dict[str, Any],
    ids: dict[str, str],
    token: str,
) -> httpx.Response:
    values = _values(ids, template)
    path = re.sub(r"\{(\w+)\}", lambda m: quote(values[m.group(1)], safe=""), template)
    query = {
        p["name"]: values[p["name"]]
        for p in operation.get("parameters", [])
        if p["in"] == "query"
        and p["name"] in ("nodeId", "runId", "idPrefix", "q", "since", "period")
    }
    if "nodeId" in query:
        query.pop("runId", None)  # the routes taking both take one at a time
    if template == "/api/v1/expectations/baseline":
        query["namespace"] = values["namespace"]
    kwargs: dict[str, Any] = {}
    if template == "/api/v1/lineage" and method == "POST":
        kwargs["json"] = event("zzb_ns", "zzb_job", [], [])
    elif template.endswith("/declassifications/{tag}") and method == "PUT":
        kwargs["json"] = {"reason": "hashed"}
    elif method in ("POST", "PUT"):
        kwargs["json"] = {}
    return client.request(method, path, params=query, headers=bearer(token), **kwargs)


def test_no_route_shows_a_limited_token_another_namespace(
    server: Any, tokens: dict[str, str]
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        world = _foreign_world(client, tokens)
        spec = client.get("/openapi.json").json()
        operations = sorted(
            (method.upper(), template, operation)
            for template, ops in spec["paths"].items()
            for method, operation in ops.items()
            if template.startswith("/api/") and method in ("get", "post", "put", "delete")
        )
        assert len(operations) >= 50
        reads_by_post = {"/api/v1/expectations/check"}  # a POST that changes nothing
        deletes_last = sorted(operations, key=lambda o: o[0] == "DELETE")
        seen_by_root = own_answers = 0
        failures = []
        for method, template, operation in deletes_last:
            if method == "GET":  # the control: an unlimited token sees the foreign thing
                answer = _call(
                    client, method, template, operation, world["foreign"], tokens["root"]
                )
                seen_by_root += answer.status_code == 200 and FOREIGN in answer.text
                if answer.status_code >= 400 and "/catalogs/" not in template:  # none configured
                    failures.append(f"GET {template} as root: {answer.status_code} {answer.text}")
            for scope, ids in (
                (scope, ids)
                for scope in ("read", "write", "admin")
                for ids in ("foreign", "salaries", "orders")
            ):
                answer = _call(client, method, template, operation, world[ids], tokens[scope])
                status = answer.status_code
                if ids != "foreign":  # its own things: read what it may, nothing of zzb's
                    own_answers += method == "GET" and status == 200
                    if method == "GET" and not (status < 300 and FOREIGN not in answer.text):
                        if status not in (403, 404) or template in OWN_READS:
                            failures.append(
                                f"GET {template} ({ids}) as limited {scope}: "
                                f"{status} {answer.text[:300]}"
                            )
                    continue
                allowed = status in (403, 404) or (status < 300 and FOREIGN not in answer.text)
                if method != "GET" and template not in reads_by_post:
                    allowed = status in (403, 404)  # nothing foreign is changed
                if not allowed:
                    failures.append(
                        f"{method} {template} as limited {scope}: {status} {answer.text[:200]}"
                    )
        assert failures == [], "\n".join(failures)
        assert seen_by_root >= 25
        assert own_answers >= 3 * 2 * 25
        still = client.get("/api/v1/namespaces/zzb_ns/jobs/zzb_job", headers=bearer(tokens["root"]))
        assert still.status_code == 200


def test_a_limited_writer_draws_edges_from_foreign_fields_but_creates_none(
    server: Any, tokens: dict[str, str]
) -> None:
    root, writer = bearer(tokens["root"]), bearer(tokens["write"])

    def lineage(*fields: str) -> dict[str, Any]:
        named = [{"namespace": "zzb_lake", "name": "zzb_in", "field": f} for f in fields]
        return {
            "columnLineage": {
                "_producer": PRODUCER,
                "_schemaURL": COLUMNS,
                "fields": {"id": {"inputFields": named}, "ghost": {"inputFields": named[1:]}},
                "dataset": named[1:],
            }
        }

    with httpx.Client(base_url=server.url + "/api/v1", timeout=30) as client:
        theirs = dataset("zzb_lake", "zzb_in", {"zzb_col": "int"})
        assert (
            client.post(
                "/lineage", json=event("zzb_ns", "zzb_job", [], [theirs]), headers=root
            ).status_code
            == 201
        )
        derived = dataset("lake_a", "derived", {"id": "int"}, **lineage("zzb_col", "zzb_ghost"))
        mine = event("team_a", "load", [{"namespace": "zzb_lake", "name": "zzb_in"}], [derived])
        response = client.post("/lineage", json=mine, headers=writer)
        assert response.status_code == 201, response.text

        def graph(node: str) -> list[str]:
            answer = client.get(
                "/column-lineage", params={"nodeId": node, "withDownstream": "true"}, headers=root
            )
            assert answer.status_code == 200, answer.text
            return sorted(n["id"] for n in answer.json()["graph"])

        # the edge from the field zzb_in has is drawn; no field zzb_ghost is made in zzb_in
        assert graph("dataset:zzb_lake:zzb_in") == [
            "datasetField:lake_a:derived:id",
            "datasetField:zzb_lake:zzb_in:zzb_col",
        ]
        assert (
            client.get(
                "/column-lineage",
                params={"nodeId": "datasetField:zzb_lake:zzb_in:zzb_ghost"},
                headers=root,
            ).status_code
            == 404
        )
        stored = client.get("/namespaces/zzb_lake/datasets/zzb_in", headers=root).json()
        assert [f["name"] for f in stored["fields"]] == ["zzb_col"]
        # an unlimited token's event still names what it likes
        root_event = event(
            "team_a",
            "load2",
            [],
            [dataset("lake_a", "d2", {"id": "int"}, **lineage("zzb_col", "zzb_new"))],
        )
        assert client.post("/lineage", json=root_event, headers=root).status_code == 201
        assert "datasetField:zzb_lake:zzb_in:zzb_new" in graph("dataset:zzb_lake:zzb_in")
