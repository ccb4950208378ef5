"""Central auth over real HTTP: every endpoint × every kind of caller, tokens from the CLI, namespaces."""

from __future__ import annotations

import re
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

from plumbline.server.auth import Principal, bearer_token, written_namespaces
from plumbline.server.tokens import create_token, list_tokens, revoke_token
from plumbline.store.engine import create_store_engine

REPO = Path(__file__).resolve().parents[2]

# Every operation of the HTTP API and the scope it needs (None: open to everyone).
# Reads need read; POST /api/v1/lineage and tags need write; deletes and forwarding need admin.
SCOPE_OF: dict[tuple[str, str], str | None] = {
    ("GET", "/api/v1/health"): None,
    ("POST", "/api/v1/lineage"): "write",
    ("GET", "/api/v1/lineage"): "read",
    ("GET", "/api/v1/namespaces"): "read",
    ("GET", "/api/v1/namespaces/{namespace}"): "read",
    ("DELETE", "/api/v1/namespaces/{namespace}"): "admin",
    ("GET", "/api/v1/sources"): "read",
    ("GET", "/api/v1/sources/{source}"): "read",
    ("GET", "/api/v1/namespaces/{namespace}/datasets"): "read",
    ("GET", "/api/v1/namespaces/{namespace}/datasets/{dataset}/versions"): "read",
    ("GET", "/api/v1/namespaces/{namespace}/datasets/{dataset}/versions/{version}"): "read",
    ("GET", "/api/v1/namespaces/{namespace}/datasets/{dataset}"): "read",
    ("DELETE", "/api/v1/namespaces/{namespace}/datasets/{dataset}"): "admin",
    ("POST", "/api/v1/namespaces/{namespace}/datasets/{dataset}/tags/{tag}"): "write",
    ("DELETE", "/api/v1/namespaces/{namespace}/datasets/{dataset}/tags/{tag}"): "write",
    (
        "POST",
        "/api/v1/namespaces/{namespace}/datasets/{dataset}/fields/{field}/tags/{tag}",
    ): "write",
    (
        "DELETE",
        "/api/v1/namespaces/{namespace}/datasets/{dataset}/fields/{field}/tags/{tag}",
    ): "write",
    ("GET", "/api/v1/jobs"): "read",
    ("GET", "/api/v1/namespaces/{namespace}/jobs"): "read",
    ("GET", "/api/v1/namespaces/{namespace}/jobs/{job}/versions"): "read",
    ("GET", "/api/v1/namespaces/{namespace}/jobs/{job}/versions/{version}"): "read",
    ("GET", "/api/v1/namespaces/{namespace}/jobs/{job}/runs"): "read",
    ("GET", "/api/v1/namespaces/{namespace}/jobs/{job}"): "read",
    ("DELETE", "/api/v1/namespaces/{namespace}/jobs/{job}"): "admin",
    ("POST", "/api/v1/namespaces/{namespace}/jobs/{job}/tags/{tag}"): "write",
    ("DELETE", "/api/v1/namespaces/{namespace}/jobs/{job}/tags/{tag}"): "write",
    ("GET", "/api/v1/jobs/runs"): "read",
    ("GET", "/api/v1/failed-runs"): "read",
    ("GET", "/api/v1/jobs/runs/{id}"): "read",
    ("GET", "/api/v1/jobs/runs/{id}/facets"): "read",
    ("GET", "/api/v1/column-lineage"): "read",
    ("GET", "/api/v1/runlineage/upstream"): "read",
    ("GET", "/api/v1/impact"): "read",
    ("GET", "/api/v1/rerun-plan"): "read",
    ("GET", "/api/v1/jobs/runs/{id}/diff"): "read",
    ("GET", "/api/v1/diff"): "read",
    ("GET", "/api/v1/jobs/runs/{id}/root-cause"): "read",
    ("GET", "/api/v1/jobs/runs/{id}/batches"): "read",
    ("POST", "/api/v1/expectations/check"): "read",
    ("GET", "/api/v1/expectations/baseline"): "read",
    ("GET", "/api/v1/root-cause"): "read",
    ("GET", "/api/v1/namespaces/{namespace}/datasets/{dataset}/versions/{version}/lineage"): "read",
    ("GET", "/api/v1/events/lineage"): "read",
    ("GET", "/api/v1/events"): "read",
    ("GET", "/api/v1/events/{namespace}"): "read",
    ("GET", "/api/v1/search"): "read",
    ("GET", "/api/v1/tags"): "read",
    ("PUT", "/api/v1/tags/{tag}"): "write",
    ("GET", "/api/v1/classifications/{tag}"): "read",
    (
        "PUT",
        "/api/v1/namespaces/{namespace}/datasets/{dataset}/fields/{field}/declassifications/{tag}",
    ): "write",
    (
        "DELETE",
        "/api/v1/namespaces/{namespace}/datasets/{dataset}/fields/{field}/declassifications/{tag}",
    ): "write",
    ("GET", "/api/v1/stats/lineage-events"): "read",
    ("GET", "/api/v1/stats/jobs"): "read",
    ("GET", "/api/v1/stats/datasets"): "read",
    ("GET", "/api/v1/stats/sources"): "read",
    ("GET", "/api/v1/alerts"): "read",
    ("POST", "/api/v1/alerts/{id}/ack"): "write",
    ("GET", "/api/v1/coverage"): "read",
    ("GET", "/api/v1/forwarding"): "admin",
    ("POST", "/api/v1/forwarding/retry"): "admin",
    ("GET", "/api/v1/catalogs/{catalog}/lineage/datasets/{namespace}/{table}"): "read",
}
PATH_VALUES = {
    "namespace": "team_a",
    "dataset": "orders",
    "job": "etl",
    "tag": "PII",
    "field": "id",
    "version": "00000000-0000-0000-0000-000000000001",
    "id": "00000000-0000-0000-0000-000000000002",
    "source": "src",
    "catalog": "lake",
    "table": "orders",
}
RANK = {"read": 0, "write": 1, "admin": 2}


