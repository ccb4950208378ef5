"""The graph walks on both backends: depth limits, cycles, the node cap, hidden nodes, column and
run lineage. Every test runs on SQLite and PostgreSQL and asserts the same exact answer."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from builder import StoreBuilder

from plumbline.store.read.column_lineage import get_column_lineage
from plumbline.store.read.errors import InvalidArgumentError, NotFoundError
from plumbline.store.read.lineage import get_lineage
from plumbline.store.read.run_lineage import get_upstream_runs


def ids(graph: dict[str, Any]) -> list[str]:
    return [node["id"] for node in graph["graph"]]


def node(graph: dict[str, Any], node_id: str) -> dict[str, Any]:
    return next(n for n in graph["graph"] if n["id"] == node_id)


def ends(edges: list[dict[str, Any]]) -> list[dict[str, str]]:
    """A graph's edges by their ends alone (their confidence is tested apart)."""
    return [{"origin": e["origin"], "destination": e["destination"]} for e in edges]


@pytest.fixture
def chain(engine: sa.Engine) -> sa.Engine:
    """raw -> j1 -> a -> j2 -> b -> j3 -> c -> j4 -> d, plus a cycle x -> jx -> y -> jy -> x."""
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("ns", "j1", ("raw",), ("a",))
        b.job("ns", "j2", ("a",), ("b",))
        b.job("ns", "j3", ("b",), ("c",))
        b.job("ns", "j4", ("c",), ("d",))
        b.job("ns", "jx", ("x",), ("y",))
        b.job("ns", "jy", ("y",), ("x",))
        b.dataset("ns", "orphan")
    return engine


def lineage(engine: sa.Engine, node_id: str, depth: int, cap: int = 100) -> dict[str, Any]:
    with engine.connect() as conn:
        return get_lineage(conn, node_id, depth, cap)


def test_job_at_depth_zero_is_the_job_with_its_datasets(chain: sa.Engine) -> None:
    graph = lineage(chain, "job:ns:j2", 0)
    assert ids(graph) == ["dataset:ns:a", "dataset:ns:b", "job:ns:j2"]
    assert graph["truncated"] is False
    job = node(graph, "job:ns:j2")
    assert job["type"] == "JOB"
    assert ends(job["inEdges"]) == [{"origin": "dataset:ns:a", "destination": "job:ns:j2"}]
    assert ends(job["outEdges"]) == [{"origin": "job:ns:j2", "destination": "dataset:ns:b"}]
    assert node(graph, "dataset:ns:a")["inEdges"] == []
    assert node(graph, "dataset:ns:a")["outEdges"] == job["inEdges"]
    assert node(graph, "dataset:ns:b")["inEdges"] == job["outEdges"]
    assert job["data"]["inputs"] == [{"namespace": "ns", "name": "a"}]
    assert job["data"]["outputs"] == [{"namespace": "ns", "name": "b"}]
    assert node(graph, "dataset:ns:b")["data"]["id"] == {"namespace": "ns", "name": "b"}


def test_depth_counts_job_hops_both_ways(chain: sa.Engine) -> None:
    assert ids(lineage(chain, "job:ns:j2", 1)) == [
        "dataset:ns:a",
        "dataset:ns:b",
        "dataset:ns:c",
        "dataset:ns:raw",
        "job:ns:j1",
        "job:ns:j2",
        "job:ns:j3",
    ]
    assert ids(lineage(chain, "job:ns:j1", 20)) == [
        "dataset:ns:a",
        "dataset:ns:b",
        "dataset:ns:c",
        "dataset:ns:d",
        "dataset:ns:raw",
        "job:ns:j1",
        "job:ns:j2",
        "job:ns:j3",
        "job:ns:j4",
    ]


