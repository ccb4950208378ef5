"""A logged physical plan (`sparkPlanInfo`, as Spark 3.5 writes it) as nodes for the one lineage walker."""

from __future__ import annotations

from typing import Any

from plumbline.eventlogs.planinfo import convert
from plumbline.spark.lineage import DIRECT, INDIRECT, Deps, column_lineage


def node(name: str, text: str, *children: dict[str, Any], **metadata: str) -> dict[str, Any]:
    return {
        "nodeName": name,
        "simpleString": text,
        "children": list(children),
        "metadata": metadata,
        "metrics": [],
    }


SCAN = node(
    "Scan parquet ",
    "FileScan parquet [id#9,name#10,v#11] Batched: true, Location: InMemoryFileIndex(1 paths)"
    "[file:/d/in], ReadSchema: struct<id:int,name:string,v:double>",
    Location="InMemoryFileIndex(1 paths)[file:/d/in]",
    ReadSchema="struct<id:int,name:string,v:double>",
    Format="Parquet",
)
WRITE = "Execute InsertIntoHadoopFsRelationCommand"


def lineage(info: dict[str, Any], description: str = "") -> tuple[dict[str, Deps], Deps, int]:
    plan = convert(info, description)

    def source_of(leaf: Any, column: str) -> Deps:
        return {("in", column): {(DIRECT, "IDENTITY")}} if id(leaf) in plan.scans else {}

    result = column_lineage(plan.root, source_of)
    return result.columns, result.dataset, plan.truncated_nodes


def test_projection_and_filter() -> None:
    info = node(
        WRITE,
        f"{WRITE} file:/d/out, false, Parquet, [path=/d/out], Overwrite, [id, label]",
        node(
            "Project",
            "Project [id#9, upper(name#10) AS label#16]",
            node("Filter", "Filter (isnotnull(id#9) AND (id#9 > 0))", SCAN),
        ),
    )
    columns, dataset, truncated = lineage(info)
    assert columns == {
        "id": {("in", "id"): {(DIRECT, "IDENTITY")}},
        "label": {("in", "name"): {(DIRECT, "TRANSFORMATION")}},
    }
    assert dataset == {("in", "id"): {(INDIRECT, "FILTER")}}
    assert truncated == 0


def test_an_aggregate_s_results_come_from_the_description() -> None:
    info = node(
        WRITE,
        f"{WRITE} file:/d/agg, false, JSON, [path=/d/agg], Overwrite, [name, total]",
        node("HashAggregate", "HashAggregate(keys=[name#10], functions=[sum(v#11)])", SCAN),
    )
    description = (
        "(2) HashAggregate\nKeys [1]: [name#10]\nFunctions [1]: [sum(v#11)]\n"
        "Aggregate Attributes [1]: [sum(v#11)#27]\nResults [2]: [name#10, sum(v#11)#27 AS total#28]\n"
    )
    columns, dataset, _ = lineage(info, description)
    assert columns == {
        "name": {("in", "name"): {(DIRECT, "IDENTITY")}},
        "total": {("in", "v"): {(DIRECT, "AGGREGATION")}},
    }
    assert dataset == {("in", "name"): {(INDIRECT, "GROUP_BY")}}


def test_a_plan_string_spark_cut_short_is_counted() -> None:
    info = node(
        WRITE,
        f"{WRITE} file:/d/out, false, Parquet, [path=/d/out], Overwrite, [id, name]",
        node("Project", "Project [id#9, name#10, ... 30 more fields]", SCAN),
    )
    _, _, truncated = lineage(info)
    assert truncated == 1


def test_a_generate_outputs_the_kept_columns_then_the_generated_ones() -> None:
    generate = node(
        "Generate",
        "Generate explode(array(name#10, upper(name#10))), [id#9], false, [spelled#58]",
        SCAN,
    )
    write = node(WRITE, f"{WRITE} file:/d/out, false, Parquet, Overwrite, [id, spelled]", generate)
    columns, _, _ = lineage(write)
    assert columns == {
        "id": {("in", "id"): {(DIRECT, "IDENTITY")}},
        "spelled": {("in", "name"): {(DIRECT, "TRANSFORMATION")}},  # not `name` by position
    }


