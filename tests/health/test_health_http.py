"""``GET /api/v1/alerts``, ``POST /api/v1/alerts/{id}/ack``, ``GET /api/v1/coverage``, ``plumbline
check`` and ``plumbline coverage`` over real HTTP, on both stores, with auth (issue 19)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from model_mirror import assert_mirrors
from pipeline import DS, NS, day, orders, raw
from store_summary import dataset, run_event

from plumbline.cli import main
from plumbline.server.tokens import create_token
from plumbline.store.engine import create_store_engine

HOURS = 6


@pytest.fixture
def world(make_server: Callable[..., Any], db_url: str) -> dict[str, Any]:
    """A server with auth: the steady pipeline, then a schema change and a new input in one
    load run (schema-drift, new-edge), a run left unfinished in ``other``, tokens."""
    server = make_server(auth="required", alert_check_seconds=3600)  # no freshness alert here
    engine = create_store_engine(db_url)
    admin = create_token(engine, "admin", "admin")
    reader = create_token(engine, "reader", "read")
    other_only = create_token(engine, "other-only", "write", namespaces=["other"])
    engine.dispose()
    headers = {"Authorization": f"Bearer {admin}"}
    for hour in range(HOURS):
        posted = httpx.post(f"{server.url}/api/v1/lineage", json=day(hour), headers=headers)
        assert posted.status_code == 201, posted.text
    changed = day(HOURS, inputs=[raw(), dataset(DS, "fx")],
                  outputs=[orders({"id": "string", "price": "double"})])  # fmt: skip
    unfinished = run_event("00000000-0000-4000-8000-999999999999", "START",
                           "2024-05-02T00:00:00Z", job="stuck", namespace="other")  # fmt: skip
    posted = httpx.post(f"{server.url}/api/v1/lineage", json=[*changed, unfinished],
                        headers=headers)  # fmt: skip
    assert posted.status_code == 201, posted.text
    tokens = {"admin": admin, "reader": reader, "other": other_only}
    world = {"url": server.url, **tokens}
    _wait_for_blast_radius(world)
    return world


def _get(world: dict[str, Any], path: str, token: str = "reader", **params: Any) -> httpx.Response:
    return httpx.get(f"{world['url']}/api/v1/{path}", params=params,
                     headers={"Authorization": f"Bearer {world[token]}"}, timeout=30)  # fmt: skip


def _wait_for_blast_radius(world: dict[str, Any]) -> None:
    """Alerts are listed at once (reads wait for normalization); their blast radius is
    attached right after the write commits."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        alerts = _get(world, "alerts").json()["alerts"]
        if alerts and all(a["blastRadius"] is not None for a in alerts):
            return
        time.sleep(0.1)
    raise AssertionError("no blast radius after 30 s")


