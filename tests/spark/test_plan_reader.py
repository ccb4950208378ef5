"""The compact plan reader gives the `Node`s `toJSON()` gives, in a fraction of the text."""

from __future__ import annotations

import logging
import time
from pathlib import Path
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
        parse_compact('[["a.B"], [[[0, 0, {}]]], [-2]]')
    with pytest.raises(PlanError, match="shared tree -1"):  # a shared tree refers to itself
        parse_compact('[["a.B"], [[[0, 1, {}], -1]], [-1]]')
    with pytest.raises(PlanError, match="malformed"):  # a class name it does not have
        parse_compact('[["a.B"], [], [[3, 0, {}]]]')
    with pytest.raises(PlanError, match="shared trees, plan tree"):
        parse_compact('{"class": "a.B"}')


def test_the_reader_compiles_in_the_background(spark: Any) -> None:
    from plumbline.spark import plan_reader

    plan_reader._reader.clear()
    plan_reader.prepare(spark._jvm)  # returns at once; the compile runs on its own thread
    deadline = time.monotonic() + 180
    while not plan_reader._reader and time.monotonic() < deadline:
        time.sleep(0.05)
    assert plan_reader._reader and plan_reader._reader[0][0] is spark._jvm
    assert plan_reader._reader[0][1] is not None
    assert reader_for(spark._jvm) is plan_reader._reader[0][1]  # not compiled again
    # a second compile in one JVM answers its own calls (py4j caches methods by class name)
    assert str(plan_reader._reader[0][1].compactJson(_analyzed(spark, QUERIES[0]))).startswith("[")


def test_a_reader_that_does_not_compile_leaves_plans_to_to_json_in_one_line(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from plumbline.spark import plan_reader

    broken = tmp_path / "PlumblinePlanJson.java"
    broken.write_text("public class PlumblinePlanJson { not java }", encoding="utf-8")
    monkeypatch.setattr(plan_reader, "SOURCE", broken)
    plan_reader._reader.clear()
    plan = _analyzed(spark, QUERIES[0])
    try:
        with caplog.at_level(logging.WARNING, logger="plumbline.spark.plan_reader"):
            root = read_plan(spark._jvm, plan)
            again = read_plan(spark._jvm, plan)  # the failure is remembered: no second try
    finally:
        plan_reader._reader.clear()  # the next test compiles the real reader again
    assert root.to_json() == again.to_json() == parse_plan(str(plan.toJSON())).to_json()
    assert len(caplog.records) == 1
    message = caplog.records[0].getMessage()
    assert "reads plans with toJSON()" in message and "\n" not in message


def _plan_files(spark: Any) -> set[Path]:
    return set(Path(str(spark._jvm.System.getProperty("java.io.tmpdir"))).glob("plumbline-plan-*"))


def test_a_long_compact_plan_comes_through_a_file_that_is_deleted(
    spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `FILE_ABOVE` characters the JVM writes the plan to a file (a py4j answer past 8 KB
    waits ~40 ms on TCP's delayed ACK); the nodes are the same, and no file is left behind."""
    from plumbline.spark import plan_reader

    monkeypatch.setattr(plan_reader, "FILE_ABOVE", 0)  # every plan through a file
    before = _plan_files(spark)
    for query in QUERIES:
        plan = _analyzed(spark, query)
        assert read_plan(spark._jvm, plan).to_json() == parse_plan(str(plan.toJSON())).to_json()
    assert _plan_files(spark) == before


def test_a_plan_file_this_process_cannot_read_falls_back_to_answers(
    spark: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A JVM whose files this process cannot read (another machine's): one line, then answers."""
    from plumbline.spark import plan_reader

    def unreadable(path: Path) -> bytes:
        raise PermissionError(f"cannot read {path}")

    monkeypatch.setattr(plan_reader, "FILE_ABOVE", 0)
    monkeypatch.setattr(plan_reader, "_through_files", [True])
    monkeypatch.setattr(Path, "read_bytes", unreadable)
    plan = _analyzed(spark, QUERIES[0])
    expected = parse_plan(str(plan.toJSON())).to_json()
    with caplog.at_level(logging.WARNING, logger="plumbline.spark.plan_reader"):
        assert read_plan(spark._jvm, plan).to_json() == expected
        assert read_plan(spark._jvm, plan).to_json() == expected  # no file asked for again
    assert plan_reader._through_files == [False]
    assert [r.getMessage().split(" (")[0] for r in caplog.records] == [
        "plumbline reads plans through py4j answers only"
    ]
