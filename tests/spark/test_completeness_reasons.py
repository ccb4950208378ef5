"""Why lineage is partial (issue 31 §2), from recorded plans (no JVM): the lineage walk names what
it could not see into, on every Spark line recorded and through both front ends; event-log
extraction adds the plan nodes its log cut short. tests/spark/test_spark_completeness.py runs the
same reasons on real Spark."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from plan_fixtures import SPARK_LINES, RecordedPlan, load_plan
from plan_scenarios import SCENARIOS

from plumbline.eventlogs.application import ApplicationLog
from plumbline.spark.lineage import column_lineage
from plumbline.spark.plan import Node

FACET = "plumbline_completeness"
UDF = "pythonUdf: <lambda> (inputs assumed from its arguments)"


def _live(scenario: str, line: str, stage: str = "analyzed") -> RecordedPlan:
    plan = load_plan(scenario, line, stage)
    assert isinstance(plan, RecordedPlan)
    return plan


@pytest.mark.parametrize("line", SPARK_LINES)
@pytest.mark.parametrize("stage", ["analyzed", "optimized"])
def test_only_the_python_udf_scenario_has_a_reason(line: str, stage: str) -> None:
    found = {
        scenario.name: _live(scenario.name, line, stage).lineage().reasons for scenario in SCENARIOS
    }
    assert {name: reasons for name, reasons in found.items() if reasons} == {"udf": [UDF]}


@pytest.mark.parametrize("line", SPARK_LINES)
def test_a_node_without_a_handler_is_named(line: str) -> None:
    plan = _live("project", line)
    root = copy.deepcopy(plan.root)
    root.children = [Node("SomeFutureNode", {}, list(root.children))]
    result = column_lineage(root, plan.source_of())
    assert result.reasons == ["unhandledNode: SomeFutureNode"]
    # event-log extraction walks physical operators, which pass through by the dozen: not named
    quiet = column_lineage(root, plan.source_of(), unhandled=False)
    assert quiet.reasons == []


def _log_facet(events: list[dict[str, Any]], spark: str) -> dict[str, Any]:
    """The completeness facet of the write's COMPLETE, as event-log extraction emits it."""
    log = ApplicationLog("golden")
    emitted = []
    for event in [
        {"Event": "SparkListenerLogStart", "Spark Version": spark},
        {"Event": "SparkListenerApplicationStart", "App Name": "golden", "App ID": "app"},
        *events,
        {"Event": "SparkListenerApplicationEnd", "Timestamp": 0},
    ]:
        emitted += log.feed(event)
    ends = [e for e in emitted if e["eventType"] == "COMPLETE" and e.get("outputs")]
    starts = [e for e in emitted if e["eventType"] == "START" and e.get("outputs")]
    assert len(ends) == len(starts) == 1
    assert starts[0]["run"]["facets"][FACET] == ends[0]["run"]["facets"][FACET]
    return dict(ends[0]["run"]["facets"][FACET])


def _logged(scenario: str, line: str) -> tuple[list[dict[str, Any]], str]:
    plan = load_plan(scenario, _eventlog(line))
    return copy.deepcopy(plan.events), plan.spark  # type: ignore[union-attr]


def _eventlog(line: str) -> str:
    from plan_fixtures import SparkLine

    return SparkLine.of(line, "eventlog")


@pytest.mark.parametrize("line", SPARK_LINES)
def test_event_log_extraction_states_completeness(line: str) -> None:
    events, spark = _logged("project", line)
    assert _log_facet(events, spark)["completeness"] == "complete"
    events, spark = _logged("udf", line)
    udf = _log_facet(events, spark)
    assert udf["completeness"] == "partial"
    assert [r.split(":")[0] for r in udf["reasons"]] == ["pythonUdf"]


@pytest.mark.parametrize("line", SPARK_LINES)
def test_a_plan_the_log_cut_short_is_partial(line: str) -> None:
    events, spark = _logged("project", line)

    def cut(node: dict[str, Any]) -> None:
        if node["nodeName"] == "Project":  # as Spark writes a list past maxToStringFields
            head = node["simpleString"].split(", ")[0]
            node["simpleString"] = f"{head}, ... 2 more fields]"
        for child in node.get("children", []):
            cut(child)

    for event in events:
        if "sparkPlanInfo" in event:
            cut(event["sparkPlanInfo"])
    facet = _log_facet(events, spark)
    assert facet["completeness"] == "partial"
    assert facet["reasons"] == ["truncatedPlan: 1 plan node(s) cut short in the log"]