def _validate(world: dict[str, Any], body: Any, path: str) -> None:
    spec = httpx.get(f"{world['url']}/openapi.json", timeout=60).json()
    schema = spec["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
    validator = Draft202012Validator({**schema["schema"], "components": spec["components"]})
    errors = list(validator.iter_errors(body))
    assert not errors, errors[0].message
    assert_mirrors(body, path)


def test_alerts_list_with_filters_over_http(world: dict[str, Any]) -> None:
    response = _get(world, "alerts")
    assert response.status_code == 200, response.text
    body = response.json()
    _validate(world, body, "/api/v1/alerts")
    kinds = sorted(a["kind"] for a in body["alerts"])
    assert kinds == ["new-edge", "schema-drift"]
    drift = next(a for a in body["alerts"] if a["kind"] == "schema-drift")
    assert set(drift) >= {"id", "kind", "seenAt", "runId", "subject", "details", "blastRadius"}
    assert drift["subject"] == f"dataset:{DS}:orders"
    assert drift["blastRadius"]["datasets"] == 1 and drift["blastRadius"]["jobs"] == 1
    only = _get(world, "alerts", kind="new-edge").json()["alerts"]
    assert [a["kind"] for a in only] == ["new-edge"]
    assert _get(world, "alerts", namespace="nowhere").json()["alerts"] == []
    assert (
        len(_get(world, "alerts", namespace=DS, kind="schema-drift,new-edge").json()["alerts"]) == 1
    )
    assert _get(world, "alerts", since="2999-01-01T00:00:00Z").json()["alerts"] == []
    assert len(_get(world, "alerts", since="2000-01-01T00:00:00Z").json()["alerts"]) == 2
    assert _get(world, "alerts", token="other").json()["alerts"] == []  # not its namespaces


def test_bad_alert_queries_are_one_line_400s(world: dict[str, Any]) -> None:
    bad = _get(world, "alerts", kind="schema-drfit")
    assert bad.status_code == 400 and "schema-drfit" in bad.json()["errors"][0]["message"]
    assert "schema-drift" in bad.json()["errors"][0]["message"]  # the kinds it could be
    assert _get(world, "alerts", since="soon").status_code == 400
    assert _get(world, "alerts", limit=0).status_code == 400
    assert _get(world, "alerts", limit=10_001).status_code == 400


def test_acknowledging_needs_write_scope_and_hides_it_from_check(world: dict[str, Any]) -> None:
    drift = _get(world, "alerts", kind="schema-drift").json()["alerts"][0]
    url = f"{world['url']}/api/v1/alerts/{drift['id']}/ack"
    denied = httpx.post(url, headers={"Authorization": f"Bearer {world['reader']}"})
    assert denied.status_code == 403
    hidden = httpx.post(url, headers={"Authorization": f"Bearer {world['other']}"})
    assert hidden.status_code == 404
    missing = httpx.post(f"{world['url']}/api/v1/alerts/999999/ack",
                         headers={"Authorization": f"Bearer {world['admin']}"})  # fmt: skip
    assert missing.status_code == 404
    done = httpx.post(url, headers={"Authorization": f"Bearer {world['admin']}"})
    assert done.status_code == 200, done.text
    [acked] = done.json()["alerts"]
    assert acked["acknowledgedBy"] == "admin" and acked["acknowledgedAt"]
    open_ones = _get(world, "alerts", acknowledged="false").json()["alerts"]
    assert [a["kind"] for a in open_ones] == ["new-edge"]
    assert _check(world).exit_code == 0  # the default kinds: only the drift, acknowledged


def _check(world: dict[str, Any], *args: str, token: str = "reader") -> Any:
    env = {"PLUMBLINE_URL": world["url"], "PLUMBLINE_API_KEY": world[token]}
    return CliRunner().invoke(main, ["check", *args], env=env)


def test_check_fails_the_build_while_an_alert_of_a_listed_kind_is_open(
    world: dict[str, Any],
) -> None:
    failed = _check(world)
    assert failed.exit_code == 1, failed.output
    assert f"schema-drift dataset:{DS}:orders" in failed.output
    assert "blast radius: 1 dataset(s), 1 job(s)" in failed.output
    assert f"job:{NS}:report" in failed.output
    assert "removed: qty" in failed.output
    assert re.search(r"retyped: price \S+ -> double", failed.output), failed.output  # the types
    assert _check(world, "--fail-on", "volume-anomaly,freshness").exit_code == 0
    assert _check(world, "--fail-on", "new-edge", "--namespace", NS).exit_code == 1
    assert _check(world, "--since", "1m").exit_code == 1
    assert _check(world, "--since", "2999-01-01T00:00:00Z").exit_code == 0


def test_check_that_cannot_tell_exits_2_with_one_line(world: dict[str, Any]) -> None:
    bad_kind = _check(world, "--fail-on", "schema-drfit")
    assert bad_kind.exit_code == 2 and "schema-drfit" in bad_kind.output
    assert _check(world, "--since", "yesterday").exit_code == 2
    done = subprocess.run(
        [sys.executable, "-m", "plumbline", "check", "--url", world["url"]],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "401" in done.stderr


def test_coverage_over_http_and_cli(world: dict[str, Any]) -> None:
    response = _get(world, "coverage", since="2000-01-01T00:00:00Z")
    assert response.status_code == 200, response.text
    body = response.json()
    _validate(world, body, "/api/v1/coverage")
    by_ns = {entry["namespace"]: entry for entry in body["namespaces"]}
    warehouse = by_ns[DS]
    assert warehouse["unproducedInputs"] == 2  # raw and fx: nobody writes them
    assert warehouse["examples"]["unproducedInputs"] == ["fx", "raw"]
    assert (warehouse["outputs"], warehouse["outputsWithoutSchema"]) == (2, 0)
    assert warehouse["outputsWithoutColumnLineage"] == 0
    # orders: id, price (current), qty (removed, kept with its lineage); report: total, items
    assert warehouse["columnLineageShare"] == 1.0
    assert by_ns["other"]["unfinishedRuns"] == 1
    assert by_ns["other"]["examples"]["jobsWithUnfinishedRuns"] == ["stuck"]
    assert body["overall"]["producers"][0]["events"] == 2 * 2 * (HOURS + 1) + 1
    # the window is event time: the default (7 days ago) is after every event here
    assert _get(world, "coverage", token="other").json()["namespaces"] == []
    limited = _get(world, "coverage", token="other", since="2000-01-01T00:00:00Z").json()
    assert [entry["namespace"] for entry in limited["namespaces"]] == ["other"]
    assert _get(world, "coverage", token="other", namespace=DS).status_code == 403
    env = {"PLUMBLINE_URL": world["url"], "PLUMBLINE_API_KEY": world["reader"]}
    table = CliRunner().invoke(main, ["coverage", "--since", "2000-01-01"], env=env)
    assert table.exit_code == 0, table.output
    assert "datasets read, no known producer" in table.output and "100%" in table.output
    bad = CliRunner().invoke(main, ["coverage", "--since", "later"], env=env)  # a usage error
    assert bad.exit_code == 2
    assert [line for line in bad.output.splitlines() if line.startswith("Error:")] == [
        "Error: Invalid value for '--since': expected an ISO-8601 date or time (2024-01-01, "
        "2024-01-01T12:00:00Z) or a span (30m, 24h, 7d, 2w), got 'later'"
    ]


def test_an_unknown_namespace_cannot_be_told(world: dict[str, Any]) -> None:
    # issue 27: `check --namespace nosuchns` said "ok" and exited 0; coverage printed zeros
    env = {**os.environ, "PLUMBLINE_URL": world["url"], "PLUMBLINE_API_KEY": world["reader"]}
    for command in (["check"], ["coverage"], ["check", "--namespace", NS]):
        done = subprocess.run(
            [sys.executable, "-m", "plumbline", *command, "--namespace", "nosuchns"],
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        assert done.stdout == ""
        assert done.stderr == (
            "Error: --namespace: the server knows no namespace 'nosuchns' (cannot tell)\n"
        )
    # a namespace the token may not read is unknown to it, too
    other = _check(world, "--namespace", DS, token="other")
    assert other.exit_code == 2 and "(cannot tell)" in other.output
    known = _check(world, "--namespace", "other", "--fail-on", "schema-drift")
    assert known.exit_code == 0 and known.output.startswith("ok:")


def test_the_periodic_check_finds_stale_datasets(make_server: Callable[..., Any]) -> None:
    """The steady pipeline's last hour was long ago: the server's check (every 0.2 s here)
    finds both outputs stale, with their blast radius, once."""
    server = make_server(alert_check_seconds=0.2)
    for hour in range(HOURS):
        assert httpx.post(f"{server.url}/api/v1/lineage", json=day(hour)).status_code == 201
    deadline = time.monotonic() + 30
    found: list[Any] = []
    while time.monotonic() < deadline and len(found) < 2:
        time.sleep(0.2)
        found = httpx.get(f"{server.url}/api/v1/alerts", params={"kind": "freshness"}).json()
        found = [a for a in found["alerts"] if a["blastRadius"] is not None]
    assert sorted(a["subject"] for a in found) == [f"dataset:{DS}:orders", f"dataset:{DS}:report"]
    time.sleep(0.6)  # more checks: nothing new
    again = httpx.get(f"{server.url}/api/v1/alerts").json()["alerts"]
    assert len(again) == 2