def test_dataset_starts_from_its_writers_and_readers(chain: sa.Engine) -> None:
    graph = lineage(chain, "dataset:ns:b", 0)
    assert ids(graph) == ["dataset:ns:a", "dataset:ns:b", "dataset:ns:c", "job:ns:j2", "job:ns:j3"]
    assert ends(node(graph, "dataset:ns:b")["inEdges"]) == [
        {"origin": "job:ns:j2", "destination": "dataset:ns:b"}
    ]
    assert ends(node(graph, "dataset:ns:b")["outEdges"]) == [
        {"origin": "dataset:ns:b", "destination": "job:ns:j3"}
    ]


@pytest.fixture
def siblings(engine: sa.Engine) -> sa.Engine:
    """Marquez's connected graph: a reads s -> x; b also reads s (a sibling) -> y; c reads x -> z;
    e writes y too (a co-writer of b's output, two hops from a); f reads z -> far."""
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("ns", "a", ("s",), ("x",))
        b.job("ns", "b", ("s",), ("y",))
        b.job("ns", "c", ("x",), ("z",))
        b.job("ns", "e", ("w",), ("y",))
        b.job("ns", "f", ("z",), ("far",))
    return engine


def test_the_graph_is_connected_within_the_depth_siblings_included(siblings: sa.Engine) -> None:
    # what Marquez's LineageDao.getLineage walks from job a: jobs sharing any dataset, by depth
    assert ids(lineage(siblings, "job:ns:a", 0)) == ["dataset:ns:s", "dataset:ns:x", "job:ns:a"]
    assert ids(lineage(siblings, "job:ns:a", 1)) == [
        "dataset:ns:s",
        "dataset:ns:x",
        "dataset:ns:y",
        "dataset:ns:z",
        "job:ns:a",
        "job:ns:b",  # a sibling: it reads s too
        "job:ns:c",
    ]
    graph = lineage(siblings, "job:ns:a", 2)
    assert ids(graph) == [
        "dataset:ns:far",
        "dataset:ns:s",
        "dataset:ns:w",
        "dataset:ns:x",
        "dataset:ns:y",
        "dataset:ns:z",
        "job:ns:a",
        "job:ns:b",
        "job:ns:c",
        "job:ns:e",  # writes y, which sibling b writes
        "job:ns:f",
    ]
    assert ends(node(graph, "dataset:ns:y")["inEdges"]) == [
        {"origin": "job:ns:b", "destination": "dataset:ns:y"},
        {"origin": "job:ns:e", "destination": "dataset:ns:y"},
    ]
    # around a dataset: its readers and writers at depth 0, then the jobs sharing their datasets
    assert [n for n in ids(lineage(siblings, "dataset:ns:x", 1)) if n.startswith("job:")] == [
        "job:ns:a",
        "job:ns:b",
        "job:ns:c",
        "job:ns:f",
    ]


def test_cycle_terminates_with_each_node_once(chain: sa.Engine) -> None:
    graph = lineage(chain, "job:ns:jx", 50)
    assert ids(graph) == ["dataset:ns:x", "dataset:ns:y", "job:ns:jx", "job:ns:jy"]
    assert graph["truncated"] is False
    assert ends(node(graph, "dataset:ns:x")["inEdges"]) == [
        {"origin": "job:ns:jy", "destination": "dataset:ns:x"}
    ]


def test_dataset_without_jobs_is_a_lone_node(chain: sa.Engine) -> None:
    graph = lineage(chain, "dataset:ns:orphan", 5)
    assert ids(graph) == ["dataset:ns:orphan"]
    assert node(graph, "dataset:ns:orphan")["inEdges"] == []


def test_unknown_and_malformed_node_ids(chain: sa.Engine) -> None:
    with pytest.raises(NotFoundError):
        lineage(chain, "dataset:ns:nope", 1)
    with pytest.raises(NotFoundError):
        lineage(chain, "job:other:j1", 1)
    with pytest.raises(InvalidArgumentError):
        lineage(chain, "table:ns:a", 1)
    with pytest.raises(InvalidArgumentError):
        lineage(chain, "dataset:ns", 1)


