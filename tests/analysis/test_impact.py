"""Impact and upstream walks on crafted graphs, both backends: chains, diamonds, cycles, fan-out,
INDIRECT-only column paths, filters, the node cap and namespace-limited callers."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from builder import T0, StoreBuilder

from plumbline.analysis.csvout import impact_csv
from plumbline.analysis.impact import impact
from plumbline.analysis.model import ImpactResult
from plumbline.store import schema as s
from plumbline.store.read.errors import InvalidArgumentError, NotFoundError


@pytest.fixture
def graph(engine: sa.Engine) -> sa.Engine:
    """A diamond raw -> j1 -> a -> (j2 -> b, j3 -> c) -> j4 -> d, a cycle x -> jx -> y -> jy -> x,
    a fan-out f -> k0..k4 -> o0..o4, and column lineage raw.x -> a.x -(FILTER)-> b.y -> d.z,
    a.x -> c.x -> d.z (DIRECT), a.k shaping all of b (INDIRECT JOIN)."""
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("ns", "j1", ("raw",), ("a",))
        b.job("ns", "j2", ("a",), ("b",))
        b.job("ns", "j3", ("a",), ("c",))
        b.job("ns", "j4", ("b", "c"), ("d",))
        b.job("ns", "jx", ("x",), ("y",))
        b.job("ns", "jy", ("y",), ("x",))
        for i in range(5):
            b.job("ns", f"k{i}", ("f",), (f"o{i}",))
        b.column_edge("ns", ("raw", "x"), ("a", "x"))
        b.column_edge("ns", ("a", "x"), ("b", "y"), "INDIRECT", "FILTER")
        b.column_edge("ns", ("b", "y"), ("d", "z"))
        b.column_edge("ns", ("a", "x"), ("c", "x"), "DIRECT", "TRANSFORMATION")
        b.column_edge("ns", ("c", "x"), ("d", "z"), "DIRECT", "AGGREGATION")
        b.column_edge("ns", ("raw", "w"), ("a", "w"))
        b.column_edge("ns", ("a", "w"), ("b", "w"), "INDIRECT", "CONDITIONAL")
        b.field("ns", "b", "y")
        b.dataset_dependency("ns", ("a", "k"), "b", "JOIN")
        b.run("ns", "j1", reads=("raw",), writes=("a",))
        b.run("ns", "j2", reads=("a",), writes=("b",), state="FAIL", minutes=5)
    return engine


def link(
    conn: sa.Connection, b: StoreBuilder, job: tuple[str, str], ds: tuple[str, str], direction: str
) -> None:
    """An edge between a job and a dataset of any namespace."""
    conn.execute(
        sa.insert(s.job_dataset_edges).values(
            job_id=b.jobs[job],
            dataset_id=b.dataset(*ds),
            direction=direction,
            first_seen=T0,
            last_seen=T0,
        )
    )


def walk(engine: sa.Engine, node_id: str, **kw: object) -> ImpactResult:
    with engine.connect() as conn:
        return impact(conn, node_id, **kw)  # type: ignore[arg-type]


def distances(result: ImpactResult) -> dict[str, int]:
    return {n.id: n.distance for n in result.nodes}


def test_downstream_of_a_dataset_counts_edges_and_keeps_one_shortest_path(
    graph: sa.Engine,
) -> None:
    result = walk(graph, "dataset:ns:raw")
    assert distances(result) == {
        "dataset:ns:raw": 0,
        "job:ns:j1": 1,
        "dataset:ns:a": 2,
        "job:ns:j2": 3,
        "job:ns:j3": 3,
        "dataset:ns:b": 4,
        "dataset:ns:c": 4,
        "job:ns:j4": 5,
        "dataset:ns:d": 6,
    }
    d = next(n for n in result.nodes if n.id == "dataset:ns:d")
    # the diamond's two equal paths: the one through the smaller node id is kept
    assert d.path == (
        "dataset:ns:raw",
        "job:ns:j1",
        "dataset:ns:a",
        "job:ns:j2",
        "dataset:ns:b",
        "job:ns:j4",
        "dataset:ns:d",
    )
    assert [level["distance"] for level in result.levels()] == [0, 1, 2, 3, 4, 5, 6]
    assert ("dataset:ns:c", "job:ns:j4") in {(e.origin, e.destination) for e in result.edges}
    assert result.truncated is False and result.hidden_nodes == 0
    assert result.mode == "table" and result.depth == 50


def test_jobs_carry_their_last_run_and_datasets_their_current_version(graph: sa.Engine) -> None:
    result = walk(graph, "dataset:ns:raw").to_json()
    by_id = {n["id"]: n for n in result["nodes"]}
    assert by_id["job:ns:j1"]["lastRun"]["state"] == "COMPLETED"
    assert by_id["job:ns:j2"]["lastRun"]["state"] == "FAILED"
    assert by_id["job:ns:j2"]["lastRun"]["endedAt"] == "2026-01-02T03:10:35Z"
    assert by_id["job:ns:j3"]["lastRun"] is None
    a = by_id["dataset:ns:a"]["lastVersion"]
    assert a["runId"] == by_id["job:ns:j1"]["lastRun"]["id"]
    assert a["createdAt"] == "2026-01-02T03:05:35Z"
    assert by_id["dataset:ns:d"]["lastVersion"] is None


def test_upstream_of_a_job(graph: sa.Engine) -> None:
    result = walk(graph, "job:ns:j4", direction="upstream")
    assert distances(result) == {
        "job:ns:j4": 0,
        "dataset:ns:b": 1,
        "dataset:ns:c": 1,
        "job:ns:j2": 2,
        "job:ns:j3": 2,
        "dataset:ns:a": 3,
        "job:ns:j1": 4,
        "dataset:ns:raw": 5,
    }
    # edges keep the direction data flows
    assert ("dataset:ns:a", "job:ns:j2") in {(e.origin, e.destination) for e in result.edges}


def test_depth_limits_the_walk(graph: sa.Engine) -> None:
    assert set(distances(walk(graph, "dataset:ns:raw", depth=0))) == {"dataset:ns:raw"}
    assert set(distances(walk(graph, "dataset:ns:raw", depth=1))) == {
        "dataset:ns:raw",
        "job:ns:j1",
    }
    assert max(distances(walk(graph, "dataset:ns:raw", depth=3)).values()) == 3
    assert max(distances(walk(graph, "job:ns:j1", depth=2)).values()) == 2


def test_cycles_end(graph: sa.Engine) -> None:
    assert distances(walk(graph, "dataset:ns:x")) == {
        "dataset:ns:x": 0,
        "job:ns:jx": 1,
        "dataset:ns:y": 2,
        "job:ns:jy": 3,
    }


def test_fan_out_and_the_node_cap(graph: sa.Engine) -> None:
    full = walk(graph, "dataset:ns:f")
    assert len(full.nodes) == 11 and not full.truncated
    cut = walk(graph, "dataset:ns:f", max_nodes=4)
    assert cut.truncated
    assert [n.id for n in cut.nodes] == [
        "dataset:ns:f",
        "job:ns:k0",
        "job:ns:k1",
        "job:ns:k2",
        "job:ns:k3",
    ]


def test_type_and_namespace_filters_list_only_matching_nodes(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("ns", "j1", ("raw",), ("a",))
        b.job("other", "j2", (), ("b",))
        link(conn, b, ("other", "j2"), ("ns", "a"), "input")
    jobs = walk(engine, "dataset:ns:raw", types=["JOB"])
    assert [n.id for n in jobs.nodes] == ["dataset:ns:raw", "job:ns:j1", "job:other:j2"]
    other = walk(engine, "dataset:ns:raw", namespaces=["other"])
    assert [n.id for n in other.nodes] == ["dataset:ns:raw", "job:other:j2", "dataset:other:b"]
    assert other.edges == () or all(e.origin != "job:ns:j1" for e in other.edges)


def test_since_walks_only_edges_seen_since(graph: sa.Engine) -> None:
    with graph.begin() as conn:
        conn.execute(sa.update(s.job_dataset_edges).values(last_seen=T0 + timedelta(days=2)))
        j3 = conn.execute(sa.select(s.jobs.c.id).where(s.jobs.c.name == "j3")).scalar_one()
        conn.execute(
            sa.update(s.job_dataset_edges)
            .where(s.job_dataset_edges.c.job_id == j3)
            .values(last_seen=T0)
        )
    recent = distances(walk(graph, "dataset:ns:a", since=T0 + timedelta(days=1)))
    assert "job:ns:j3" not in recent and "dataset:ns:c" not in recent
    assert recent["dataset:ns:d"] == 4  # through b
    assert "job:ns:j3" in distances(walk(graph, "dataset:ns:a", since=T0))


def test_column_mode_marks_fields_reached_only_through_indirect_edges(graph: sa.Engine) -> None:
    result = walk(graph, "datasetField:ns:raw:x")
    assert result.mode == "column"
    nodes = {n.id: n for n in result.nodes}
    assert distances(result) == {
        "datasetField:ns:raw:x": 0,
        "datasetField:ns:a:x": 1,
        "datasetField:ns:b:y": 2,  # a.x shapes none of the rest of b: only a.k does
        "datasetField:ns:c:x": 2,
        "datasetField:ns:d:z": 3,
    }
    assert nodes["datasetField:ns:b:y"].indirect_only is True
    assert nodes["datasetField:ns:c:x"].indirect_only is False
    # d.z is reached by b.y (INDIRECT on the way) and by c.x (all DIRECT): not indirect-only
    assert nodes["datasetField:ns:d:z"].indirect_only is False
    assert nodes["datasetField:ns:d:z"].path[1] == "datasetField:ns:a:x"
    hops = nodes["datasetField:ns:b:y"].path_transformations
    assert hops is not None
    assert [[(t.type, t.subtype) for t in hop] for hop in hops] == [
        [("DIRECT", "IDENTITY")],
        [("INDIRECT", "FILTER")],
    ]
    doc = result.to_json()
    edge = next(e for e in doc["edges"] if e["destination"] == "datasetField:ns:b:y")
    assert edge["transformations"] == [{"type": "INDIRECT", "subtype": "FILTER"}]


def test_column_mode_indirect_only_path_through_a_whole_dataset_dependency(
    graph: sa.Engine,
) -> None:
    result = walk(graph, "datasetField:ns:a:k")
    reached = {n.id: n for n in result.nodes}
    # a.k shapes every field of b (a join key): each reached only through INDIRECT edges
    for field in ("datasetField:ns:b:y", "datasetField:ns:b:w"):
        assert reached[field].indirect_only is True
        assert reached[field].distance == 1
    assert reached["datasetField:ns:d:z"].indirect_only is True


def test_column_mode_upstream(graph: sa.Engine) -> None:
    result = walk(graph, "datasetField:ns:d:z", direction="upstream")
    assert distances(result) == {
        "datasetField:ns:d:z": 0,
        "datasetField:ns:b:y": 1,
        "datasetField:ns:c:x": 1,
        "datasetField:ns:a:k": 2,
        "datasetField:ns:a:x": 2,
        "datasetField:ns:raw:x": 3,
    }
    assert {n.id for n in result.nodes if n.indirect_only} == {
        "datasetField:ns:a:k",
    }


def test_namespace_limited_callers_see_only_what_they_may_read(engine: sa.Engine) -> None:
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("team", "load", ("src",), ("a",))
        b.job("team", "report", ("b",), ("c",))
        b.job("secret", "mid", (), ("hidden_out",))
        link(conn, b, ("secret", "mid"), ("team", "a"), "input")
        link(conn, b, ("secret", "mid"), ("team", "b"), "output")
    result = walk(engine, "dataset:team:src", visible_to=frozenset({"team"}))
    listed = [n.id for n in result.nodes]
    assert "job:secret:mid" not in listed
    assert "dataset:secret:hidden_out" not in listed
    assert "job:team:report" in listed  # the walk went through the secret job
    assert result.hidden_nodes == 2  # mid and its own output
    report = next(n for n in result.nodes if n.id == "job:team:report")
    assert report.path == (
        "dataset:team:src",
        "job:team:load",
        "dataset:team:a",
        None,
        "dataset:team:b",
        "job:team:report",
    )
    assert all("secret" not in e.origin + e.destination for e in result.edges)
    with pytest.raises(NotFoundError):
        walk(engine, "job:secret:mid", visible_to=frozenset({"team"}))


def test_bad_input(graph: sa.Engine) -> None:
    with pytest.raises(InvalidArgumentError, match="cap of 50"):
        walk(graph, "dataset:ns:raw", depth=51)
    with pytest.raises(InvalidArgumentError):
        walk(graph, "nonsense")
    with pytest.raises(NotFoundError, match="'nope'"):
        walk(graph, "dataset:ns:nope")
    with pytest.raises(NotFoundError, match="'q'"):
        walk(graph, "datasetField:ns:raw:q")
    with pytest.raises(InvalidArgumentError):
        walk(graph, "dataset:ns:raw", direction="sideways")


def test_csv_has_a_header_and_one_row_per_node(graph: sa.Engine) -> None:
    text = impact_csv(walk(graph, "dataset:ns:raw", depth=2))
    lines = text.splitlines()
    assert lines[0].startswith("distance,type,id,namespace,name,field,lastRunId,lastRunState")
    assert lines[1].startswith("0,DATASET,dataset:ns:raw,ns,raw,")
    assert lines[2].startswith("1,JOB,job:ns:j1,ns,j1,,")
    assert ",COMPLETED," in lines[2]
    assert lines[3].endswith("dataset:ns:raw > job:ns:j1 > dataset:ns:a")
    assert len(lines) == 4
