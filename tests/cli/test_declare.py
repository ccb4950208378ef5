"""`plumbline declare FILE` over real HTTP, on both stores: an expectations file's declared edges
become lineage of edge source "declared", completeness "inferred" (issue 31 §2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from click.testing import CliRunner

from plumbline.cli import main

FILE = """
namespace = "shop"

[[declare]]
from = { dataset = "crm_export", column = "id" }
to = { dataset = "customers", column = "customer_id" }
job = "nightly_copy"
transformation = "DIRECT/IDENTITY"
"""


def test_declared_edges_reach_the_graph(live_server: Any, tmp_path: Path) -> None:
    path = tmp_path / "expect.toml"
    path.write_text(FILE)
    env = {"PLUMBLINE_URL": live_server.url}
    done = CliRunner().invoke(main, ["declare", str(path)], env=env)
    assert done.exit_code == 0, done.output
    assert done.output.strip() == "declared 1 edge(s) in 1 job(s)"
    live_server.settle()
    graph = httpx.get(
        f"{live_server.url}/api/v1/lineage", params={"nodeId": "dataset:shop:customers", "depth": 1}
    ).json()
    edges = {(e["origin"], e["destination"]): e for n in graph["graph"] for e in n["inEdges"]}
    edge = edges[("job:shop:nightly_copy", "dataset:shop:customers")]
    assert (edge["edgeSource"], edge["completeness"]) == ("declared", "inferred")
    columns = httpx.get(
        f"{live_server.url}/api/v1/column-lineage",
        params={"nodeId": "datasetField:shop:customers:customer_id", "depth": 1},
    ).json()
    node = next(n for n in columns["graph"] if n["id"].endswith(":customer_id"))
    (field,) = node["data"]["inputFields"]
    assert (field["dataset"], field["field"], field["edgeSource"]) == (
        "crm_export",
        "id",
        "declared",
    )
    bad = tmp_path / "bad.toml"
    bad.write_text("[[declare]]\nfrom = 3\n")
    refused = CliRunner().invoke(main, ["declare", str(bad)], env=env)
    assert refused.exit_code != 0 and "bad.toml" in refused.output
