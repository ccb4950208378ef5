"""`plan.Node`: Catalyst's flat toJSON form in, the nested JSON form out and back (no Spark)."""

from __future__ import annotations

import json

import pytest

from plumbline.spark.errors import PlanError
from plumbline.spark.plan import Node, parse_plan

_ATTRIBUTE = {
    "class": "org.apache.spark.sql.catalyst.expressions.AttributeReference",
    "num-children": 0,
    "name": "id",
    "dataType": "long",
    "exprId": {"product-class": "org.apache.spark.sql.catalyst.expressions.ExprId", "id": 7},
}
_CATALYST = [
    {
        "class": "org.apache.spark.sql.catalyst.plans.logical.Project",
        "num-children": 1,
        "projectList": [[_ATTRIBUTE]],
    },
    {
        "class": "org.apache.spark.sql.execution.datasources.LogicalRelation",
        "num-children": 0,
        "output": [[_ATTRIBUTE]],
        "catalogTable": None,
        "isStreaming": False,
    },
]


def test_catalyst_json_becomes_nodes_with_trees_in_fields() -> None:
    root = parse_plan(json.dumps(_CATALYST))
    assert root.name == "Project"
    (relation,) = root.children
    assert relation.name == "LogicalRelation" and relation.fields["isStreaming"] is False
    (attribute,) = root.trees("projectList")
    assert attribute.name == "AttributeReference" and attribute.expr_id() == (7, "")


def test_nested_json_form_round_trips_through_text() -> None:
    root = parse_plan(json.dumps(_CATALYST))
    data = json.loads(json.dumps(root.to_json()))
    assert data["class"].endswith(".Project") and len(data["children"]) == 1
    assert Node.from_json(data) == root
    assert Node.from_json(data).to_json() == data


def test_plain_objects_in_fields_stay_plain() -> None:
    node = Node("X", {"table": {"identifier": {"table": "t"}}, "list": [1, "a", None]})
    back = Node.from_json(json.loads(json.dumps(node.to_json())))
    assert back.fields == node.fields and back.trees("table") == []


@pytest.mark.parametrize("data", [{"class": "X"}, {"class": "X", "fields": {}, "children": 3}])
def test_what_is_not_a_node_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(PlanError):
        Node.from_json(data)


def test_lists_of_expression_lists_become_nodes() -> None:
    """`Expand.projections` holds one expression list per projection."""
    expand = {
        "class": "org.apache.spark.sql.catalyst.plans.logical.Expand",
        "num-children": 0,
        "projections": [[[_ATTRIBUTE], [_ATTRIBUTE]], [[_ATTRIBUTE], [_ATTRIBUTE]]],
    }
    projections = parse_plan(json.dumps([expand])).fields["projections"]
    assert [[e.name for e in p] for p in projections] == [["AttributeReference"] * 2] * 2
