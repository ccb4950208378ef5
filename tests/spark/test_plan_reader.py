"""The compact plan reader gives the `Node`s `toJSON()` gives, in a fraction of the text."""

from __future__ import annotations

from typing import Any

import pytest

from plumbline.spark.errors import PlanError
from plumbline.spark.plan import parse_compact, parse_plan
from plumbline.spark.plan_reader import read_plan, reader_for

pytestmark = pytest.mark.spark

# one query per construct whose JSON form has a special case: tuples of trees (CASE WHEN),
# a class with its own jsonFields (Literal), a subquery's plan inside an expression, lists of
# lists of trees (Expand), windows, joins, generators, options (None fields are left out)
QUERIES = [
    "SELECT id, count(*) AS c FROM range(10) GROUP BY id",
    "SELECT CASE WHEN id > 1 THEN 'x' ELSE 'y' END AS k, explode(array(id, 2)) FROM range(5)",
    "SELECT a.id FROM range(3) a JOIN range(4) b ON a.id = b.id"
    " WHERE a.id IN (SELECT id FROM range(2)) ORDER BY 1",
    "SELECT id, (SELECT max(id) FROM range(3)) AS m, (SELECT max(id) FROM range(3)) AS n"
    " FROM range(2)",
    "SELECT id, sum(id) OVER (PARTITION BY id % 2 ORDER BY id) FROM range(4)",
    "SELECT id, count(*) FROM range(4) GROUP BY CUBE(id, id + 1)",
    "SELECT CAST(id AS STRING) AS s, id + 1.5D AS d, NULL AS n, DATE'2024-01-02' AS t FROM range(2)",
]


def _analyzed(spark: Any, query: str) -> Any:
    return spark.sql(query)._jdf.queryExecution().analyzed()


@pytest.mark.parametrize("query", QUERIES)
def test_the_compact_reader_gives_the_nodes_of_to_json(spark: Any, query: str) -> None:
    plan = _analyzed(spark, query)
    assert reader_for(spark._jvm) is not None  # compiled, not the fallback
    expected = parse_plan(str(plan.toJSON())).to_json()
    assert read_plan(spark._jvm, plan).to_json() == expected


def test_equal_expressions_are_written_once(spark: Any) -> None:
    columns = ", ".join(f"id + 1 AS c{i}" for i in range(40))
    plan = _analyzed(spark, f"SELECT {columns} FROM (SELECT id, {columns} FROM range(2))")  # noqa: S608
    full = str(plan.toJSON())
    compact = str(reader_for(spark._jvm).compactJson(plan))
    assert len(compact) * 3 < len(full)
    root = parse_compact(compact)
    assert root.to_json() == parse_plan(full).to_json()
    aliases = root.trees("projectList")
    assert aliases[0].children[0] is aliases[1].children[0]  # `id + 1`: one shared Node


def test_a_compact_plan_with_an_unknown_reference_is_refused() -> None:
    with pytest.raises(PlanError, match="shared tree -2"):
        parse_compact('[[[{"class": "a.B", "num-children": 0}]], [-2]]')
    with pytest.raises(PlanError, match="shared trees, plan nodes"):
        parse_compact('{"class": "a.B"}')
