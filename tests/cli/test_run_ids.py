"""Run ids a person types back (issue 27): every command taking a run id takes the short form
the CLI and the UI print (its last 8 characters), or its start; an ambiguous part lists the runs
(exit 2), an unknown one says so in one line (exit 1). The CLI through a subprocess against a live
server on both stores, auth required; the lookup route ``GET /api/v1/jobs/runs?idSuffix=…`` or
``?idPrefix=…`` finds only what a token may read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / d) for d in ("analysis", "store")]
from run_events import DS, orders_out, raw, run, sql  # noqa: E402
from store_summary import dataset  # noqa: E402

from plumbline.server.tokens import create_token  # noqa: E402
from plumbline.store.engine import create_store_engine  # noqa: E402

# three runs shown alike (7f9a06a0, their last 8 characters), told apart by their starts
A1 = "a1000000-0000-4000-8000-00007f9a06a0"
A2 = "a2000000-0000-4000-8000-11117f9a06a0"
B = "1234abcd-0000-4000-8000-00000000cafe"
TEAM_B = "b9000000-0000-4000-8000-22227f9a06a0"
SPARK_JOB = "my_app.execute_insert_into_hadoop_fs_relation_command.clean_readings"
CLEAN = "abcdef01-0000-4000-8000-0000beef0010"


def _as(events: list[dict[str, Any]], run_uuid: str) -> list[dict[str, Any]]:
    for event in events:
        event["run"]["runId"] = run_uuid
    return events


@pytest.fixture
def world(make_server: Any, db_url: str) -> dict[str, Any]:
    server = make_server(auth="required")
    engine = create_store_engine(db_url)
    admin = create_token(engine, "root", "admin")
    limited = create_token(engine, "team-b-reader", "read", ["team_b"])
    engine.dispose()
    events = [
        *_as(run(1, "load", 0, inputs=[raw()], outputs=[orders_out()], job_facets=sql("s1")), A1),
        *_as(run(2, "load", 60, inputs=[raw(price="double")], outputs=[orders_out()],
                 job_facets=sql("s2")), A2),
        *_as(run(3, "load", 120, inputs=[raw()], outputs=[orders_out()], job_facets=sql("s1")), B),
    ]  # fmt: skip
    clean = _as(run(10, SPARK_JOB, 150, inputs=[dataset(DS, "orders")], outputs=[]), CLEAN)
    report = _as(run(9, "report", 200, inputs=[dataset(DS, "orders")], outputs=[]), TEAM_B)
    for event in report:
        event["job"]["namespace"] = "team_b"
    response = httpx.post(
        f"{server.url}/api/v1/lineage",
        json=events + clean + report,
        headers={"Authorization": f"Bearer {admin}"},
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return {"url": server.url, "admin": admin, "limited": limited}


def _cli(
    world: dict[str, Any], *args: str, token: str = "admin"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PLUMBLINE_URL": world["url"], "PLUMBLINE_API_KEY": world[token]}
    return subprocess.run(
        [sys.executable, "-m", "plumbline", *args], capture_output=True, text=True, env=env,
        timeout=120,
    )  # fmt: skip


def _find(
    world: dict[str, Any], part: str, token: str = "admin", side: str = "idSuffix"
) -> httpx.Response:
    return httpx.get(
        f"{world['url']}/api/v1/jobs/runs",
        params={side: part},
        headers={"Authorization": f"Bearer {world[token]}"},
        timeout=30,
    )


def test_the_lookup_route_finds_runs_by_the_end_or_start_of_their_id(
    world: dict[str, Any],
) -> None:
    found = _find(world, "7F9A06A0").json()
    assert found["totalCount"] == 3
    assert [r["id"] for r in found["runs"]] == [A1, A2, TEAM_B]
    assert found["runs"][0]["job"] == {"namespace": "shop", "name": "load"}
    assert found["runs"][0]["state"] == "COMPLETED"
    assert [r["id"] for r in _find(world, "1234abcd-0000", side="idPrefix").json()["runs"]] == [B]
    assert [r["id"] for r in _find(world, "a2000000", side="idPrefix").json()["runs"]] == [A2]
    assert _find(world, B).json()["totalCount"] == 1
    assert _find(world, B, side="idPrefix").json()["totalCount"] == 1
    assert _find(world, "7f9a06a0", side="idPrefix").json() == {"runs": [], "totalCount": 0}
    mine = _find(world, "7f9a06a0", token="limited").json()  # a limited token finds its own
    assert [r["id"] for r in mine["runs"]] == [TEAM_B] and mine["totalCount"] == 1
    for side in ("idSuffix", "idPrefix"):
        for bad in ("7f9", "7f9a%", "7f9a_", "job:shop:load", "x" * 5):
            assert _find(world, bad, side=side).status_code == 400, (side, bad)
    headers = {"Authorization": f"Bearer {world['admin']}"}
    for params in ({}, {"idPrefix": "a100", "idSuffix": "06a0"}):  # exactly one of them
        answer = httpx.get(f"{world['url']}/api/v1/jobs/runs", params=params, headers=headers)
        assert answer.status_code == 400, params


def test_commands_take_the_short_form_or_a_start_of_a_run_id(world: dict[str, Any]) -> None:
    diff = _cli(world, "diff", "0000cafe")  # as printed
    assert diff.returncode == 0, diff.stderr
    assert diff.stdout.startswith("run 0000cafe (COMPLETED) of shop:load against 7f9a06a0")
    against = _cli(world, "diff", "1234ABCD", "--against", "a1000000", "--format", "json")
    assert against.returncode == 0, against.stderr
    assert f'"id": "{A1}"' in against.stdout and '"againstReason": "requested"' in against.stdout
    cause = _cli(world, "root-cause", "22227f9a06a0")
    assert cause.returncode == 0, cause.stderr
    assert cause.stdout.startswith("run 7f9a06a0 (COMPLETED) of team_b:report")
    plan = _cli(world, "rerun-plan", "--run", "a2000000")
    assert plan.returncode == 0, plan.stderr
    assert "bad versions: warehouse:orders#" in plan.stdout
    # a limited token's start is resolved among the runs it may read: one
    mine = _cli(world, "root-cause", "7f9a06a0", token="limited")
    assert mine.returncode == 0, mine.stderr
    assert "team_b:report" in mine.stdout


def test_an_ambiguous_part_lists_the_runs_and_exits_2(world: dict[str, Any]) -> None:
    for args in (
        ("diff", "7f9a06a0"),
        ("root-cause", "7f9a06a0"),
        ("rerun-plan", "--run", "7f9a06a0"),
        ("diff", B, "--against", "7f9a06a0"),
    ):
        done = _cli(world, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stdout == ""
        errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
        assert (
            len(errors) == 1 and "3 runs have ids starting or ending with '7f9a06a0'" in errors[0]
        )
        for run_uuid in (A1, A2, TEAM_B):
            assert run_uuid in done.stderr
        assert "shop:load" in done.stderr and "team_b:report" in done.stderr


def test_an_unknown_part_is_one_line(world: dict[str, Any]) -> None:
    done = _cli(world, "diff", "99999999")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == "Error: run: no run id starts or ends with '99999999'\n"
    bad = _cli(world, "diff", "not-a-run")
    assert bad.returncode == 2
    assert [line for line in bad.stderr.splitlines() if line.startswith("Error:")] == [
        "Error: expected a run id (or its start or end) or job:NS:NAME, got 'not-a-run'"
    ]


def test_job_names_show_the_short_name_first(world: dict[str, Any]) -> None:
    # issue 27: `…execute_insert_into_hadoop_fs_relation_command.clean_readings` read from the left
    whole = f"shop:{SPARK_JOB}"
    cause = _cli(world, "root-cause", "abcdef01")
    assert cause.returncode == 0, cause.stderr
    assert cause.stdout.startswith(f"run beef0010 (COMPLETED) of clean_readings ({whole})")
    diff = _cli(world, "diff", f"job:{whole}")
    assert diff.stdout.startswith(f"run beef0010 (COMPLETED) of clean_readings ({whole})")
    impact = _cli(world, "impact", f"dataset:{DS}:orders")
    assert impact.returncode == 0, impact.stderr
    assert f"clean_readings (job:{whole})" in impact.stdout
    assert "shop:load" in _cli(world, "diff", B).stdout  # a short name stays as it is
