"""`/openapi.json` is complete and accurate: every route is documented with its parameters, and every
read-API answer (real data, both backends) validates against the documented response schema — with
`additionalProperties: false`, so an undocumented field fails too. The analysis routes answer their
results' hand-written ``to_json()`` as it is, so their answers are also walked against their models
(``model_mirror``): every documented field carried by some answer, every model exercised."""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi.routing import APIRoute
from golden_story import CLEAN, DAILY, RAW, Story
from jsonschema import Draft202012Validator
from model_mirror import ANALYSIS_MODEL_MODULES, Walk, analysis_models, response_models

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "store")]
from stream_batch_events import kafka_batch, stream_event  # noqa: E402

from plumbline.server.api import routers  # noqa: E402

# analysis models the story's answers do not reach: the answers of tests/server/test_api_impact.py
# (Rerun*, ImpactTransformation), test_api_run_analysis.py (FacetChange, KeyChange, SchemaChange,
# FailureEffect), tests/analysis/test_observed_deviations_analysis.py (Deviation) and
# tests/health/test_health_http.py (Producer) exercise them, checked the same way
# (model_mirror.assert_mirrors); ColumnEdge, FieldRef, PrunedRun and RerunPrunedRun (a column
# lineage diff with edges, pruned runs) no test's answer holds yet
NOT_IN_THE_STORY = {
    "ColumnEdge",
    "Deviation",
    "FacetChange",
    "FailureEffect",
    "FieldRef",
    "ImpactTransformation",
    "KeyChange",
    "Producer",
    "PrunedRun",
    "RerunGroup",
    "RerunJob",
    "RerunPrunedRun",
    "RerunRun",
    "RerunStep",
    "RerunVersionUse",
    "SchemaChange",
}
# documented fields no object of the story carries (column-mode impact edges carry it)
NOT_CARRIED_IN_THE_STORY = {"ImpactEdge": {"transformations"}}


DECLASSIFY = (
    "/api/v1/namespaces/{namespace}/datasets/{dataset}/fields/{field}/declassifications/{tag}"
)


def api_routes(routes: list[Any]) -> list[APIRoute]:
    """Every APIRoute of a route list, descending into included routers."""
    found: list[APIRoute] = []
    for route in routes:
        if isinstance(route, APIRoute):
            found.append(route)
        elif hasattr(route, "original_router"):
            found.extend(api_routes(route.original_router.routes))
    return found


def declared_parameters(dependant: Any) -> set[str]:
    """Query and path parameter names of a route, its dependencies' included."""
    names = {p.alias for p in dependant.query_params + dependant.path_params}
    for sub in dependant.dependencies:
        names |= declared_parameters(sub)
    return names


def read_api_operations() -> set[tuple[str, str]]:
    return {
        (method, route.path_format)
        for router in routers
        for route in api_routes(router.routes)
        for method in route.methods
    }


@pytest.fixture
def spec(live_server: Any) -> dict[str, Any]:
    response = httpx.get(f"{live_server.url}/openapi.json")
    assert response.status_code == 200
    return response.json()


def test_every_route_is_documented_with_its_parameters(
    spec: dict[str, Any], live_server: Any
) -> None:
    routes = [r for r in api_routes(live_server.app.router.routes) if r.include_in_schema]
    assert len(routes) >= len(read_api_operations()) // 2
    for route in routes:
        for method in route.methods:
            operation = spec["paths"][route.path_format][method.lower()]
            declared = declared_parameters(route.dependant)
            documented = {p["name"] for p in operation.get("parameters", [])}
            assert documented == declared, (method, route.path_format)


def test_every_read_route_documents_a_json_response(spec: dict[str, Any]) -> None:
    operations = read_api_operations()
    for method, path in operations:
        responses = spec["paths"][path][method.lower()]["responses"]
        schema = responses["200"]["content"]["application/json"]["schema"]
        assert "$ref" in schema or schema.get("type") == "array", (method, path)
        assert spec["paths"][path][method.lower()]["summary"], (method, path)


def _validate(spec: dict[str, Any], method: str, path: str, body: Any) -> None:
    schema = spec["paths"][path][method.lower()]["responses"]["200"]["content"]["application/json"][
        "schema"
    ]
    validator = Draft202012Validator({**schema, "components": spec["components"]})
    errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
    assert not errors, f"{method} {path}: {errors[0].message} at {list(errors[0].absolute_path)}"


