"""Version lineage and root cause on crafted runs, both backends: a diamond of versions, Iceberg
style snapshot ids named by `version` facets, a late event, a failed and a changed upstream run,
pruned writers, and the errors for what does not exist."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from run_events import DS, run, run_id
from sqlalchemy.engine import Engine
from store_summary import dataset, facet, ingest

from plumbline.analysis.root_cause import root_cause, run_of_node
from plumbline.analysis.version_lineage import version_lineage
from plumbline.store.read.errors import InvalidArgumentError, NotFoundError
from plumbline.store.write.prune import prune


def snapshot(name: str, snapshot_id: str) -> dict:
    """An Iceberg-style input: the snapshot read, named by a `version` facet."""
    return dataset(DS, name, version=facet(datasetVersion=snapshot_id))


@pytest.fixture
def diamond(engine: Engine) -> Engine:
    """src (Iceberg snapshots 100, then 200) -> a -> (b, c) -> d, two days.

    Day 1 (runs 1-4) reads snapshot 100; day 2 (runs 11-14) reads snapshot 200, and its `b` run
    (12) fails, so day 2's `d` (run 14) reads day 1's `b` with day 2's `c`. Day 2's `c` run (13)
    arrives last, after `d`'s run: it still counts, by event time.
    """
    for day, base, src in ((0, 0, "100"), (1, 10, "200")):
        t = day * 600
        ingest(
            engine,
            run(base + 1, "make_a", t, inputs=[snapshot("src", src)], outputs=[dataset(DS, "a")]),
        )
        b_state = "FAIL" if day == 1 else "COMPLETE"
        ingest(engine, run(base + 2, "make_b", t + 10, inputs=[dataset(DS, "a")],
                           outputs=[dataset(DS, "b")], state=b_state, error="boom"))  # fmt: skip
        late_c = run(
            base + 3, "make_c", t + 10, inputs=[dataset(DS, "a")], outputs=[dataset(DS, "c")]
        )
        if day == 0:
            ingest(engine, late_c)
        ingest(engine, run(base + 4, "make_d", t + 30, inputs=[dataset(DS, "b"), dataset(DS, "c")],
                           outputs=[dataset(DS, "d")]))  # fmt: skip
        if day == 1:
            ingest(engine, late_c)
    return engine


def _lineage(engine: Engine, name: str, version: str, direction: str = "upstream", **kw) -> list:
    with engine.connect() as conn:
        result = version_lineage(conn, DS, name, version, direction=direction, **kw)
    return [(v["distance"], v["name"], v["datasetVersion"]) for v in result.to_json()["versions"]]


def test_upstream_versions_of_an_output_are_the_exact_ones_read(diamond: Engine) -> None:
    assert _lineage(diamond, "d", run_id(14)) == [
        (0, "d", run_id(14)),
        (1, "b", run_id(2)),  # day 2's b failed: day 1's b was read
        (1, "c", run_id(13)),  # arrived after d's run, made before it
        (2, "a", run_id(1)),
        (2, "a", run_id(11)),
        (3, "src", "100"),
        (3, "src", "200"),
    ]


def test_downstream_versions_of_a_snapshot(diamond: Engine) -> None:
    assert _lineage(diamond, "src", "100", "downstream") == [
        (0, "src", "100"),
        (1, "a", run_id(1)),
        (2, "b", run_id(2)),
        (2, "c", run_id(3)),
        (3, "d", run_id(4)),
        (3, "d", run_id(14)),  # through day 1's b
    ]
    assert _lineage(diamond, "src", "200", "downstream", depth=1) == [
        (0, "src", "200"),
        (1, "a", run_id(11)),
    ]


def test_each_version_says_where_the_link_came_from(diamond: Engine) -> None:
    with diamond.connect() as conn:
        doc = version_lineage(conn, DS, "a", run_id(11)).to_json()
    src = doc["versions"][1]
    assert (src["name"], src["datasetVersion"], src["versionSource"]) == (
        "src",
        "200",
        "datasetVersion",
    )
    # `version` is the id the read API gives versions; the lineage of either is the same
    with diamond.connect() as conn:
        by_uuid = version_lineage(conn, DS, "a", doc["versions"][0]["version"]).to_json()
    assert by_uuid == doc
    assert src["runId"] is None and src["viaRunId"] == run_id(11)
    assert doc["versions"][0]["runId"] == run_id(11)


def test_the_node_cap_truncates_and_unknown_versions_are_named(diamond: Engine) -> None:
    with diamond.connect() as conn:
        capped = version_lineage(conn, DS, "d", run_id(14), max_nodes=2)
        assert capped.truncated and len(capped.versions) == 2
        with pytest.raises(NotFoundError, match="version 'nope' of dataset 'd'"):
            version_lineage(conn, DS, "d", "nope")
        with pytest.raises(InvalidArgumentError, match="above the cap of 50"):
            version_lineage(conn, DS, "d", run_id(14), depth=51)
        with pytest.raises(InvalidArgumentError, match="direction"):
            version_lineage(conn, DS, "d", run_id(14), direction="sideways")


def test_root_cause_lists_the_failed_upstream_run_first(engine: Engine) -> None:
    """x -> load -> y -> enrich -> z -> report; day 2's load changed its SQL, enrich is as it
    was, report failed. Suspects: the changed load run, though further away, before enrich.
    report also reads dim, which dims wrote once: a run with nothing before it is no suspect."""
    sql = {"sql": facet(query="select 1", dialect="spark")}
    ingest(engine, run(50, "dims", 5, outputs=[dataset(DS, "dim")], minutes=1))
    for day in (0, 1):
        t, base = day * 600, day * 10
        if day == 1:
            sql = {"sql": facet(query="select 2", dialect="spark")}
        ingest(
            engine,
            run(
                base + 1,
                "load",
                t,
                inputs=[dataset(DS, "x")],
                outputs=[dataset(DS, "y")],
                job_facets=sql,
            ),
        )
        ingest(
            engine,
            run(base + 2, "enrich", t + 10, inputs=[dataset(DS, "y")], outputs=[dataset(DS, "z")]),
        )
        ingest(engine, run(base + 3, "report", t + 20, inputs=[dataset(DS, "z"), dataset(DS, "dim")], outputs=[dataset(DS, "r")],
                           state="FAIL" if day else "COMPLETE", error="KeyError: total"))  # fmt: skip
    with engine.connect() as conn:
        doc = root_cause(conn, run_id(13)).to_json()
        assert run_of_node(conn, "job:shop:report", failed=True) == run_id(13)
        assert run_of_node(conn, f"dataset:{DS}:z", failed=True) == run_id(12)
        with pytest.raises(NotFoundError, match="has no failed run"):
            run_of_node(conn, "job:shop:load", failed=True)
    assert doc["run"]["id"] == run_id(13) and doc["against"] == run_id(3)
    order = [(u["run"]["id"], u["distance"], u["suspect"], u["reasons"]) for u in doc["upstream"]]
    assert order == [
        (run_id(11), 2, True, ["jobChanged"]),
        (run_id(12), 1, False, []),
        (run_id(50), 1, False, []),
    ]
    assert doc["upstream"][2]["changes"] == [] and doc["upstream"][2]["against"] is None
    assert doc["upstream"][0]["run"]["state"] == "COMPLETED" and doc["run"]["state"] == "FAILED"
    assert doc["upstream"][1]["produced"] == [{"namespace": DS, "name": "z", "version": run_id(12)}]
    assert doc["upstream"][0]["against"] == run_id(1)


def test_root_cause_and_version_lineage_name_pruned_writers(diamond: Engine) -> None:
    """Day 1's runs pruned (all but each job's latest): day 2's d still read day 1's b, whose
    writer is gone; both answers name it, with when it was pruned."""
    prune(diamond, datetime(2024, 5, 1, 1, 0, tzinfo=UTC))
    with diamond.connect() as conn:
        lineage = version_lineage(conn, DS, "d", run_id(14)).to_json()["versions"]
        b = next(v for v in lineage if v["name"] == "b")
        assert b["datasetVersion"] == run_id(2) and b["writerPruned"]["id"] == run_id(2)
        assert b["writerPruned"]["prunedAt"]
        assert "a" in {v["name"] for v in lineage}  # through day 2's c, still stored
        cause = root_cause(conn, run_id(14)).to_json()
    assert [p["id"] for p in cause["prunedRuns"]] == [run_id(2)]
    assert {u["run"]["id"] for u in cause["upstream"]} == {run_id(11), run_id(13)}
