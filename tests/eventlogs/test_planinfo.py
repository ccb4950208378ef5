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
