"""Column lineage of recorded Spark plans, one plan node or expression kind a test (no JVM).

The plans are tests/golden/plans/<spark line>/<scenario>.json, written by
scripts/record_plans.py from the jobs in tests/spark/plan_scenarios.py; every lineage test runs
on every Spark line recorded and through both front ends: live capture's analyzed plan and the
event log's `sparkPlanInfo` (`plan_fixtures.FRONT_ENDS`; a known difference of the event log is a
strict expected failure with its reason, `plan_fixtures.EVENTLOG_DIFFERS`). Dataset names are the
sources' folder names (`orders`, `customers`, `people`).
"""

from __future__ import annotations

import pytest
from plan_fixtures import (
    FRONT_ENDS,
    SPARK_LINES,
    RecordedPlan,
    SparkLine,
    assert_column_lineage,
    lineage_text,
    load_plan,
)
from plan_scenarios import SCENARIOS

from plumbline.spark.lineage import PLAN_HANDLERS
from plumbline.spark.plan import Node

ID = "DIRECT IDENTITY"
TRANSFORMED = "DIRECT TRANSFORMATION"
AGGREGATED = "DIRECT AGGREGATION"


@pytest.fixture(
    params=[(spark_line, front) for spark_line in SPARK_LINES for front in FRONT_ENDS],
    ids=lambda p: f"{p[0]}-{p[1]}",
)
def line(request: pytest.FixtureRequest) -> SparkLine:
    """A Spark line read through one front end: every lineage test runs through both."""
    return SparkLine.of(*request.param)


@pytest.fixture(params=SPARK_LINES)
def live_line(request: pytest.FixtureRequest) -> str:
    """A Spark line, for tests of the recorded logical plans themselves."""
    return str(request.param)


def test_every_scenario_is_recorded_on_every_line() -> None:
    from plan_fixtures import PLANS

    assert SPARK_LINES, "no recorded plans"
    for spark_line in SPARK_LINES:
        recorded = {p.stem for p in (PLANS / spark_line).glob("*.json")}
        assert recorded == {s.name for s in SCENARIOS}, spark_line


# -- leaves -------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ["local_relation", "range", "values"])
def test_data_of_no_dataset_has_no_lineage(line: str, scenario: str) -> None:
    assert_column_lineage(load_plan(scenario, line), {})


def test_project_identity_rename_and_computation(line: str) -> None:
    assert_column_lineage(
        load_plan("project", line),
        {
            "order_id": {"orders.order_id": ID},
            "cid": {"orders.customer_id": ID},
            "doubled": {"orders.amount": TRANSFORMED},
        },
    )


def test_a_cast_transforms_unless_the_type_is_the_same(line: str) -> None:
    assert_column_lineage(
        load_plan("cast", line),
        {
            "id_text": {"orders.order_id": TRANSFORMED},
            "whole": {"orders.amount": TRANSFORMED},
            "cid": {"orders.customer_id": ID},  # customer_id is a bigint already
        },
    )


def test_cached_data_reads_its_dataset(line: str) -> None:
    # the analyzed plan reads the dataset; the cache (InMemoryRelation) replaces it only later
    assert_column_lineage(load_plan("cache", line), {"name": {"customers.name": ID}})


def test_columns_of_literals_have_no_lineage(line: str) -> None:
    assert_column_lineage(load_plan("literal", line), {"order_id": {"orders.order_id": ID}})


# -- rows: filters, joins, sorts ----------------------------------------------------------------


def test_filter_condition_is_dataset_wide(line: str) -> None:
    assert_column_lineage(
        load_plan("filter", line),
        {"order_id": {"orders.order_id": ID}},
        dataset={"orders.amount": "INDIRECT FILTER", "orders.tags": "INDIRECT FILTER"},
    )


def test_sort_order_is_dataset_wide(line: str) -> None:
    assert_column_lineage(
        load_plan("sort", line),
        {"order_id": {"orders.order_id": ID}},
        dataset={"orders.amount": "INDIRECT SORT"},
    )


def test_join_takes_columns_from_both_sides(line: str) -> None:
    assert_column_lineage(
        load_plan("join", line),
        {"order_id": {"orders.order_id": ID}, "name": {"customers.name": ID}},
        dataset={"orders.customer_id": "INDIRECT JOIN", "customers.customer_id": "INDIRECT JOIN"},
    )


def test_self_join_reads_one_dataset_twice(line: str) -> None:
    assert_column_lineage(
        load_plan("self_join", line),
        {"x": {"orders.order_id": ID}, "y": {"orders.amount": ID}},
        dataset={"orders.order_id": "INDIRECT JOIN"},
    )


def test_left_semi_join_outputs_the_left_side(line: str) -> None:
    assert_column_lineage(
        load_plan("left_semi_join", line),
        {c: {f"orders.{c}": ID} for c in ("order_id", "customer_id", "amount", "tags")},
        dataset={"orders.customer_id": "INDIRECT JOIN", "customers.customer_id": "INDIRECT JOIN"},
    )