def test_an_expand_column_reads_that_column_of_every_projection() -> None:
    expand = node(
        "Expand",
        "Expand [[v#11, name#10, 0], [v#11, null, 1]], [v#11, name#48, spark_grouping_id#47L]",
        SCAN,
    )
    project = node("Project", "Project [name#48, spark_grouping_id#47L, v#11]", expand)
    write = node(WRITE, f"{WRITE} file:/d/out, false, Parquet, Overwrite, [n, g, v]", project)
    columns, _, _ = lineage(write)
    assert columns == {
        "n": {("in", "name"): {(DIRECT, "IDENTITY")}},
        "v": {("in", "v"): {(DIRECT, "IDENTITY")}},
    }


def _cached(*columns: str) -> dict[str, Any]:
    """An InMemoryTableScan of `columns` over the cached plan (the scan of id#9, name#10, v#11)."""
    scan = node("InMemoryTableScan", f"InMemoryTableScan [{', '.join(columns)}]", SCAN)
    return node(WRITE, f"{WRITE} file:/d/c, false, Parquet, [path=/d/c], Overwrite, [a, b]", scan)


def test_a_cached_scan_outputs_the_columns_it_names() -> None:
    # the cached plan outputs id, name, v: the scan's columns are its own, not the first two
    columns, _, _ = lineage(_cached("name#10", "v#11"))
    assert columns == {
        "a": {("in", "name"): {(DIRECT, "IDENTITY")}},
        "b": {("in", "v"): {(DIRECT, "IDENTITY")}},
    }


def test_a_cache_serving_another_query_maps_its_columns_by_name() -> None:
    # the cache matched a later query's plan: its columns have that query's ids, not the cached ones
    columns, _, _ = lineage(_cached("v#31", "id#29"))
    assert columns == {
        "a": {("in", "v"): {(DIRECT, "IDENTITY")}},
        "b": {("in", "id"): {(DIRECT, "IDENTITY")}},
    }


def _sorted(order: str, child: dict[str, Any], global_: str = "false") -> dict[str, Any]:
    return node(
        "Sort", f"Sort [{order}], {global_}, 0", node("InputAdapter", "InputAdapter", child)
    )


def test_the_sort_a_window_needs_is_not_the_user_s() -> None:
    window = "Window [sum(v#11) windowspecdefinition(name#10, id#9 ASC NULLS FIRST, " + (
        "specifiedwindowframe(RangeFrame, unboundedpreceding$(), currentrow$())) AS s#20], "
        "[name#10], [id#9 ASC NULLS FIRST]"
    )
    required = "name#10 ASC NULLS FIRST, id#9 ASC NULLS FIRST"

    def written(sort: dict[str, Any]) -> dict[str, Any]:
        plan = node("Project", "Project [id#9, s#20]", node("Window", window, sort))
        return node(
            WRITE, f"{WRITE} file:/d/w, false, Parquet, [path=/d/w], Overwrite, [a, b]", plan
        )

    columns, dataset, _ = lineage(written(_sorted(required, SCAN)))
    assert columns["b"] == {
        ("in", "v"): {(DIRECT, "AGGREGATION")},
        ("in", "name"): {(INDIRECT, "WINDOW")},
        ("in", "id"): {(INDIRECT, "WINDOW")},
    }
    assert dataset == {}  # the window's own sort: no SORT dependency
    # a sort of the whole data set (ORDER BY) under the window is the query's own
    _, dataset, _ = lineage(written(_sorted(required, SCAN, global_="true")))
    assert dataset == {("in", "name"): {(INDIRECT, "SORT")}, ("in", "id"): {(INDIRECT, "SORT")}}


