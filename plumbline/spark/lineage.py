"""Column-level lineage by following expression ids through an analyzed logical plan.

Every attribute in a Catalyst plan has an expression id. Walking the plan bottom-up, each new
id is mapped to the input fields it was computed from, with an OpenLineage transformation
(DIRECT IDENTITY/TRANSFORMATION/AGGREGATION, INDIRECT CONDITIONAL/WINDOW). Filters, join
conditions, grouping and sorting shape the whole output and are collected separately as
dataset-wide INDIRECT dependencies. This module is pure Python over `plan.Node` trees.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from plumbline.spark.plan import ExprId, Node

log = logging.getLogger(__name__)

DIRECT, INDIRECT = "DIRECT", "INDIRECT"
IDENTITY, TRANSFORMATION, AGGREGATION = "IDENTITY", "TRANSFORMATION", "AGGREGATION"
JOIN, GROUP_BY, FILTER, SORT, WINDOW, CONDITIONAL = (
    "JOIN",
    "GROUP_BY",
    "FILTER",
    "SORT",
    "WINDOW",
    "CONDITIONAL",
)
_DIRECT_RANK = {IDENTITY: 0, TRANSFORMATION: 1, AGGREGATION: 2}

Transformation = tuple[str, str]  # (type, subtype)
InputField = tuple[str, str]  # (dataset key, field name)
Deps = dict[InputField, set[Transformation]]

# Leaves whose `output` attributes are the plan's sources.
_SOURCE_LEAVES = {
    "LogicalRelation",
    "LogicalRDD",
    "LocalRelation",
    "HiveTableRelation",
    "DataSourceV2Relation",
    "DataSourceV2ScanRelation",
    "InMemoryRelation",
    "Range",
    "OneRowRelation",
    "ExternalRDD",
}
_PLAN_EXPRESSIONS = {"ScalarSubquery", "Exists", "ListQuery", "LateralSubquery"}
_AGGREGATE_FUNCTIONS = {"AggregateExpression"}


def compose(outer: Transformation, inner: Transformation) -> Transformation:
    """The transformation of `outer(inner(x))`."""
    if outer[0] == INDIRECT:
        return outer
    if inner[0] == INDIRECT:
        return inner
    rank = max(_DIRECT_RANK[outer[1]], _DIRECT_RANK[inner[1]])
    return (DIRECT, [k for k, v in _DIRECT_RANK.items() if v == rank][0])


def _merge(into: Deps, more: Deps) -> None:
    for key, transformations in more.items():
        into.setdefault(key, set()).update(transformations)


@dataclass
class LineageResult:
    """What the walk found: lineage of every output column and the dataset-wide dependencies."""

    columns: dict[str, Deps] = field(default_factory=dict)
    dataset: Deps = field(default_factory=dict)


class LineageWalker:
    """Walks one analyzed plan; `source_of(leaf)` names the dataset a leaf reads (or None)."""

    def __init__(self, source_of: Callable[[Node], str | None]) -> None:
        self._source_of = source_of
        self.lineage: dict[ExprId, Deps] = {}
        self._cte_outputs: dict[int, list[Node]] = {}
        self.dataset: Deps = {}

    # -- expressions -------------------------------------------------------------------------

    def expression_deps(self, expr: Node, mode: Transformation = (DIRECT, IDENTITY)) -> Deps:
        """Input fields an expression reads, with how it transforms them."""
        deps: Deps = {}
        self._visit(expr, mode, deps)
        return deps

    def _visit(self, expr: Node, mode: Transformation, deps: Deps) -> None:
        name = expr.name
        if name in ("AttributeReference", "OuterReference", "PrettyAttribute"):
            target = expr if name != "OuterReference" else (expr.children or [expr])[0]
            expr_id = target.expr_id()
            for key, transformations in self.lineage.get(expr_id, {}).items() if expr_id else ():
                deps.setdefault(key, set()).update(compose(mode, t) for t in transformations)
            return
        if name in _PLAN_EXPRESSIONS:
            self._visit_subquery(expr, mode, deps)
            for child in expr.children:  # outer attributes of correlated subqueries
                self._visit(child, self._upgrade(mode, TRANSFORMATION), deps)
            return
        if name == "Alias":
            for child in expr.children:
                self._visit(child, mode, deps)
            return
        if name in _AGGREGATE_FUNCTIONS:
            for child in expr.children:
                self._visit(child, self._upgrade(mode, AGGREGATION), deps)
            return
        if name == "WindowExpression":
            function, *spec = expr.children
            self._visit(function, self._upgrade(mode, TRANSFORMATION), deps)
            for child in spec:
                self._visit(child, self._indirect(mode, WINDOW), deps)
            return
        if name == "CaseWhen":
            pairs = len(expr.children) // 2
            for index, child in enumerate(expr.children):
                is_condition = index < 2 * pairs and index % 2 == 0
                sub = (
                    self._indirect(mode, CONDITIONAL)
                    if is_condition
                    else self._upgrade(mode, TRANSFORMATION)
                )
                self._visit(child, sub, deps)
            return
        if name == "If":
            predicate, *values = expr.children
            self._visit(predicate, self._indirect(mode, CONDITIONAL), deps)
            for child in values:
                self._visit(child, self._upgrade(mode, TRANSFORMATION), deps)
            return
        for child in expr.children:
            self._visit(child, self._upgrade(mode, TRANSFORMATION), deps)

    @staticmethod
    def _upgrade(mode: Transformation, subtype: str) -> Transformation:
        return compose(mode, (DIRECT, subtype))

    @staticmethod
    def _indirect(mode: Transformation, subtype: str) -> Transformation:
        return mode if mode[0] == INDIRECT else (INDIRECT, subtype)

    def _visit_subquery(self, expr: Node, mode: Transformation, deps: Deps) -> None:
        for plan in expr.trees("plan"):
            output = self.walk(plan)
            for attribute in output[:1] if expr.name == "ScalarSubquery" else output:
                for key, transformations in self.attribute_deps(attribute).items():
                    deps.setdefault(key, set()).update(compose(mode, t) for t in transformations)

    def attribute_deps(self, attribute: Node) -> Deps:
        """Lineage of an output attribute (an Alias is looked up by its id, not re-walked)."""
        expr_id = attribute.expr_id()
        if expr_id is not None and expr_id in self.lineage:
            return {k: set(v) for k, v in self.lineage[expr_id].items()}
        return self.expression_deps(attribute)

    def _add_dataset(self, exprs: Iterable[Node], subtype: str) -> None:
        for expr in exprs:
            _merge(self.dataset, self.expression_deps(expr, (INDIRECT, subtype)))

    # -- plans -------------------------------------------------------------------------------

    def _define(self, attribute: Node, deps: Deps) -> None:
        expr_id = attribute.expr_id()
        if expr_id is not None:
            self.lineage[expr_id] = deps

    def _project(self, exprs: list[Node]) -> list[Node]:
        for expr in exprs:
            if expr.name != "AttributeReference":  # an attribute passes through unchanged
                self._define(expr, self.expression_deps(expr))
        return exprs

    def walk(self, plan: Node) -> list[Node]:
        """Walk a plan bottom-up and return its output attributes (Attribute or Alias nodes)."""
        outputs = [self.walk(child) for child in plan.children]
        name = plan.name
        first = outputs[0] if outputs else []
        if name in _SOURCE_LEAVES:
            attributes = plan.trees("output")
            source = self._source_of(plan)
            for attribute in attributes:
                column = str(attribute.fields.get("name"))
                self._define(attribute, {(source, column): {(DIRECT, IDENTITY)}} if source else {})
            return attributes
        if name == "Project":
            return self._project(plan.trees("projectList"))
        if name == "Aggregate":
            self._add_dataset(plan.trees("groupingExpressions"), GROUP_BY)
            return self._project(plan.trees("aggregateExpressions"))
        if name == "Filter":
            self._add_dataset(plan.trees("condition"), FILTER)
            return first
        if name == "Join":
            self._add_dataset(plan.trees("condition"), JOIN)
            join_type = str(plan.fields.get("joinType", ""))
            if "LeftSemi" in join_type or "LeftAnti" in join_type:
                return first
            return [a for out in outputs for a in out]
        if name == "Sort":
            self._add_dataset(plan.trees("order"), SORT)
            return first
        if name == "Window":
            return first + self._project(plan.trees("windowExpressions"))
        if name == "Generate":
            generator_deps: Deps = {}
            for generator in plan.trees("generator"):
                generator_deps = self.expression_deps(generator)
            generated = plan.trees("generatorOutput")
            for attribute in generated:
                self._define(attribute, {k: set(v) for k, v in generator_deps.items()})
            return first + generated
        if name in ("Union",):
            return self._union(outputs)
        if name == "Expand":
            return self._expand(plan, first)
        if name == "CTERelationDef":
            self._cte_outputs[int(plan.fields.get("id", -1))] = first
            return first
        if name == "CTERelationRef":
            return self._cte_ref(plan)
        if name == "WithCTE":
            return outputs[-1] if outputs else []
        if len(outputs) > 1 and name not in ("Intersect", "Except"):
            return [a for out in outputs for a in out]
        return first

    def _union(self, outputs: list[list[Node]]) -> list[Node]:
        if not outputs:
            return []
        for position, attribute in enumerate(outputs[0]):
            merged: Deps = {}
            for out in outputs:
                if position < len(out):
                    _merge(merged, self.attribute_deps(out[position]))
            self._define(attribute, merged)
        return outputs[0]

    def _expand(self, plan: Node, child_output: list[Node]) -> list[Node]:
        output = plan.trees("output")
        projections = plan.fields.get("projections") or []
        for position, attribute in enumerate(output):
            merged: Deps = {}
            for projection in projections:
                exprs = projection if isinstance(projection, list) else [projection]
                if position < len(exprs) and isinstance(exprs[position], Node):
                    _merge(merged, self.expression_deps(exprs[position]))
            self._define(attribute, merged)
        return output or child_output

    def _cte_ref(self, plan: Node) -> list[Node]:
        attributes = plan.trees("output")
        definition = self._cte_outputs.get(int(plan.fields.get("cteId", -1)), [])
        for attribute, source in zip(attributes, definition, strict=False):
            if attribute.expr_id() != source.expr_id():
                self._define(attribute, self.attribute_deps(source))
        return attributes