def test_left_anti_join_outputs_the_left_side(line: str) -> None:
    assert_column_lineage(
        load_plan("left_anti_join", line),
        {"order_id": {"orders.order_id": ID}},
        dataset={"orders.customer_id": "INDIRECT JOIN", "customers.customer_id": "INDIRECT JOIN"},
    )


# -- set operations -----------------------------------------------------------------------------


def test_union_merges_columns_by_position(line: str) -> None:
    assert_column_lineage(
        load_plan("union", line),
        {"cid": {"orders.customer_id": ID, "customers.customer_id": ID}},
    )


@pytest.mark.parametrize("scenario", ["intersect", "except"])
def test_intersect_and_except_output_the_left_side(line: str, scenario: str) -> None:
    # which left rows are kept depends on every column of both sides (a semi / anti join on all
    # columns), and without ALL the rows are made distinct (the OpenLineage agent says the same)
    assert_column_lineage(
        load_plan(scenario, line),
        {"customer_id": {"orders.customer_id": ID}},
        dataset={
            "orders.customer_id": "INDIRECT GROUP_BY, INDIRECT JOIN",
            "customers.customer_id": "INDIRECT JOIN",
        },
    )


# -- aggregation --------------------------------------------------------------------------------


def test_aggregate_groups_and_aggregates(line: str) -> None:
    assert_column_lineage(
        load_plan("aggregate", line),
        {
            "name": {"people.name": ID},
            "total": {"people.amount": AGGREGATED},
            "n": {"people.id": AGGREGATED},
            "top": {"people.amount": AGGREGATED},  # max(amount) + 1: aggregation wins
        },
        dataset={"people.name": "INDIRECT GROUP_BY"},
    )


def test_global_aggregate_and_count_star(line: str) -> None:
    assert_column_lineage(
        load_plan("global_aggregate", line), {"mean": {"orders.amount": AGGREGATED}}
    )


def test_rollup_through_expand(line: str) -> None:
    assert_column_lineage(
        load_plan("rollup", line),
        {"customer_id": {"orders.customer_id": ID}, "total": {"orders.amount": AGGREGATED}},
        dataset={"orders.customer_id": "INDIRECT GROUP_BY"},
    )


def test_window_function_and_its_spec(line: str) -> None:
    assert_column_lineage(
        load_plan("window", line),
        {
            "order_id": {"orders.order_id": ID},
            "running": {
                "orders.amount": AGGREGATED,
                "orders.customer_id": "INDIRECT WINDOW",  # partition
                "orders.order_id": "INDIRECT WINDOW",  # order
            },
        },
    )


# -- expressions --------------------------------------------------------------------------------


def test_case_when_conditions_and_values(line: str) -> None:
    assert_column_lineage(
        load_plan("case_when", line),
        {
            "order_id": {"orders.order_id": ID},
            "band": {"orders.amount": "INDIRECT CONDITIONAL", "orders.tags": TRANSFORMED},
        },
    )


def test_if_predicate_and_values(line: str) -> None:
    assert_column_lineage(
        load_plan("if", line),
        {
            "pick": {
                "orders.amount": "INDIRECT CONDITIONAL",
                "orders.order_id": TRANSFORMED,
                "orders.customer_id": TRANSFORMED,
            }
        },
    )


@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_python_udf_transforms_its_arguments(line: str, stage: str) -> None:
    # optimized: the UDF is evaluated apart, in a BatchEvalPython node
    plan = load_plan("udf", line, stage)
    assert_column_lineage(plan, {"twice": {"orders.amount": TRANSFORMED}})


def test_explode_output_comes_from_its_argument(line: str) -> None:
    assert_column_lineage(
        load_plan("explode", line),
        {"order_id": {"orders.order_id": ID}, "tag": {"orders.tags": TRANSFORMED}},
    )


# -- subqueries and common table expressions ----------------------------------------------------


def test_scalar_subquery_value(line: str) -> None:
    assert_column_lineage(
        load_plan("scalar_subquery", line),
        {"order_id": {"orders.order_id": ID}, "top": {"customers.name": AGGREGATED}},
    )


def test_in_subquery_filters_the_rows(line: str) -> None:
    assert_column_lineage(
        load_plan("in_subquery", line),
        {"order_id": {"orders.order_id": ID}},
        dataset={
            "orders.customer_id": "INDIRECT FILTER",
            "customers.customer_id": "INDIRECT FILTER",
        },
    )


def test_correlated_exists_filters_the_rows(line: str) -> None:
    assert_column_lineage(
        load_plan("exists_subquery", line),
        {"order_id": {"orders.order_id": ID}},
        dataset={
            "orders.customer_id": "INDIRECT FILTER",
            "customers.customer_id": "INDIRECT FILTER",
        },
    )