def test_the_sorts_a_sort_merge_join_needs_are_not_the_user_s() -> None:
    other = node(
        "Scan parquet ",
        "FileScan parquet [k#40,w#41] Batched: true, Location: InMemoryFileIndex(1 paths)"
        "[file:/d/in], ReadSchema: struct<k:int,w:string>",
    )
    join = node(
        "SortMergeJoin",
        "SortMergeJoin [id#9], [k#40], Inner",
        _sorted("id#9 ASC NULLS FIRST", SCAN),
        _sorted("k#40 ASC NULLS FIRST", other),
    )
    plan = node("Project", "Project [name#10, w#41]", join)
    info = node(WRITE, f"{WRITE} file:/d/j, false, Parquet, [path=/d/j], Overwrite, [a, b]", plan)
    _, dataset, _ = lineage(info)
    assert dataset == {("in", "id"): {(INDIRECT, "JOIN")}, ("in", "k"): {(INDIRECT, "JOIN")}}


def test_if_s_predicate_is_conditional_in_nested_ifs() -> None:
    project = node(
        "Project",
        'Project [if ((v#11 > 2.0)) if (isnull(name#10)) "x else y" else name#10 else id#9 AS p#20]',
        SCAN,
    )
    info = node(WRITE, f"{WRITE} file:/d/i, false, Parquet, [path=/d/i], Overwrite, [p]", project)
    columns, _, _ = lineage(info)
    assert columns == {
        "p": {
            ("in", "v"): {(INDIRECT, "CONDITIONAL")},
            ("in", "name"): {(INDIRECT, "CONDITIONAL"), (DIRECT, "TRANSFORMATION")},
            ("in", "id"): {(DIRECT, "TRANSFORMATION")},
        }
    }


def _joined(join_type: str, null_aware: str = "false") -> dict[str, Any]:
    """orders (id, name, v) joined on id = k with others (k, w), each side under a Filter that
    checks its key for null (the optimizer's inferred filter) beside one of the query's own."""
    other = node(
        "Scan parquet ",
        "FileScan parquet [k#40,w#41] Batched: true, Location: InMemoryFileIndex(1 paths)"
        "[file:/d/in], ReadSchema: struct<k:int,w:string>",
    )
    left = node(
        "Project",
        "Project [id#9, name#10]",
        node("Filter", "Filter ((isnotnull(v#11) AND (v#11 > 2.0)) AND isnotnull(id#9))", SCAN),
    )
    right = node("Filter", "Filter isnotnull(k#40)", other)
    exchange = node("BroadcastExchange", "BroadcastExchange HashedRelationBroadcastMode", right)
    join = node(
        "BroadcastHashJoin",
        f"BroadcastHashJoin [id#9], [k#40], {join_type}, BuildRight, {null_aware}",
        left,
        exchange,
    )
    plan = node("Project", "Project [name#10]", join)
    return node(WRITE, f"{WRITE} file:/d/j, false, Parquet, [path=/d/j], Overwrite, [a]", plan)


def test_a_join_key_s_null_check_is_the_join_s_not_a_filter() -> None:
    _, dataset, _ = lineage(_joined("Inner"))
    assert dataset == {
        ("in", "id"): {(INDIRECT, "JOIN")},
        ("in", "k"): {(INDIRECT, "JOIN")},
        ("in", "v"): {(INDIRECT, "FILTER")},  # the query's own condition stays
    }
    # NOT IN runs as a null-aware anti join: a null key on its right empties the result, so a
    # null check there filters rows; a plain left anti join drops the right's null keys anyway
    _, dataset, _ = lineage(_joined("LeftAnti", null_aware="true"))
    assert dataset[("in", "k")] == {(INDIRECT, "JOIN"), (INDIRECT, "FILTER")}
    _, dataset, _ = lineage(_joined("LeftAnti"))
    assert dataset[("in", "k")] == {(INDIRECT, "JOIN")}
    # a left outer join keeps the left side's rows with a null key: that check filters rows
    _, dataset, _ = lineage(_joined("LeftOuter"))
    assert dataset == {
        ("in", "id"): {(INDIRECT, "JOIN"), (INDIRECT, "FILTER")},
        ("in", "k"): {(INDIRECT, "JOIN")},
        ("in", "v"): {(INDIRECT, "FILTER")},
    }


