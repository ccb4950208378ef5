"""plumbline's server ingests the OpenLineage Spark agent's own events unchanged (issue 26 §3).

The events come from the real agent (io.openlineage:openlineage-spark, scripts/spark-jars.toml's pin
for the running Spark line, registered by spark.extraListeners, file transport) in a real local
Spark session: bench/agent_job.py runs three scenarios of tests/spark/plan_scenarios.py in its own
process (the agent needs its own session). Every line the agent wrote, application events included,
is posted byte for byte to a live server on each backend; all are normalized and the lineage they
carry reads back through the API.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ("join", "aggregate", "ctas")


@pytest.fixture(scope="module")
def agent_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The agent's events of SCENARIOS: the job's result and the raw lines of its file."""
    work = tmp_path_factory.mktemp("agent")
    result = work / "result.json"
    command = [sys.executable, str(ROOT / "bench" / "agent_job.py"), str(work), str(result)]
    command += ["--pairs", "0"] + [arg for name in SCENARIOS for arg in ("--scenario", name)]
    subprocess.run(command, check=True, cwd=ROOT, capture_output=True, timeout=600)
    found = json.loads(result.read_text())
    found["lines"] = (work / "agent.jsonl").read_bytes().splitlines()
    yield found


def test_the_agents_events_are_ingested_unchanged(agent_run: dict[str, Any], live_server: Any):
    lines = agent_run["lines"]
    work = agent_run["work"]
    assert len(lines) >= 3 * len(SCENARIOS)  # START ... COMPLETE of each scenario at least
    producers = {json.loads(line)["producer"] for line in lines}
    assert any("OpenLineage/tree/1." in p and "/integration/spark" in p for p in producers)
    with httpx.Client(base_url=f"{live_server.url}/api/v1", timeout=60) as client:
        for line in lines:  # one request per event, the bytes the agent wrote
            answer = client.post(
                "/lineage", content=line, headers={"Content-Type": "application/json"}
            )
            assert answer.status_code == 201, answer.text
        live_server.settle()
        engine = sa.create_engine(live_server.db_url)
        with engine.connect() as connection:
            stored = connection.execute(sa.text("SELECT count(*) FROM lineage_events")).scalar()
            failed = connection.execute(
                sa.text("SELECT count(*) FROM pending_events WHERE failed_at IS NOT NULL")
            ).scalar()
        engine.dispose()
        assert (stored, failed) == (len(set(lines)), 0)

        def node(name: str) -> str:
            return f"dataset:file:{work}/{name}"

        def upstream(name: str) -> set[str]:
            """The datasets read by the jobs that wrote ``name``."""
            graph = client.get("/lineage", params={"nodeId": node(name), "depth": 2}).json()
            nodes = {n["id"]: n for n in graph["graph"]}
            jobs = {e["origin"] for e in nodes[node(name)]["inEdges"]}
            return {e["origin"] for job in jobs for e in nodes[job]["inEdges"]}

        assert upstream("out/join") == {node("orders"), node("customers")}
        assert upstream("out/aggregate") == {node("people")}

        def columns(name: str) -> dict[str, set[str]]:
            graph = client.get("/column-lineage", params={"nodeId": node(name), "depth": 1}).json()
            found: dict[str, set[str]] = {}
            for item in graph["graph"]:
                data = item["data"]
                if data["dataset"] == f"{work}/{name}":
                    found[data["field"]] = {
                        f"{i['dataset'].removeprefix(work + '/')}.{i['field']}"
                        for i in data["inputFields"]
                    }
            return found

        join = columns("out/join")
        assert {"orders.order_id"} <= join["order_id"] and {"customers.name"} <= join["name"]
        assert {"orders.customer_id", "customers.customer_id"} <= join["name"]  # the join key
        aggregate = columns("out/aggregate")
        assert {"people.amount", "people.name"} <= aggregate["total"]

        # the CTAS table: the agent names it by its location (and the table in a symlink)
        table = f"{work}/warehouse/ctas"
        document = client.get(
            f"/namespaces/file/datasets/{urllib.parse.quote(table, safe='')}"
        ).json()
        assert {f["name"] for f in document["fields"]} == {"order_id", "amount"}