def test_node_cap_keeps_nearest_and_says_it_cut(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        for i in range(10):
            b.job("fan", f"reader_{i}", ("src",), (f"out_{i}",))
            b.job("fan", f"next_{i}", (f"out_{i}",), (f"far_{i}",))
    # start dataset + 10 readers with their outputs = 21 nodes at depth 0
    full = lineage(engine, "dataset:fan:src", 0, cap=21)
    assert len(full["graph"]) == 21 and full["truncated"] is False
    cut = lineage(engine, "dataset:fan:src", 0, cap=20)
    assert cut["truncated"] is True
    assert len(cut["graph"]) == 19  # 1 + 9 readers with their outputs; a 10th would make 21
    # with depth 1 the cap keeps every depth-0 job before any depth-1 job
    near = lineage(engine, "dataset:fan:src", 1, cap=21)
    assert near["truncated"] is True
    assert not [n for n in ids(near) if n.startswith("job:fan:next_")]


def test_hidden_dataset_is_not_crossed(chain: sa.Engine) -> None:
    with chain.begin() as conn:
        StoreBuilder(conn)  # same rows; hide b by name
        conn.execute(sa.text("UPDATE datasets SET is_hidden = :t WHERE name = 'b'"), {"t": True})
    assert ids(lineage(chain, "job:ns:j2", 5)) == [
        "dataset:ns:a",
        "dataset:ns:raw",
        "job:ns:j1",
        "job:ns:j2",
    ]


def test_namespace_with_colons_is_resolved(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("postgres://db:5432", "load", ("public.src",), ("public.dst",))
        b.namespace("postgres")  # a shorter namespace that also fits the text
    graph = lineage(engine, "dataset:postgres://db:5432:public.dst", 0)
    assert ids(graph) == [
        "dataset:postgres://db:5432:public.dst",
        "dataset:postgres://db:5432:public.src",
        "job:postgres://db:5432:load",
    ]


@pytest.fixture
def columns(engine: sa.Engine) -> sa.Engine:
    """t1.{id,name} -> t2.{id,name_upper} -> t3.{id}; t1.id filters all of t2."""
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("ns", "make_t2", ("t1",), ("t2",))
        b.job("ns", "make_t3", ("t2",), ("t3",))
        b.dataset("ns", "t1", ("id", "name"))
        b.dataset("ns", "t2", ("id", "name_upper"))
        b.dataset("ns", "t3", ("id",))
        b.column_edge("ns", ("t1", "id"), ("t2", "id"))
        b.column_edge("ns", ("t1", "name"), ("t2", "name_upper"), subtype="TRANSFORMATION")
        b.column_edge("ns", ("t2", "id"), ("t3", "id"))
        b.dataset_dependency("ns", ("t1", "id"), "t2", subtype="FILTER")
    return engine


def column_lineage(
    engine: sa.Engine, node_id: str, depth: int, downstream: bool, cap: int = 100
) -> dict[str, Any]:
    with engine.connect() as conn:
        return get_column_lineage(conn, node_id, depth, downstream, cap)


def test_column_lineage_upstream_of_a_field(columns: sa.Engine) -> None:
    graph = column_lineage(columns, "datasetField:ns:t2:name_upper", 5, False)
    assert ids(graph) == [
        "datasetField:ns:t1:id",
        "datasetField:ns:t1:name",
        "datasetField:ns:t2:name_upper",
    ]
    target = node(graph, "datasetField:ns:t2:name_upper")
    assert target["type"] == "DATASET_FIELD"
    inputs = target["data"]["inputFields"]
    assert [(i["dataset"], i["field"], i["transformations"]) for i in inputs] == [
        (
            "t1",
            "id",
            [{"type": "INDIRECT", "subtype": "FILTER", "description": None, "masking": False}],
        ),
        (
            "t1",
            "name",
            [
                {
                    "type": "DIRECT",
                    "subtype": "TRANSFORMATION",
                    "description": None,
                    "masking": False,
                }
            ],
        ),
    ]
    # the field's own type sums up its inputs (DIRECT: one input is), not its first input's
    assert (target["data"]["transformationType"], target["data"]["inputFields"][0]["field"]) == (
        "DIRECT",
        "id",
    )
    assert node(graph, "datasetField:ns:t1:id")["data"]["transformationType"] is None
    assert target["inEdges"] == [
        {"origin": "datasetField:ns:t1:id", "destination": "datasetField:ns:t2:name_upper"},
        {"origin": "datasetField:ns:t1:name", "destination": "datasetField:ns:t2:name_upper"},
    ]
    assert node(graph, "datasetField:ns:t1:name")["outEdges"] == [
        {"origin": "datasetField:ns:t1:name", "destination": "datasetField:ns:t2:name_upper"}
    ]


def test_column_lineage_downstream_and_depth(columns: sa.Engine) -> None:
    one = column_lineage(columns, "datasetField:ns:t1:id", 1, True)
    assert ids(one) == [
        "datasetField:ns:t1:id",
        "datasetField:ns:t2:id",
        "datasetField:ns:t2:name_upper",
    ]
    two = column_lineage(columns, "datasetField:ns:t1:id", 2, True)
    assert ids(two) == ids(one)[:2] + ["datasetField:ns:t2:name_upper", "datasetField:ns:t3:id"]
    upstream_only = column_lineage(columns, "datasetField:ns:t1:id", 2, False)
    assert ids(upstream_only) == ["datasetField:ns:t1:id"]


def test_column_lineage_of_a_dataset_and_a_job(columns: sa.Engine) -> None:
    graph = column_lineage(columns, "dataset:ns:t3", 1, False)
    assert ids(graph) == ["datasetField:ns:t2:id", "datasetField:ns:t3:id"]
    by_job = column_lineage(columns, "job:ns:make_t3", 1, False)
    assert ids(by_job) == ids(graph)
    capped = column_lineage(columns, "dataset:ns:t3", 5, False, cap=2)
    assert capped["truncated"] is True and len(capped["graph"]) == 2


def test_upstream_runs_follow_the_versions_read(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("ns", "j1", ("raw",), ("a",))
        b.job("ns", "j2", ("a",), ("b",))
        b.job("ns", "j3", ("b",), ("c",))
        r1 = b.run("ns", "j1", reads=("raw",), writes=("a",), minutes=0)
        r2 = b.run("ns", "j2", reads=("a",), writes=("b",), minutes=10)
        r3 = b.run("ns", "j3", reads=("b",), writes=("c",), minutes=20, state="FAIL")
    with engine.connect() as conn:
        result = get_upstream_runs(conn, r3, 5, 100)
        shallow = get_upstream_runs(conn, r3, 1, 100)
    assert [r["run"]["id"] for r in result["runs"]] == [r3, r2, r1]
    assert result["runs"][0]["run"]["status"] == "FAILED"
    assert result["runs"][0]["job"]["name"] == "j3"
    assert [(i["name"], i["producedByRunId"]) for i in result["runs"][0]["inputs"]] == [("b", r2)]
    assert result["runs"][2]["inputs"] == [
        {"namespace": "ns", "name": "raw", "version": None, "producedByRunId": None}
    ]
    assert [r["run"]["id"] for r in shallow["runs"]] == [r3, r2]


def test_field_summary_of_several_inputs() -> None:
    from plumbline.store.read.transformations import field_summary

    assert field_summary([("INDIRECT", "filter"), ("DIRECT", "x * 2")]) == ("DIRECT", "x * 2")
    assert field_summary([("DIRECT", "a"), ("DIRECT", "b")]) == ("DIRECT", None)
    assert field_summary([("INDIRECT", None), ("INDIRECT", "join key")]) == (
        "INDIRECT",
        "join key",
    )
    assert field_summary([]) == (None, None)