def test_correlated_scalar_subquery(line: str) -> None:
    # the outer column the subquery is correlated on counts as one its value is computed from
    assert_column_lineage(
        load_plan("correlated_scalar_subquery", line),
        {
            "order_id": {"orders.order_id": ID},
            "who": {"customers.name": AGGREGATED, "orders.customer_id": TRANSFORMED},
        },
        dataset={
            "customers.customer_id": "INDIRECT FILTER",
            "orders.customer_id": "INDIRECT FILTER",
        },
    )


def test_lateral_subquery_reads_the_outer_columns(line: str) -> None:
    assert_column_lineage(
        load_plan("lateral_subquery", line),
        {"order_id": {"orders.order_id": ID}, "twice": {"orders.amount": TRANSFORMED}},
    )


def test_common_table_expression_used_twice(line: str) -> None:
    assert_column_lineage(
        load_plan("cte", line),
        {"order_id": {"orders.order_id": ID}, "amount": {"orders.amount": ID}},
        dataset={"orders.amount": "INDIRECT FILTER", "orders.order_id": "INDIRECT JOIN"},
    )


# -- write commands -----------------------------------------------------------------------------


def test_create_table_as_select_walks_the_query_field(line: str) -> None:
    plan = load_plan("ctas", line)
    if isinstance(plan, RecordedPlan):
        assert not plan.root.children and plan.root.trees("query")
    assert_column_lineage(
        plan, {"order_id": {"orders.order_id": ID}, "amount": {"orders.amount": ID}}
    )


def test_insert_into_names_columns_after_the_table(line: str) -> None:
    assert_column_lineage(
        load_plan("insert_into", line),
        # `id` is a bigint cast to the table's bigint: 3.5 writes the cast, 4.x leaves it out
        {"id": {"orders.order_id": ID}, "label": {"orders.tags": TRANSFORMED}},
    )


# -- the recorded plans themselves --------------------------------------------------------------


def _live(scenario: str, spark_line: str, stage: str = "analyzed") -> RecordedPlan:
    plan = load_plan(scenario, spark_line, stage)
    assert isinstance(plan, RecordedPlan)
    return plan


def _plan_nodes(plan: Node) -> list[Node]:
    """The nodes of a plan and of the plans its expressions hold (subqueries), not expressions."""
    found = []
    for node in plan.walk():
        found.append(node)
        for value in node.fields.values():
            for tree in value if isinstance(value, list) else [value]:
                for expr in tree.walk() if isinstance(tree, Node) else ():
                    for inner in expr.trees("plan") if expr is not node else ():
                        found.extend(_plan_nodes(inner))
    return found


def test_every_plan_node_kind_recorded_has_a_handler_or_passes_through(live_line: str) -> None:
    """Plan nodes the walker passes through unchanged, by name: a new kind must be decided on."""
    passing = {
        "SubqueryAlias",
        "View",
        "WriteFiles",
        "Repartition",
        "RepartitionByExpression",
        "Distinct",
        "Deduplicate",
        "GlobalLimit",
        "LocalLimit",
        "Limit",
        "Subquery",
    }
    seen: set[str] = set()
    for scenario in SCENARIOS:
        for stage in ("analyzed", "optimized"):
            root = _live(scenario.name, live_line, stage).root
            for query in root.children or root.trees("query"):
                seen.update(node.name for node in _plan_nodes(query))
    unknown = sorted(seen - set(PLAN_HANDLERS) - passing)
    assert unknown == [], (
        f"plan nodes of no known kind in the Spark {live_line} fixtures: {unknown}"
    )


def test_optimized_plans_give_the_analyzed_columns(live_line: str) -> None:
    """Columns come out the same from the optimized plan (what event logs hold) but where listed."""
    # explode: the optimizer moves split() below Generate;
    # correlated_scalar_subquery: it becomes a join (the correlation key turns dataset-wide)
    # cache: the optimized plan reads an InMemoryRelation, which names no dataset
    differ = {"explode", "correlated_scalar_subquery", "cache"}
    same = []
    for scenario in SCENARIOS:
        analyzed, _ = lineage_text(_live(scenario.name, live_line).lineage())
        optimized, _ = lineage_text(_live(scenario.name, live_line, "optimized").lineage())
        if analyzed == optimized:
            same.append(scenario.name)
    assert sorted(set(s.name for s in SCENARIOS) - set(same)) == sorted(differ)


def test_recorded_plans_round_trip_through_their_json_form(live_line: str) -> None:
    for scenario in SCENARIOS:
        for stage in ("analyzed", "optimized"):
            root = _live(scenario.name, live_line, stage).root
            assert Node.from_json(root.to_json()) == root, (scenario.name, stage)


def test_a_wrong_expectation_prints_both_sides(line: str) -> None:
    with pytest.raises(AssertionError) as failure:
        assert_column_lineage(load_plan("project", line), {"order_id": {"orders.order_id": ID}})
    message = str(failure.value)
    assert "expected:\n  order_id <- orders.order_id: DIRECT IDENTITY\nactual:" in message
    assert "  doubled <- orders.amount: DIRECT TRANSFORMATION" in message
