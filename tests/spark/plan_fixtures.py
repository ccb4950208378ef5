"""Recorded plans (tests/golden/plans/<spark line>/<scenario>.json) and `assert_column_lineage`.

The fixtures are written by scripts/record_plans.py from real Spark; these helpers read them
and run the lineage walker on them without a JVM.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from plumbline.spark.jvm import leaf_paths
from plumbline.spark.lineage import Deps, LineageResult, SourceOf, column_lineage
from plumbline.spark.plan import Node
from plumbline.spark.vocabulary import DATASET_RELATIONS

PLANS = Path(__file__).resolve().parents[1] / "golden" / "plans"
FORMAT = 1  # scripts/record_plans.py's FORMAT
SPARK_LINES = sorted(p.name for p in PLANS.iterdir() if p.is_dir())


@dataclass
class RecordedPlan:
    """One recorded write command's plan and the input fields of its relation leaves' columns."""

    scenario: str
    spark: str
    root: Node
    # leaf path (`c0/s1/q0`) -> leaf column -> {"dataset.field": "TYPE SUBTYPE[, ...]"}
    sources: dict[str, dict[str, dict[str, str]]]

    def source_of(self) -> SourceOf:
        """The walker's `source_of`: a relation leaf column's input fields, as recorded."""
        by_leaf = {}
        for leaf, path in leaf_paths(self.root, DATASET_RELATIONS):
            text = "/".join(f"{kind}{index}" for kind, index in path)
            by_leaf[id(leaf)] = self.sources.get(text, {})

        def source_of(leaf: Node, column: str) -> Deps:
            return _deps(by_leaf.get(id(leaf), {}).get(column, {}))

        return source_of

    def lineage(self) -> LineageResult:
        """Column lineage of the plan, walked as live capture walks it."""
        return column_lineage(self.root, self.source_of())


def _deps(fields: dict[str, str]) -> Deps:
    """`{"orders.amount": "DIRECT IDENTITY"}` as the walker's Deps."""
    deps: Deps = {}
    for name, how in fields.items():
        dataset, column = name.rsplit(".", 1)
        for transformation in how.split(", "):
            kind, subtype = transformation.split(" ")
            deps.setdefault((dataset, column), set()).add((kind, subtype))
    return deps


def load_plan(scenario: str, spark_line: str, stage: str = "analyzed") -> RecordedPlan:
    """The recorded `stage` plan (`analyzed` or `optimized`) of a scenario on a Spark line."""
    document: dict[str, Any] = json.loads((PLANS / spark_line / f"{scenario}.json").read_text())
    assert document["format"] == FORMAT, "recorded by another scripts/record_plans.py: record again"
    recorded = document[stage]
    return RecordedPlan(
        scenario, document["spark"], Node.from_json(recorded["plan"]), recorded["sources"]
    )


def _text(deps: Deps) -> dict[str, str]:
    return {
        f"{dataset}.{column}": ", ".join(sorted(f"{t} {s}" for t, s in transformations))
        for (dataset, column), transformations in sorted(deps.items())
    }


def lineage_text(result: LineageResult) -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """Columns and dataset-wide dependencies as `{"orders.amount": "DIRECT AGGREGATION"}`."""
    return {c: _text(d) for c, d in result.columns.items()}, _text(result.dataset)


def _show(columns: dict[str, dict[str, str]], dataset: dict[str, str]) -> str:
    lines = [f"  {c} <- {f}: {t}" for c, fields in columns.items() for f, t in fields.items()]
    lines += [f"  (dataset) {f}: {t}" for f, t in dataset.items()]
    return "\n".join(lines) or "  (nothing)"


def assert_column_lineage(
    plan: RecordedPlan,
    expected: dict[str, dict[str, str]],
    dataset: dict[str, str] | None = None,
) -> None:
    """The plan's column lineage is `expected` (and its dataset-wide dependencies `dataset`).

    Both read `{"output column": {"dataset.field": "TYPE SUBTYPE[, TYPE SUBTYPE]"}}`; on a
    mismatch both sides are printed, one edge a line.
    """
    columns, actual_dataset = lineage_text(plan.lineage())
    expected_dataset = dataset or {}
    if columns != expected or actual_dataset != expected_dataset:
        raise AssertionError(
            f"column lineage of {plan.scenario} (Spark {plan.spark}):\n"
            f"expected:\n{_show(expected, expected_dataset)}\n"
            f"actual:\n{_show(columns, actual_dataset)}"
        )