def test_a_scalar_subquery_s_value_comes_from_its_plan() -> None:
    # the subquery runs apart: a child of the operator whose expression uses it
    aggregate = node("SortAggregate", "SortAggregate(key=[], functions=[max(v#11)])", SCAN)
    subquery = node("Subquery", "Subquery subquery#30, [id=#7]", aggregate)
    project = node(
        "Project", "Project [id#9, Subquery subquery#30, [id=#7] AS top#31]", SCAN, subquery
    )
    info = node(
        WRITE, f"{WRITE} file:/d/s, false, Parquet, [path=/d/s], Overwrite, [a, b]", project
    )
    description = (
        "(3) SortAggregate\nInput [1]: [v#11]\nKeys: []\nFunctions [1]: [max(v#11)]\n"
        "Aggregate Attributes [1]: [max(v#11)#29]\nResults [1]: [max(v#11)#29 AS max(v)#32]\n"
    )
    columns, _, _ = lineage(info, description)
    assert columns == {
        "a": {("in", "id"): {(DIRECT, "IDENTITY")}},
        "b": {("in", "v"): {(DIRECT, "AGGREGATION")}},
    }


def test_a_sort_aggregate_groups_without_sorting_the_data_set() -> None:
    # SortAggregate prints `key=` (HashAggregate `keys=`) and sorts its rows by its keys first
    aggregate = node(
        "SortAggregate",
        "SortAggregate(key=[name#10], functions=[max(v#11)])",
        _sorted("name#10 ASC NULLS FIRST", SCAN),
    )
    info = node(
        WRITE, f"{WRITE} file:/d/g, false, Parquet, [path=/d/g], Overwrite, [a, b]", aggregate
    )
    description = (
        "(3) SortAggregate\nInput [2]: [name#10, v#11]\nKeys [1]: [name#10]\n"
        "Functions [1]: [max(v#11)]\nAggregate Attributes [1]: [max(v#11)#29]\n"
        "Results [2]: [name#10, max(v#11)#29 AS top#30]\n"
    )
    columns, dataset, _ = lineage(info, description)
    assert columns == {
        "a": {("in", "name"): {(DIRECT, "IDENTITY")}},
        "b": {("in", "v"): {(DIRECT, "AGGREGATION")}},
    }
    assert dataset == {("in", "name"): {(INDIRECT, "GROUP_BY")}}


def test_a_reused_subquery_is_told_from_the_one_it_reuses() -> None:
    aggregate = node("HashAggregate", "HashAggregate(keys=[], functions=[max(v#11)])", SCAN)
    first = node("Subquery", "Subquery subquery#30, [id=#7]", aggregate)
    reused = node("ReusedSubquery", "ReusedSubquery Subquery subquery#30, [id=#7]", aggregate)
    project = node(
        "Project",
        "Project [Subquery subquery#30, [id=#7] AS a#31, "
        "(ReusedSubquery Subquery subquery#30, [id=#7] + 1.0) AS b#32]",
        SCAN,
        first,
        reused,
    )
    info = node(
        WRITE, f"{WRITE} file:/d/s, false, Parquet, [path=/d/s], Overwrite, [a, b]", project
    )
    description = (
        "(3) HashAggregate\nInput [1]: [v#11]\nKeys: []\nFunctions [1]: [max(v#11)]\n"
        "Aggregate Attributes [1]: [max(v#11)#29]\nResults [1]: [max(v#11)#29 AS max(v)#33]\n"
    )
    columns, _, _ = lineage(info, description)
    assert columns == {
        "a": {("in", "v"): {(DIRECT, "AGGREGATION")}},
        "b": {("in", "v"): {(DIRECT, "AGGREGATION")}},  # max(v) + 1
    }