def run_event(namespace: str, job: str = "etl") -> dict:
    return {
        "eventType": "START",
        "eventTime": "2026-01-01T00:00:00Z",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": namespace, "name": job},
        "inputs": [{"namespace": "file", "name": f"/data/{namespace}/in"}],
        "outputs": [],
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    }


def _request(client: httpx.Client, method: str, template: str, token: str | None) -> httpx.Response:
    path = re.sub(r"\{(\w+)\}", lambda m: PATH_VALUES[m.group(1)], template)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    kwargs: dict = {}
    if (method, template) == ("POST", "/api/v1/lineage"):
        kwargs["json"] = run_event("team_a")
    elif method in ("POST", "PUT"):
        kwargs["json"] = {}
    return client.request(method, path, headers=headers, **kwargs)


def test_every_route_is_in_the_scope_matrix(make_server) -> None:
    server = make_server(auth="required")
    spec = httpx.get(f"{server.url}/openapi.json", timeout=60).json()
    operations = {
        (method.upper(), path)
        for path, ops in spec["paths"].items()
        for method in ops
        if method in ("get", "post", "put", "delete", "patch")
    }
    assert operations - set(SCOPE_OF) == set(), "classify new routes in SCOPE_OF"


def test_scope_matrix(make_server, db_url: str) -> None:
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    tokens = {scope: create_token(engine, f"{scope}-token", scope) for scope in RANK}
    revoked = create_token(engine, "revoked-token", "admin")
    revoke_token(engine, "revoked-token")
    engine.dispose()
    spec_paths = httpx.get(f"{server.url}/openapi.json", timeout=60).json()["paths"]
    failures = []
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for (method, template), needed in SCOPE_OF.items():
            if template not in spec_paths:
                continue  # that route is not built yet
            callers: dict[str, tuple[str | None, set[int] | None]] = {
                "no token": (None, {401} if needed else None),
                "unknown token": ("plb_" + "x" * 43, {401} if needed else None),
                "revoked token": (revoked, {401} if needed else None),
            }
            for scope, token in tokens.items():
                denied = needed is not None and RANK[scope] < RANK[needed]
                callers[f"{scope} token"] = (token, {403} if denied else None)
            for caller, (token, expected) in callers.items():
                response = _request(client, method, template, token)
                status = response.status_code
                if expected is None:
                    ok = status not in (401, 403)
                else:
                    ok = status in expected
                    if status == 401:
                        ok = ok and response.headers.get("www-authenticate") == "Bearer"
                    body = response.json()
                    ok = ok and body["code"] == status and body["message"]
                if not ok:
                    failures.append(
                        f"{method} {template} as {caller}: {status} (want {expected or 'allowed'})"
                    )
    assert failures == []


