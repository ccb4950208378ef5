"""The hand-written layered layout (static/js/layout.js), run in the real browser."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import pytest

pytestmark = pytest.mark.browser

RUN_LAYOUT = """async ([nodes, edges, options]) => {
  const { layout } = await import('/js/layout.js');
  const r = layout(nodes, edges, options || {});
  return { nodes: Object.fromEntries(r.nodes), edges: r.edges, width: r.width, height: r.height, layers: r.layers, direction: r.direction };
}"""


def run_layout(page: Any, nodes: list[str], edges: list[tuple[str, str]], **options: Any) -> dict:
    node_list = [{"id": n, "width": 200, "height": 50} for n in nodes]
    edge_list = [{"from": a, "to": b} for a, b in edges]
    return page.evaluate(RUN_LAYOUT, [node_list, edge_list, options])


def crossings(result: dict) -> int:
    """Edge crossings between adjacent layers, from the routed points of the layout."""
    segments: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for e in result["edges"]:
        if e["reversed"]:
            continue
        start = result["nodes"][e["from"]]["layer"]
        pts = e["points"]
        for i in range(len(pts) - 1):
            segments[start + i].append((pts[i][1], pts[i + 1][1]))
    total = 0
    for segs in segments.values():
        for i in range(len(segs)):
            for j in range(i + 1, len(segs)):
                (a1, a2), (b1, b2) = segs[i], segs[j]
                if (a1 - b1) * (a2 - b2) < 0:
                    total += 1
    return total


def overlaps(result: dict) -> int:
    by_layer: dict[int, list[dict]] = defaultdict(list)
    for p in result["nodes"].values():
        by_layer[p["layer"]].append(p)
    bad = 0
    for ps in by_layer.values():
        ps.sort(key=lambda p: p["y"])
        bad += sum(1 for a, b in zip(ps, ps[1:], strict=False) if b["y"] < a["y"] + a["height"])
    return bad


def test_longest_path_layers_with_sources_pulled_next_to_their_consumer(harness: Any) -> None:
    r = run_layout(
        harness,
        ["raw", "clean_job", "clean", "join_job", "report", "lookup"],
        [
            ("raw", "clean_job"),
            ("clean_job", "clean"),
            ("clean", "join_job"),
            ("lookup", "join_job"),
            ("join_job", "report"),
        ],
    )
    layers = {k: v["layer"] for k, v in r["nodes"].items()}
    # lookup only feeds join_job (layer 3), so it sits in layer 2, not with the sources in 0.
    assert layers == {"raw": 0, "clean_job": 1, "clean": 2, "lookup": 2, "join_job": 3, "report": 4}
    xs = sorted({round(v["x"]) for v in r["nodes"].values()})
    assert xs == [40, 330, 620, 910, 1200]  # margin 40, 200 wide nodes, 90 between layers
    assert r["layers"] == 5
    assert overlaps(r) == 0


def test_edges_leave_the_right_side_and_enter_the_left_side(harness: Any) -> None:
    r = run_layout(harness, ["a", "j", "b", "c"], [("a", "j"), ("j", "b"), ("a", "c"), ("j", "c")])
    n = r["nodes"]
    for e in r["edges"]:
        src, dst = n[e["from"]], n[e["to"]]
        assert e["points"][0] == [src["x"] + 200, src["y"] + 25]
        assert e["points"][-1] == [dst["x"], dst["y"] + 25]
        # a long edge passes through one point per layer it crosses
        assert len(e["points"]) == dst["layer"] - src["layer"] + 1
    long_edge = next(e for e in r["edges"] if (e["from"], e["to"]) == ("a", "c"))
    assert n["c"]["layer"] == 2 and len(long_edge["points"]) == 3


def test_top_to_bottom_is_the_left_to_right_layout_transposed(harness: Any) -> None:
    """direction 'TB': layers go down the page, edges leave the bottom and enter the top."""
    nodes, edges = ["a", "j", "b", "c"], [("a", "j"), ("j", "b"), ("a", "c"), ("j", "c")]
    lr = run_layout(harness, nodes, edges)
    tb = run_layout(harness, nodes, edges, direction="TB")
    assert (lr["direction"], tb["direction"]) == ("LR", "TB")
    n = tb["nodes"]
    for node in n.values():
        assert (node["width"], node["height"]) == (200, 50)
    ys = [n[x]["y"] for x in ("a", "j", "b")]
    assert ys == sorted(ys) and len(set(ys)) == 3
    assert n["b"]["y"] == n["c"]["y"] and n["b"]["x"] != n["c"]["x"]
    for e in tb["edges"]:
        src, dst = n[e["from"]], n[e["to"]]
        assert e["points"][0] == [src["x"] + 100, src["y"] + 50]
        assert e["points"][-1] == [dst["x"] + 100, dst["y"]]
    # Layers take node heights, not widths: the same graph is far shorter than it is wide in LR.
    assert tb["height"] < lr["width"] / 2
    assert (
        overlaps({"nodes": {k: {**v, "y": v["x"], "height": v["width"]} for k, v in n.items()}})
        == 0
    )


def test_cycles_are_laid_out_with_the_back_edge_reversed(harness: Any) -> None:
    # A job that reads and writes the same table: table -> job -> table, plus a downstream.
    r = run_layout(harness, ["t", "job", "out"], [("t", "job"), ("job", "t"), ("job", "out")])
    layers = {k: v["layer"] for k, v in r["nodes"].items()}
    assert layers == {"t": 0, "job": 1, "out": 2}
    by_pair = {(e["from"], e["to"]): e for e in r["edges"]}
    assert set(by_pair) == {("t", "job"), ("job", "t"), ("job", "out")}
    assert by_pair[("job", "t")]["reversed"] is True
    assert by_pair[("t", "job")]["reversed"] is False
    # the back edge runs right to left: from job's left side to t's right side
    assert by_pair[("job", "t")]["points"][0][0] == r["nodes"]["job"]["x"]
    assert by_pair[("job", "t")]["points"][-1][0] == r["nodes"]["t"]["x"] + 200


def test_unavoidable_crossing_is_the_only_one(harness: Any) -> None:
    # K(2,2) needs exactly one crossing; a fan-out/fan-in beside it needs none.
    r = run_layout(
        harness,
        ["a", "b", "c", "d", "s", "t1", "t2", "t3"],
        [("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("s", "t1"), ("s", "t2"), ("s", "t3")],
    )
    assert crossings(r) == 1
    assert overlaps(r) == 0


def _random_lineage(n: int, seed: int) -> tuple[list[str], list[tuple[str, str]]]:
    rnd = random.Random(seed)
    nodes = [f"n{i}" for i in range(n)]
    edges = []
    for i in range(1, n):
        for _ in range(rnd.randint(1, 2)):
            j = rnd.randrange(max(0, i - 40), i)
            edges.append((nodes[j], nodes[i]))
    return nodes, edges


def test_ordering_sweeps_remove_crossings_on_a_big_graph(harness: Any) -> None:
    nodes, edges = _random_lineage(300, seed=7)
    unordered = crossings(run_layout(harness, nodes, edges, sweeps=0))
    ordered = crossings(run_layout(harness, nodes, edges))
    assert ordered < unordered / 2, (ordered, unordered)


def test_thousand_nodes_all_placed_without_overlap(harness: Any) -> None:
    nodes, edges = _random_lineage(1000, seed=3)
    r = run_layout(harness, nodes, edges)
    assert len(r["nodes"]) == 1000
    assert len(r["edges"]) == len(set(edges))
    assert overlaps(r) == 0
    for e in r["edges"]:
        pts = e["points"]
        assert all(b[0] > a[0] for a, b in zip(pts, pts[1:], strict=False)), e
    assert r["width"] >= max(p["x"] + p["width"] for p in r["nodes"].values())
    assert r["height"] >= max(p["y"] + p["height"] for p in r["nodes"].values())