def _first_alert(client: httpx.Client) -> int:
    """The id of the first alert listed, once the server has detected one (within 30 s)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        alerts = client.get("/api/v1/alerts").json()["alerts"]
        if alerts:
            return int(alerts[0]["id"])
        time.sleep(0.2)
    raise AssertionError("the retyped raw orders raised no alert")


def test_every_read_route_answers_what_it_documents(spec: dict[str, Any], live_server: Any) -> None:
    story = Story()
    story.post(live_server.url)
    ds = f"/api/v1/namespaces/file/datasets/{quote(CLEAN, safe='')}"
    daily = f"/api/v1/namespaces/file/datasets/{quote(DAILY, safe='')}"
    job = "/api/v1/namespaces/shop/jobs/shop_etl.clean_orders"
    with httpx.Client(base_url=live_server.url, timeout=30) as client:
        for event in story.drift_events():  # one at a time: the second drifts from the first
            assert client.post("/api/v1/lineage", json=event).status_code == 201
            client.get("/api/v1/namespaces")  # a read waits until what came before is normalized
        stream_run = str(uuid.uuid4())
        stream = stream_event(stream_run, "RUNNING", 1, kafka_batch(0, 0, 10, "1"))
        assert client.post("/api/v1/lineage", json=stream).status_code == 201
        alert_id = _first_alert(client)
        version = client.get(f"{ds}/versions").json()["versions"][0]["version"]
        job_version = client.get(f"{job}/versions").json()["versions"][0]["version"]
        calls: list[tuple[str, str, str, dict[str, Any]]] = [
            ("GET", "/api/v1/namespaces", "/api/v1/namespaces", {}),
            ("GET", "/api/v1/namespaces/{namespace}", "/api/v1/namespaces/shop", {}),
            ("GET", "/api/v1/sources", "/api/v1/sources", {}),
            ("GET", "/api/v1/sources/{source}", "/api/v1/sources/file", {}),
            (
                "GET",
                "/api/v1/namespaces/{namespace}/datasets",
                "/api/v1/namespaces/file/datasets",
                {},
            ),
            ("GET", "/api/v1/namespaces/{namespace}/datasets/{dataset}", ds, {}),
            (
                "GET",
                "/api/v1/namespaces/{namespace}/datasets/{dataset}/versions",
                f"{ds}/versions",
                {},
            ),
            (
                "GET",
                "/api/v1/namespaces/{namespace}/datasets/{dataset}/versions/{version}",
                f"{ds}/versions/{version}",
                {},
            ),
            ("GET", "/api/v1/jobs", "/api/v1/jobs", {"lastRunStates": "COMPLETED,FAILED"}),
            ("GET", "/api/v1/namespaces/{namespace}/jobs", "/api/v1/namespaces/shop/jobs", {}),
            ("GET", "/api/v1/namespaces/{namespace}/jobs/{job}", job, {}),
            ("GET", "/api/v1/namespaces/{namespace}/jobs/{job}/versions", f"{job}/versions", {}),
            (
                "GET",
                "/api/v1/namespaces/{namespace}/jobs/{job}/versions/{version}",
                f"{job}/versions/{job_version}",
                {},
            ),
            ("GET", "/api/v1/namespaces/{namespace}/jobs/{job}/runs", f"{job}/runs", {}),
            ("GET", "/api/v1/jobs/runs/{id}", f"/api/v1/jobs/runs/{story.report_run}", {}),
            ("GET", "/api/v1/jobs/runs", "/api/v1/jobs/runs", {"idSuffix": story.report_run[-8:]}),
            (
                "GET",
                "/api/v1/jobs/runs/{id}/facets",
                f"/api/v1/jobs/runs/{story.report_run}/facets",
                {"type": "job"},
            ),
            ("GET", "/api/v1/lineage", "/api/v1/lineage", {"nodeId": f"dataset:file:{RAW}"}),
            (
                "GET",
                "/api/v1/column-lineage",
                "/api/v1/column-lineage",
                {"nodeId": f"dataset:file:{DAILY}", "withDownstream": "true"},
            ),
            ("GET", "/api/v1/impact", "/api/v1/impact", {"nodeId": f"dataset:file:{RAW}"}),
            (
                "GET",
                "/api/v1/rerun-plan",
                "/api/v1/rerun-plan",
                {"nodeId": f"dataset:file:{RAW}", "since": "2000-01-01T00:00:00Z"},
            ),
            (
                "GET",
                "/api/v1/impact",
                "/api/v1/impact",
                {"nodeId": f"datasetField:file:{DAILY}:day", "direction": "upstream"},
            ),
            (
                "GET",
                "/api/v1/runlineage/upstream",
                "/api/v1/runlineage/upstream",
                {"runId": story.report_run},
            ),
            (
                "GET",
                "/api/v1/jobs/runs/{id}/diff",
                f"/api/v1/jobs/runs/{story.report_run}/diff",
                {},
            ),
            ("GET", "/api/v1/diff", "/api/v1/diff", {"nodeId": "job:shop:shop_etl.clean_orders"}),
            (
                "GET",
                "/api/v1/jobs/runs/{id}/root-cause",
                f"/api/v1/jobs/runs/{story.report_run}/root-cause",
                {},
            ),
            (
                "GET",
                "/api/v1/root-cause",
                "/api/v1/root-cause",
                {"nodeId": f"dataset:file:{CLEAN}"},
            ),
            (
                "GET",
                "/api/v1/namespaces/{namespace}/datasets/{dataset}/versions/{version}/lineage",
                f"{ds}/versions/{version}/lineage",
                {"direction": "downstream"},
            ),
            ("GET", "/api/v1/events/lineage", "/api/v1/events/lineage", {}),
            ("GET", "/api/v1/alerts", "/api/v1/alerts", {"kind": "schema-drift"}),
            ("POST", "/api/v1/alerts/{id}/ack", f"/api/v1/alerts/{alert_id}/ack", {}),
            ("GET", "/api/v1/coverage", "/api/v1/coverage", {"namespace": "file"}),
            (  # a body, not parameters (see below)
                "POST",
                "/api/v1/expectations/check",
                "/api/v1/expectations/check",
                {"namespace": "file", "reach": [{"from": CLEAN, "to": DAILY}]},
            ),
            (
                "GET",
                "/api/v1/expectations/baseline",
                "/api/v1/expectations/baseline",
                {"namespace": "shop"},
            ),
            ("GET", "/api/v1/failed-runs", "/api/v1/failed-runs", {"limit": 5}),
            (
                "GET",
                "/api/v1/jobs/runs/{id}/batches",
                f"/api/v1/jobs/runs/{stream_run}/batches",
                {"limit": 5},
            ),
            ("GET", "/api/v1/events", "/api/v1/events", {"limit": 5}),
            ("GET", "/api/v1/events/{namespace}", "/api/v1/events/shop", {}),
            ("GET", "/api/v1/search", "/api/v1/search", {"q": "orders", "sort": "UPDATE_AT"}),
            (
                "GET",
                "/api/v1/stats/lineage-events",
                "/api/v1/stats/lineage-events",
                {"period": "DAY"},
            ),
            ("GET", "/api/v1/stats/jobs", "/api/v1/stats/jobs", {"period": "WEEK"}),
            ("GET", "/api/v1/stats/datasets", "/api/v1/stats/datasets", {"period": "DAY"}),
            ("GET", "/api/v1/stats/sources", "/api/v1/stats/sources", {"period": "DAY"}),
            ("PUT", "/api/v1/tags/{tag}", "/api/v1/tags/pii", {}),
            ("GET", "/api/v1/tags", "/api/v1/tags", {}),
            (
                "POST",
                "/api/v1/namespaces/{namespace}/datasets/{dataset}/tags/{tag}",
                f"{ds}/tags/pii",
                {},
            ),
            (
                "DELETE",
                "/api/v1/namespaces/{namespace}/datasets/{dataset}/tags/{tag}",
                f"{ds}/tags/pii",
                {},
            ),
            (
                "POST",
                "/api/v1/namespaces/{namespace}/datasets/{dataset}/fields/{field}/tags/{tag}",
                f"{ds}/fields/id/tags/pii",
                {},
            ),
            ("GET", "/api/v1/classifications/{tag}", "/api/v1/classifications/pii", {}),
            (
                "PUT",
                DECLASSIFY,
                f"{ds}/fields/id/declassifications/pii",
                {"reason": "hashed"},
            ),
            (
                "DELETE",
                DECLASSIFY,
                f"{ds}/fields/id/declassifications/pii",
                {},
            ),
            (
                "DELETE",
                "/api/v1/namespaces/{namespace}/datasets/{dataset}/fields/{field}/tags/{tag}",
                f"{ds}/fields/id/tags/pii",
                {},
            ),
            ("POST", "/api/v1/namespaces/{namespace}/jobs/{job}/tags/{tag}", f"{job}/tags/pii", {}),
            (
                "DELETE",
                "/api/v1/namespaces/{namespace}/jobs/{job}/tags/{tag}",
                f"{job}/tags/pii",
                {},
            ),
            ("DELETE", "/api/v1/namespaces/{namespace}/datasets/{dataset}", daily, {}),
            ("DELETE", "/api/v1/namespaces/{namespace}/jobs/{job}", job, {}),
            ("DELETE", "/api/v1/namespaces/{namespace}", "/api/v1/namespaces/shop", {}),
        ]
        answers: dict[tuple[str, str], list[Any]] = {}
        for method, template, path, params in calls:
            body = template == "/api/v1/expectations/check" or (method, template) == (
                "PUT",
                DECLASSIFY,
            )
            response = client.request(method, path, **{"json" if body else "params": params})
            assert response.status_code == 200, (method, path, response.text)
            _validate(spec, method, template, response.json())
            answers.setdefault((method, template), []).append(response.json())
    assert {(m, t) for m, t, _, _ in calls} == read_api_operations()
    _mirror_their_models(answers)


def _mirror_their_models(answers: dict[tuple[str, str], list[Any]]) -> None:
    """The analysis routes answer their results' ``to_json()`` as it is (no response model
    filters it): at every depth each object keeps to its model, every field of every model is
    carried by some answer, and every model of the analysis model modules is exercised."""
    models, walk = response_models(), Walk()
    for operation, bodies in answers.items():
        model = models[operation]
        if getattr(model, "__module__", None) in ANALYSIS_MODEL_MODULES:
            for body in bodies:
                walk.answer(body, model, f"{operation[0]} {operation[1]} $")
    assert walk.found == [], "answers that break their model:\n" + "\n".join(walk.found)
    assert walk.unproduced() == NOT_CARRIED_IN_THE_STORY, "documented fields no answer carried"
    unseen = {m.__name__ for m in analysis_models()} - {m.__name__ for m in walk.keys}
    assert unseen == NOT_IN_THE_STORY, f"analysis models no answer exercised: {sorted(unseen)}"
