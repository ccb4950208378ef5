"""Chains of projections collapsed JVM-side give the column lineage the node-for-node tree gives.

The capture reads plans with `read_plan(collapse=True)`: each chain of projections below a
projection is one `ProjectChain` node whose output's lineage the JVM worked out. Every recorded
scenario (tests/spark/plan_scenarios.py) and a set of chain-heavy DataFrame jobs run twice, read
once each way, and their captured column lineage (and inputs) must be the same.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from plan_scenarios import SCENARIOS, make_sources

from plumbline.spark import extract, plan_reader
from plumbline.spark.jvm import leaf_paths
from plumbline.spark.plan import Node
from plumbline.spark.vocabulary import DATASET_RELATIONS, PROJECT_CHAIN

pytestmark = [pytest.mark.spark, pytest.mark.slow]

Job = Callable[[Any, Any, str], None]  # (spark, functions, output path)


def _steps(frame: Any, f: Any, steps: int = 6, tag: str = "a") -> Any:
    """`steps` withColumns steps: sums, same-type and other casts, literals, renames."""
    for step in range(steps):
        changes = {
            "amount": f.col("amount") + step,
            f"{tag}s{step}": f.col("customer_id").cast("string"),
            f"{tag}lit{step}": f.lit(step),
        }
        if "order_id" in frame.columns:
            changes["order_id"] = f.col("order_id").cast("long")  # a cast to the type it has
        frame = frame.withColumns(changes).withColumnRenamed(f"{tag}s{step}", f"{tag}t{step}")
    return frame


def _orders(spark: Any) -> Any:
    return spark.table("orders")


EXTRA: dict[str, Job] = {
    "steps": lambda s, f, out: _steps(_orders(s), f).write.mode("overwrite").parquet(out),
    "steps_with_case_when_and_udf": lambda s, f, out: (
        _steps(
            _steps(_orders(s), f)
            .withColumn("k", f.when(f.col("amount") > 2, f.col("order_id")).otherwise(0))
            .withColumn("u", f.udf(lambda x: x, "double")(f.col("amount"))),
            f,
            tag="b",
        )
        .write.mode("overwrite")
        .parquet(out)
    ),
    "steps_then_filter_with_subquery": lambda s, f, out: (
        _steps(
            _steps(_orders(s), f).where(
                f.col("customer_id").isin(3, 10)
                & f.expr("order_id IN (SELECT customer_id - 9 FROM customers)")
            ),
            f,
            tag="b",
        )
        .write.mode("overwrite")
        .parquet(out)
    ),
    "steps_union_and_self_join": lambda s, f, out: (
        _steps(_orders(s), f, 3)
        .unionByName(_steps(_orders(s), f, 3))
        .alias("l")
        .join(_steps(_orders(s), f, 2, "b").alias("r"), "order_id")
        .select("l.amount", "r.bt1", "order_id")
        .write.mode("overwrite")
        .parquet(out)
    ),
    "steps_aggregate_steps": lambda s, f, out: (
        _steps(
            _steps(_orders(s), f).groupBy("customer_id").agg(f.sum("amount").alias("amount")),
            f,
            3,
            "b",
        )
        .write.mode("overwrite")
        .parquet(out)
    ),
    "sql_then_steps": lambda s, f, out: (
        _steps(s.sql("SELECT order_id, customer_id, amount + 1 AS amount, tags FROM orders"), f, 3)
        .write.mode("overwrite")
        .parquet(out)
    ),
    "selects": lambda s, f, out: (
        _orders(s)
        .select("amount", "order_id", f.concat("tags", f.lit("x")).alias("c"))
        .select(f.col("amount").alias("a"), f.col("order_id").alias("b"), f.upper("c").alias("c"))
        .select((f.col("a") + 1).alias("a"), f.col("b").cast("bigint").alias("b"), "c")
        .write.mode("overwrite")
        .parquet(out)
    ),
}


@pytest.fixture(scope="module")
def sources(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    work = tmp_path_factory.mktemp("chains")
    make_sources(spark, work)
    spark.sql("DROP VIEW IF EXISTS plumbline_chain_view")
    spark.sql("DROP TABLE IF EXISTS plumbline_chain_orders")
    spark.table("orders").write.saveAsTable("plumbline_chain_orders")
    spark.sql(
        "CREATE VIEW plumbline_chain_view AS SELECT order_id, amount * 2 AS doubled,"
        " CAST(customer_id AS string) AS code FROM (SELECT order_id, amount + 1 AS amount,"
        " customer_id FROM (SELECT * FROM plumbline_chain_orders))"
    )
    yield work
    spark.sql("DROP VIEW IF EXISTS plumbline_chain_view")
    spark.sql("DROP TABLE IF EXISTS plumbline_chain_orders")


def _view_job(s: Any, f: Any, out: str) -> None:
    frame = s.table("plumbline_chain_view")
    frame.withColumn("code", f.col("code")).withColumn("x", f.col("doubled") + 1).write.mode(
        "overwrite"
    ).parquet(out)


EXTRA["view_over_steps"] = _view_job


def _lineage_of(captured: Any) -> list[Any]:
    """The outputs' column lineage and the inputs of every completed action, in order."""
    found = []
    for event in captured.actions():
        if event["eventType"] != "COMPLETE" or ".execute_drop_" in event["job"]["name"]:
            continue  # a scenario's DROP TABLE IF EXISTS finds a table on its second run only
        found.append(
            (
                event["job"]["name"],
                event["job"]["facets"].get("sql", {}).get("query"),  # `origin_sql` walks down too
                sorted((d["namespace"], d["name"]) for d in event.get("inputs", [])),
                [
                    (
                        d["namespace"],
                        d["name"],
                        json.dumps(d["facets"].get("columnLineage"), sort_keys=True),
                    )
                    for d in event.get("outputs", [])
                ],
            )
        )
    return found