def test_open_server_needs_no_token(make_server) -> None:
    server = make_server(auth="open")
    assert httpx.get(f"{server.url}/api/v1/forwarding").status_code == 200
    assert (
        httpx.get(
            f"{server.url}/api/v1/forwarding", headers={"Authorization": "Bearer nonsense"}
        ).status_code
        == 200
    )


def test_namespace_limited_token_writes_and_reads_only_its_namespace(
    make_server, db_url: str
) -> None:
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    team_a = create_token(engine, "team-a", "write", ["team_a"])
    admin = create_token(engine, "root", "admin")
    engine.dispose()
    a = {"Authorization": f"Bearer {team_a}"}
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert (
            client.post("/api/v1/lineage", json=run_event("team_a"), headers=a).status_code == 201
        )
        denied = client.post("/api/v1/lineage", json=run_event("team_b"), headers=a)
        assert denied.status_code == 403
        assert denied.json()["message"] == "this token may not access namespace 'team_b'"
        root = {"Authorization": f"Bearer {admin}"}
        assert (
            client.post("/api/v1/lineage", json=run_event("team_b"), headers=root).status_code
            == 201
        )
        assert client.get("/api/v1/namespaces/team_a/jobs", headers=a).status_code == 200
        assert client.get("/api/v1/namespaces/team_b/jobs", headers=a).status_code == 403
        assert client.get("/api/v1/namespaces/team_b/jobs", headers=root).status_code == 200
        assert client.get("/api/v1/forwarding", headers=a).status_code == 403


def test_writes_are_attributed_to_their_token(make_server, db_url: str) -> None:
    import sqlalchemy as sa

    from plumbline.store.schema import lineage_events

    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    writer = create_token(engine, "ingest-bot", "write")
    event = run_event("team_a")
    response = httpx.post(
        f"{server.url}/api/v1/lineage", json=event, headers={"Authorization": f"Bearer {writer}"}
    )
    assert response.status_code == 201, response.text
    with engine.connect() as connection:
        rows = connection.execute(
            sa.select(lineage_events.c.token_name, lineage_events.c.run_uuid)
        ).all()
    assert [tuple(r) for r in rows] == [("ingest-bot", event["run"]["runId"])]
    [info] = list_tokens(engine)
    assert info.last_used_at is not None
    engine.dispose()


def _cli(*args: str, db_url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plumbline", "token", *args, "--db", db_url],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_tokens_from_the_cli_work_until_revoked(make_server, db_url: str) -> None:
    server = make_server(auth="required")
    created = _cli(
        "create", "--name", "airflow", "--scope", "admin", "--namespace", "team_a", db_url=db_url
    )
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"plb_[A-Za-z0-9_-]{43}", token)
    headers = {"Authorization": f"Bearer {token}"}
    jobs = f"{server.url}/api/v1/jobs"
    assert httpx.get(jobs, headers=headers).status_code == 200

    listed = _cli("list", db_url=db_url)
    assert listed.returncode == 0
    assert "airflow" in listed.stdout and "team_a" in listed.stdout and "active" in listed.stdout
    assert token not in listed.stdout  # the secret is shown once only

    duplicate = _cli("create", "--name", "airflow", "--scope", "read", db_url=db_url)
    assert duplicate.returncode == 1
    assert "a token named 'airflow' already exists" in duplicate.stderr

    assert _cli("revoke", "airflow", db_url=db_url).returncode == 0
    after = httpx.get(jobs, headers=headers)
    assert after.status_code == 401
    assert after.json()["message"] == "invalid or revoked token"
    assert "revoked" in _cli("list", db_url=db_url).stdout
    unknown = _cli("revoke", "nobody", db_url=db_url)
    assert unknown.returncode == 1 and "no token named 'nobody'" in unknown.stderr


def test_tokens_are_stored_hashed(db_url: str) -> None:
    import hashlib

    import sqlalchemy as sa

    from plumbline.store.schema import api_tokens

    engine = create_store_engine(db_url)
    token = create_token(engine, "hashed", "read")
    with engine.connect() as connection:
        stored = connection.execute(sa.select(api_tokens.c.token_hash)).scalar_one()
    engine.dispose()
    assert stored == hashlib.sha256(token.encode()).hexdigest()
    assert token not in stored


def test_principal_helpers() -> None:
    limited = Principal(name="t", scope="write", namespaces=frozenset({"a"}))
    assert (
        limited.has_scope("read") and limited.has_scope("write") and not limited.has_scope("admin")
    )
    assert bearer_token("Bearer abc") == "abc"
    assert bearer_token("bearer  abc ") == "abc"
    assert bearer_token("Basic abc") is None
    assert bearer_token("Bearer ") is None
    dataset_event = {"dataset": {"namespace": "s3://bucket", "name": "k"}}
    assert written_namespaces(dataset_event) == [("dataset.namespace", "s3://bucket")]
    assert written_namespaces(run_event("a")) == [("job.namespace", "a")]
    assert limited.event_refusal(run_event("a")) is None
    assert limited.event_refusal(run_event("b")) == (
        "job.namespace",
        "this token may not access namespace 'b'",
    )
    with pytest.raises(Exception, match="belongs to no namespace"):
        limited.check_global("the forwarding outbox")
    Principal(name="root", scope="admin").check_global("the forwarding outbox")
    # inputs of other namespaces lose their dataset facets, the event stays otherwise the same
    event = run_event("a")
    assert limited.screened(event) is event
    event["inputs"][0]["facets"] = {"schema": {}}
    screened = limited.screened(event)
    assert screened["inputs"] == [{"namespace": "file", "name": "/data/a/in"}]
    assert "facets" in event["inputs"][0]


def test_visibility_helpers_select_the_namespaces_jobs_and_the_datasets_they_touch(
    make_server, db_url: str
) -> None:
    import sqlalchemy as sa

    from plumbline.store.read.visibility import visible_datasets as dataset_visibility
    from plumbline.store.read.visibility import visible_jobs as job_visibility
    from plumbline.store.schema import BigId, datasets, jobs, namespaces

    server = make_server()
    a, b = run_event("team_a", "load"), run_event("team_b", "report")
    a["outputs"] = [{"namespace": "file", "name": "/data/shared"}]
    b["inputs"] = [
        {"namespace": "file", "name": "/data/shared"},
        {"namespace": "file", "name": "/data/b_only"},
    ]
    for event in (a, b):
        assert httpx.post(f"{server.url}/api/v1/lineage", json=event).status_code == 201
    server.settle()
    limited = Principal(name="t", scope="read", namespaces=frozenset({"team_a"}))
    everyone = Principal(name="root", scope="admin")
    engine = create_store_engine(db_url)
    with engine.connect() as connection:

        def visible_datasets(principal: Principal) -> list[str]:
            query = sa.select(datasets.c.name).where(
                dataset_visibility(datasets.c.id, principal.namespaces)
            )
            return sorted(connection.execute(query).scalars())

        def visible_jobs(principal: Principal) -> list[str]:
            query = (
                sa.select(jobs.c.name)
                .join(namespaces, namespaces.c.id == jobs.c.namespace_id)
                .where(job_visibility(namespaces.c.name, principal.namespaces))
            )
            return sorted(connection.execute(query).scalars())

        assert visible_datasets(limited) == ["/data/shared", "/data/team_a/in"]
        assert visible_datasets(everyone) == ["/data/b_only", "/data/shared", "/data/team_a/in"]
        assert visible_jobs(limited) == ["load"]
        assert visible_jobs(everyone) == ["load", "report"]
        ids = dict(connection.execute(sa.select(datasets.c.name, datasets.c.id)).all())

        def one_visible(principal: Principal, dataset_id: int) -> bool:
            condition = dataset_visibility(sa.literal(dataset_id, BigId), principal.namespaces)
            return connection.execute(sa.select(sa.literal(1)).where(condition)).first() is not None

        assert one_visible(limited, ids["/data/shared"])
        assert not one_visible(limited, ids["/data/b_only"])
        assert one_visible(everyone, ids["/data/b_only"])
    engine.dispose()