def _run_both_ways(
    captured: Any, monkeypatch: pytest.MonkeyPatch, run: Callable[[], None]
) -> tuple[list[Any], list[Any], int]:
    """The job's lineage read node for node, then collapsed; and how many chains it had."""
    chains: list[int] = []
    state = {"collapse": False}

    def read(jvm: Any, plan: Any, *, collapse: bool = False) -> Node:
        root = plan_reader.read_plan(jvm, plan, collapse=state["collapse"])
        if state["collapse"]:
            chains.append(sum(1 for n in _all_nodes(root) if n.name == PROJECT_CHAIN))
            _check_leaf_paths(jvm, plan, root)
        return root

    monkeypatch.setattr(extract, "read_plan", read)
    answers = []
    for mode in (False, True):
        state["collapse"] = mode
        captured.mark()
        run()
        answers.append(_lineage_of(captured))
    return answers[0], answers[1], sum(chains)


def _all_nodes(root: Node) -> Iterator[Node]:
    """Every plan node, subqueries' plans and a CTAS query included."""
    for node, _ in leaf_paths(root, _EVERY_NAME):
        yield node


class _Every(frozenset[str]):
    def __contains__(self, item: object) -> bool:
        return True


_EVERY_NAME = _Every()


def _check_leaf_paths(jvm: Any, plan: Any, root: Node) -> None:
    """The relation leaves' paths lead to the same JVM nodes in both trees."""
    full = plan_reader.read_plan(jvm, plan)
    collapsed = leaf_paths(root, DATASET_RELATIONS)
    assert [p for _, p in collapsed] == [p for _, p in leaf_paths(full, DATASET_RELATIONS)]


def test_every_scenario_gives_the_same_lineage_collapsed(
    spark: Any, captured: Any, sources: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compared, with_chains = 0, 0
    for scenario in SCENARIOS:
        out = str(sources / f"out_{scenario.name}")
        full, collapsed, chains = _run_both_ways(
            captured,
            monkeypatch,
            lambda: scenario.run(spark, out),  # noqa: B023
        )
        assert full, scenario.name
        assert collapsed == full, scenario.name
        compared += 1
        with_chains += chains > 0
    assert compared == len(SCENARIOS)
    assert with_chains >= 1  # the collapse is exercised, not only passed over


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_chains_of_steps_give_the_same_lineage_collapsed(
    spark: Any, captured: Any, sources: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    from pyspark.sql import functions

    out = str(sources / f"out_{name}")
    full, collapsed, chains = _run_both_ways(
        captured, monkeypatch, lambda: EXTRA[name](spark, functions, out)
    )
    assert full and full[-1][3] and json.loads(full[-1][3][0][2])["fields"]
    assert collapsed == full
    assert chains > 0
    if name == "sql_then_steps":  # the SQL's projection is in the chain: its text is still found
        assert "SELECT order_id" in str(collapsed[-1][1])
