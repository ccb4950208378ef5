"""Column-level lineage by following expression ids through an analyzed logical plan.

Every attribute in a Catalyst plan has an expression id. Walking the plan bottom-up, each new
id is mapped to the input fields it was computed from, with an OpenLineage transformation
(DIRECT IDENTITY/TRANSFORMATION/AGGREGATION, INDIRECT CONDITIONAL/WINDOW). Filters, join
conditions, grouping and sorting shape the whole output and are collected separately as
dataset-wide INDIRECT dependencies. This module is pure Python over `plan.Node` trees.

What each kind of node does is one handler in one of two tables, keyed by the node's simple
class name: `PLAN_HANDLERS` (plan nodes: return the node's output attributes) and
`EXPRESSION_HANDLERS` (expressions: add the input fields they read to `deps`). The names come
from `vocabulary`; a node of a kind absent from the tables passes its children's lineage on.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from plumbline.openlineage.confidence import PYTHON_UDF, RDD, UNHANDLED_NODE
from plumbline.spark import vocabulary as v
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
# how Spark's string of a long list ends when it was cut short (`maxToStringFields`)
TRUNCATED = re.compile(r"\.\.\. \d+ more fields?\]?$")
# the input fields one column of a source leaf reads (empty: the leaf reads no dataset)
SourceOf = Callable[[Node, str], Deps]


def _compose(outer: Transformation, inner: Transformation) -> Transformation:
    if outer[0] == INDIRECT:
        return outer
    if inner[0] == INDIRECT:
        return inner
    rank = max(_DIRECT_RANK[outer[1]], _DIRECT_RANK[inner[1]])
    return (DIRECT, [k for k, v in _DIRECT_RANK.items() if v == rank][0])


# compositions already worked out (a handful of pairs: the walk asks for them thousands of times)
_COMPOSED: dict[tuple[Transformation, Transformation], Transformation] = {}


def compose(outer: Transformation, inner: Transformation) -> Transformation:
    """The transformation of `outer(inner(x))`."""
    try:
        return _COMPOSED[outer, inner]
    except KeyError:
        found = _COMPOSED[outer, inner] = _compose(outer, inner)
        return found


def upgrade(mode: Transformation, subtype: str) -> Transformation:
    """`mode` applied through a DIRECT `subtype` step."""
    return compose(mode, (DIRECT, subtype))


def indirect(mode: Transformation, subtype: str) -> Transformation:
    """`mode` applied through an INDIRECT `subtype` step (the first INDIRECT step wins)."""
    return mode if mode[0] == INDIRECT else (INDIRECT, subtype)


def _merge(into: Deps, more: Deps) -> None:
    for key, transformations in more.items():
        into.setdefault(key, set()).update(transformations)


def _copy(deps: Deps) -> Deps:
    return {k: set(t) for k, t in deps.items()}


@dataclass
class LineageResult:
    """What the walk found: lineage of every output column and the dataset-wide dependencies."""

    columns: dict[str, Deps] = field(default_factory=dict)
    dataset: Deps = field(default_factory=dict)
    # why the lineage may miss columns or inputs, "<kind>: <detail>" (issue 31 §2)
    reasons: list[str] = field(default_factory=list)


# A plan handler gets the node and its children's outputs (walked already) and returns the
# node's output attributes; an expression handler adds what the expression reads to `deps`.
PlanHandler = Callable[["LineageWalker", Node, list[list[Node]]], list[Node]]
ExpressionHandler = Callable[["LineageWalker", Node, Transformation, Deps], None]
PLAN_HANDLERS: dict[str, PlanHandler] = {}
EXPRESSION_HANDLERS: dict[str, ExpressionHandler] = {}


def plan_kind(*names: Iterable[str]) -> Callable[[PlanHandler], PlanHandler]:
    """Register a plan handler for the class names in `names` (vocabulary groups)."""

    def register(handler: PlanHandler) -> PlanHandler:
        for group in names:
            for name in group:
                PLAN_HANDLERS[name] = handler
        return handler

    return register


def expression_kind(*names: Iterable[str]) -> Callable[[ExpressionHandler], ExpressionHandler]:
    """Register an expression handler for the class names in `names` (vocabulary groups)."""

    def register(handler: ExpressionHandler) -> ExpressionHandler:
        for group in names:
            for name in group:
                EXPRESSION_HANDLERS[name] = handler
        return handler

    return register


class LineageWalker:
    """Walks one analyzed plan; `source_of(leaf, column)` gives the input fields a source leaf's
    column reads (empty when the leaf reads no dataset)."""

    def __init__(self, source_of: SourceOf, *, unhandled: bool = True) -> None:
        """``unhandled``: name the plan nodes walked without a handler among the reasons
        (logical plans; event logs' physical operators pass through by the dozen)."""
        self.source_of = source_of
        self.lineage: dict[ExprId, Deps] = {}
        self.cte_outputs: dict[int, list[Node]] = {}
        self.dataset: Deps = {}
        self.reasons: dict[str, None] = {}  # in the order met
        self.unhandled = unhandled
        # whether a leaf reads datasets through code (an RDD's files): live capture knows
        self.opaque_leaf: Callable[[Node], bool] = lambda leaf: False

    def note(self, kind: str, detail: str) -> None:
        """Record why the lineage may be partial (a kind of ``plumbline.openlineage.confidence``)."""
        self.reasons.setdefault(f"{kind}: {detail}")

    # -- expressions -------------------------------------------------------------------------

    def expression_deps(self, expr: Node, mode: Transformation = (DIRECT, IDENTITY)) -> Deps:
        """Input fields an expression reads, with how it transforms them."""
        deps: Deps = {}
        self.visit(expr, mode, deps)
        return deps

    def visit(self, expr: Node, mode: Transformation, deps: Deps) -> None:
        """Add what `expr` reads, seen through `mode`, to `deps`."""
        EXPRESSION_HANDLERS.get(expr.name, _any_expression)(self, expr, mode, deps)

    def visit_children(self, expr: Node, mode: Transformation, deps: Deps) -> None:
        """Visit every child of `expr` with the same `mode`."""
        handlers = EXPRESSION_HANDLERS
        for child in expr.children:  # `visit`, inlined: the walk's most frequent call
            handlers.get(child.name, _any_expression)(self, child, mode, deps)

    def add_deps(self, deps: Deps, found: Deps, mode: Transformation) -> None:
        """Add `found`, seen through `mode`, to `deps`."""
        for key, transformations in found.items():
            seen = {compose(mode, t) for t in transformations}
            known = deps.get(key)
            if known is None:
                deps[key] = seen
            else:
                known.update(seen)

    def attribute_deps(self, attribute: Node) -> Deps:
        """Lineage of an output attribute (an Alias is looked up by its id, not re-walked)."""
        expr_id = attribute.expr_id()
        if expr_id is not None and expr_id in self.lineage:
            return _copy(self.lineage[expr_id])
        return self.expression_deps(attribute)

    def add_dataset(self, exprs: Iterable[Node], subtype: str) -> None:
        """Record what `exprs` read as dataset-wide INDIRECT `subtype` dependencies."""
        for expr in exprs:
            _merge(self.dataset, self.expression_deps(expr, (INDIRECT, subtype)))

    # -- plans -------------------------------------------------------------------------------

    def define(self, attribute: Node, deps: Deps) -> None:
        """Record the lineage of the attribute (or alias) `attribute` by its expression id."""
        expr_id = attribute.expr_id()
        if expr_id is not None:
            self.lineage[expr_id] = deps

    def project(self, exprs: list[Node]) -> list[Node]:
        """Define each computed expression of a projection list; the list is the output."""
        for expr in exprs:
            if expr.name != v.ATTRIBUTE_REFERENCE:  # an attribute passes through unchanged
                self.define(expr, self.expression_deps(expr))
        return exprs

    def walk(self, plan: Node) -> list[Node]:
        """Walk a plan bottom-up and return its output attributes (Attribute or Alias nodes)."""
        outputs = [self.walk(child) for child in plan.children]
        return PLAN_HANDLERS.get(plan.name, _any_plan)(self, plan, outputs)

    def query_lineage(self, query: Node, names: list[str] | None = None) -> LineageResult:
        """Lineage of each output column of `query` (named `names`, else by its attributes)."""
        output = self.walk(query)
        names = names or [str(a.fields.get("name")) for a in output]
        result = LineageResult(dataset=self.dataset, reasons=list(self.reasons))
        for name, attribute in zip(names, output, strict=False):
            deps = self.attribute_deps(attribute)
            if deps:
                result.columns[name] = deps
        return result


# -- the command a plan's root is -----------------------------------------------------------------


def write_query(root: Node) -> Node | None:
    """The query a write command writes: its child, or its `query` field (CREATE ... AS SELECT)."""
    if root.children:
        return root.children[0]
    queries = root.trees("query")
    return queries[0] if queries else None


def output_names(root: Node) -> list[str] | None:
    """The column names a write command gives its query's output (`outputColumnNames`).

    None when the plan has none, or when Spark cut the list short (`… 275 more fields`, past
    `spark.sql.debug.maxToStringFields`): the caller reads the full list from the JVM.
    """
    text = root.fields.get("outputColumnNames")
    if isinstance(text, list):
        return [str(name) for name in text]
    if not isinstance(text, str) or not text.startswith("[") or TRUNCATED.search(text):
        return None
    inner = text.strip()[1:-1]
    return [c.strip() for c in inner.split(",")] if inner.strip() else []


def column_lineage(root: Node, source_of: SourceOf, *, unhandled: bool = True) -> LineageResult:
    """Column lineage of the write command `root`: a pure function of its plan and sources
    (``unhandled``: see :class:`LineageWalker`)."""
    query = write_query(root)
    if query is None:
        return LineageResult()
    walker = LineageWalker(source_of, unhandled=unhandled)
    return walker.query_lineage(query, output_names(root))


# -- expression handlers ----------------------------------------------------------------------------


def _any_expression(walker: LineageWalker, expr: Node, mode: Transformation, deps: Deps) -> None:
    """A function of its children (`a + b`, `upper(a)`, a UDF...): DIRECT TRANSFORMATION."""
    walker.visit_children(expr, upgrade(mode, TRANSFORMATION), deps)


@expression_kind(v.PYTHON_UDFS)
def _python_udf(walker: LineageWalker, expr: Node, mode: Transformation, deps: Deps) -> None:
    """A Python UDF: a function of its arguments as far as lineage can tell (it may read more)."""
    walker.note(
        PYTHON_UDF,
        f"{expr.fields.get('name') or 'a Python UDF'} (inputs assumed from its arguments)",
    )
    _any_expression(walker, expr, mode, deps)


@expression_kind(v.ATTRIBUTES, {v.OUTER_REFERENCE})
def _attribute(walker: LineageWalker, expr: Node, mode: Transformation, deps: Deps) -> None:
    target = expr
    if expr.name == v.OUTER_REFERENCE:  # the outer attribute is its field `e`
        target = (expr.trees("e") or expr.children or [expr])[0]
    expr_id = target.expr_id()
    if expr_id is not None:
        walker.add_deps(deps, walker.lineage.get(expr_id, {}), mode)


@expression_kind(v.SUBQUERY_EXPRESSIONS)
def _subquery(walker: LineageWalker, expr: Node, mode: Transformation, deps: Deps) -> None:
    for plan in expr.trees("plan"):
        output = walker.walk(plan)
        for attribute in output[:1] if expr.name == v.SCALAR_SUBQUERY else output:
            walker.add_deps(deps, walker.attribute_deps(attribute), mode)
    # outer attributes of correlated subqueries
    walker.visit_children(expr, upgrade(mode, TRANSFORMATION), deps)


@expression_kind(v.ALIASES, v.IDENTITY_WRAPPERS)
def _alias(walker: LineageWalker, expr: Node, mode: Transformation, deps: Deps) -> None:
    walker.visit_children(expr, mode, deps)


@expression_kind(v.CASTS)
def _cast(walker: LineageWalker, expr: Node, mode: Transformation, deps: Deps) -> None:
    """A type conversion: TRANSFORMATION, unless it casts a column to the type it already has.

    Spark 3.5 wraps every column of `INSERT INTO` in a cast to the table's type, same type or
    not (`cast(order_id#1 as bigint)` of a bigint); 4.x leaves the same-type ones out. Such a
    cast changes nothing, so both lines give IDENTITY for it.
    """
    child = expr.children[0] if len(expr.children) == 1 else None
    same_type = (
        child is not None
        and child.name in v.ATTRIBUTES
        and child.fields.get("dataType") is not None
        and child.fields.get("dataType") == expr.fields.get("dataType")
    )
    walker.visit_children(expr, mode if same_type else upgrade(mode, TRANSFORMATION), deps)


@expression_kind(v.AGGREGATE_EXPRESSIONS)
def _aggregate(walker: LineageWalker, expr: Node, mode: Transformation, deps: Deps) -> None:
    walker.visit_children(expr, upgrade(mode, AGGREGATION), deps)


@expression_kind(v.WINDOW_EXPRESSIONS)
def _window_expression(walker: LineageWalker, expr: Node, mode: Transformation, deps: Deps) -> None:
    function, *spec = expr.children
    walker.visit(function, upgrade(mode, TRANSFORMATION), deps)
    for child in spec:
        walker.visit(child, indirect(mode, WINDOW), deps)


@expression_kind(v.CASE_WHENS)
def _case_when(walker: LineageWalker, expr: Node, mode: Transformation, deps: Deps) -> None:
    pairs = len(expr.children) // 2
    for index, child in enumerate(expr.children):
        is_condition = index < 2 * pairs and index % 2 == 0
        sub = indirect(mode, CONDITIONAL) if is_condition else upgrade(mode, TRANSFORMATION)
        walker.visit(child, sub, deps)


@expression_kind(v.IFS)
def _if(walker: LineageWalker, expr: Node, mode: Transformation, deps: Deps) -> None:
    predicate, *values = expr.children
    ids = {value.expr_id() if value.name in v.ATTRIBUTES else None for value in values}
    if len(values) == 2 and len(ids) == 1 and None not in ids:
        walker.visit(values[0], mode, deps)  # `if (c) x else x` (an UPDATE's unchanged column)
        return
    walker.visit(predicate, indirect(mode, CONDITIONAL), deps)
    for child in values:
        walker.visit(child, upgrade(mode, TRANSFORMATION), deps)


# -- plan handlers ----------------------------------------------------------------------------------


def _any_plan(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    """A node that adds no columns: its child's output (all children's, side by side)."""
    if walker.unhandled and plan.name not in v.PASS_THROUGH_PLANS:
        walker.note(UNHANDLED_NODE, plan.name)
    if len(outputs) > 1:
        return [a for out in outputs for a in out]
    return outputs[0] if outputs else []


def _first(outputs: list[list[Node]]) -> list[Node]:
    return outputs[0] if outputs else []


@plan_kind(v.LEAF_RELATIONS)
def _relation(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    if plan.name in v.RDD_RELATIONS and walker.opaque_leaf(plan):
        walker.note(RDD, "a DataFrame made from an RDD (its columns come from code)")
    attributes = plan.trees("output")
    for attribute in attributes:
        walker.define(attribute, walker.source_of(plan, str(attribute.fields.get("name"))))
    return attributes


@plan_kind(v.VIEWS)
def _view(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    """A persistent view (or a `CACHE TABLE … AS SELECT` table): its child's output.

    Spark reads a view through a projection of its own that casts each column to the view's
    schema (`cast(id#1 as bigint) AS id#2`); those casts are not the user's transformations, so a
    column the view only casts keeps the lineage of the column it reads (IDENTITY stays IDENTITY).
    """
    child = plan.children[0] if plan.children else None
    if child is not None and child.name in v.PROJECTS:
        for alias in child.trees("projectList"):
            inner = _view_cast_of(alias)
            if inner is not None:
                walker.define(alias, walker.attribute_deps(inner))
    return _first(outputs)


def _view_cast_of(expr: Node) -> Node | None:
    """The attribute under `cast(attribute) AS name`, the shape of a view's own projection."""
    if expr.name not in v.ALIASES or len(expr.children) != 1:
        return None
    cast = expr.children[0]
    if cast.name not in v.CASTS or len(cast.children) != 1:
        return None
    inner = cast.children[0]
    return inner if inner.name in v.ATTRIBUTES else None


@plan_kind(v.PROJECTS)
def _project(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    return walker.project(plan.trees("projectList"))


# a collapsed chain's transformation codes (`code & 1`): java/PlumblinePlanJson.java's `chain`
_CHAIN_MODES: tuple[Transformation, Transformation] = ((DIRECT, IDENTITY), (DIRECT, TRANSFORMATION))


@plan_kind({v.PROJECT_CHAIN})
def _project_chain(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    """Projections the compact reader collapsed (`plan_reader.read_plan(collapse=True)`).

    The JVM followed the chain as `_project` would, down to the attributes of the plan under it
    (`bases`); each output attribute the chain computes lists those it reads, with how
    (`2 * base index + 0 IDENTITY | 1 TRANSFORMATION`), and gets their lineage composed with that
    (`compose` is associative, so this is the lineage walking each projection gives).
    """
    output = plan.trees("output")
    bases: list[ExprId] = [(int(i), str(j)) for i, j in plan.fields.get("bases") or []]
    lineage = walker.lineage
    found: list[tuple[Node, Deps]] = []
    for attribute, codes in zip(output, plan.fields.get("lineage") or [], strict=True):
        if codes is None:  # an attribute of the plan below, passed through
            continue
        deps: Deps = {}
        for code in codes:
            walker.add_deps(deps, lineage.get(bases[code >> 1], {}), _CHAIN_MODES[code & 1])
        found.append((attribute, deps))
    for attribute, deps in found:
        walker.define(attribute, deps)
    return output


@plan_kind(v.AGGREGATES)
def _aggregate_plan(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    walker.add_dataset(plan.trees("groupingExpressions"), GROUP_BY)
    return walker.project(plan.trees("aggregateExpressions"))


@plan_kind(v.FILTERS)
def _filter(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    walker.add_dataset(plan.trees("condition"), FILTER)
    return _first(outputs)


@plan_kind(v.JOINS)
def _join(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    walker.add_dataset(plan.trees("condition"), JOIN)
    join_type = str(plan.fields.get("joinType", ""))
    if any(kind in join_type for kind in v.LEFT_ONLY_JOIN_TYPES):
        return _first(outputs)
    return [a for out in outputs for a in out]


@plan_kind(v.SORTS)
def _sort(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    walker.add_dataset(plan.trees("order"), SORT)
    return _first(outputs)


@plan_kind(v.DISTINCTS, v.DEDUPLICATES)
def _distinct(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    """DISTINCT and dropDuplicates: the rows are grouped by every column (by `keys`), as Spark
    runs them (an aggregate), so what they group by is a dataset-wide INDIRECT GROUP_BY per the
    column lineage facet; the columns pass through."""
    keys = plan.trees("keys") if plan.name in v.DEDUPLICATES else []
    walker.add_dataset(keys or _first(outputs), GROUP_BY)
    return _first(outputs)


@plan_kind(v.WINDOWS)
def _window(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    return _first(outputs) + walker.project(plan.trees("windowExpressions"))


@plan_kind(v.GENERATES)
def _generate(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    generator_deps: Deps = {}
    for generator in plan.trees("generator"):
        generator_deps = walker.expression_deps(generator)
    generated = plan.trees("generatorOutput")
    for attribute in generated:
        walker.define(attribute, _copy(generator_deps))
    return _first(outputs) + generated


@plan_kind(v.UNIONS)
def _union(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    if not outputs:
        return []
    for position, attribute in enumerate(outputs[0]):
        merged: Deps = {}
        for out in outputs:
            if position < len(out):
                _merge(merged, walker.attribute_deps(out[position]))
        walker.define(attribute, merged)
    return outputs[0]


@plan_kind(v.EXPANDS)
def _expand(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    output = plan.trees("output")
    projections = plan.fields.get("projections") or []
    for position, attribute in enumerate(output):
        merged: Deps = {}
        for projection in projections:
            exprs = projection if isinstance(projection, list) else [projection]
            if position < len(exprs) and isinstance(exprs[position], Node):
                _merge(merged, walker.expression_deps(exprs[position]))
        walker.define(attribute, merged)
    return output or _first(outputs)


@plan_kind(v.LEFT_SET_OPERATIONS)
def _left_set_operation(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    """INTERSECT / EXCEPT output the left side's rows, kept or dropped by comparing all their
    columns with the right side's (Spark runs them as a left semi / anti join on every column):
    every column of both sides is a dataset-wide JOIN dependency; without ALL the rows are also
    made distinct, a GROUP_BY on the left side's columns."""
    walker.add_dataset([a for out in outputs for a in out], JOIN)
    if str(plan.fields.get("isAll", False)).lower() != "true":
        walker.add_dataset(_first(outputs), GROUP_BY)
    return _first(outputs)


@plan_kind(v.CTE_DEFINITIONS)
def _cte_definition(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    walker.cte_outputs[int(plan.fields.get("id", -1))] = _first(outputs)
    return _first(outputs)


@plan_kind(v.CTE_REFERENCES)
def _cte_reference(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    attributes = plan.trees("output")
    definition = walker.cte_outputs.get(int(plan.fields.get("cteId", -1)), [])
    for attribute, source in zip(attributes, definition, strict=False):
        if attribute.expr_id() != source.expr_id():
            walker.define(attribute, walker.attribute_deps(source))
    return attributes


@plan_kind(v.WITH_CTES)
def _with_cte(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    return outputs[-1] if outputs else []


@plan_kind(v.LATERAL_JOINS)
def _lateral_join(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    walker.add_dataset(plan.trees("condition"), JOIN)
    lateral: list[Node] = []
    for subquery in plan.trees("right"):
        for query in subquery.trees("plan"):
            lateral = walker.walk(query)  # its outer references are the left side's columns
    return _first(outputs) + lateral


@plan_kind(v.PYTHON_PLANS)
def _python_plan(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    """mapInPandas and its kin: new columns computed by Python code from whole rows."""
    walker.note(PYTHON_UDF, f"{plan.name} (its output columns come from Python code)")
    return plan.trees("output")


@plan_kind(v.PYTHON_EVALS)
def _python_eval(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    results = plan.trees("resultAttrs")
    for udf, attribute in zip(plan.trees("udfs"), results, strict=False):
        walker.define(attribute, walker.expression_deps(udf))
    return _first(outputs) + results


@plan_kind(v.CACHED_SCANS)
def _cached_scan(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    """A scan of cached data (event logs): the columns it names, of the cached plan under it.

    A cache serves every query whose plan matches the cached one, under that query's own
    expression ids: a column the cached plan does not output by id is its column of that name.
    """
    attributes = plan.trees("output")
    below = _first(outputs)
    known = {a.expr_id() for a in below}
    by_name: dict[str, list[Node]] = {}
    for attribute in below:
        by_name.setdefault(str(attribute.fields.get("name")), []).append(attribute)
    for attribute in attributes:
        same = by_name.get(str(attribute.fields.get("name")), [])
        if attribute.expr_id() not in known and len(same) == 1:
            walker.define(attribute, walker.attribute_deps(same[0]))
    return attributes


@plan_kind(v.MERGE_ROWS)
def _merge_rows(walker: LineageWalker, plan: Node, outputs: list[list[Node]]) -> list[Node]:
    """A MERGE's rows (Spark's row-level rewrite): output column i takes column i of every kept
    instruction's output; a clause's condition is INDIRECT CONDITIONAL on the columns the clause
    changes (not on a target column it keeps as it is), a DELETE clause's condition a dataset-wide
    INDIRECT FILTER (the merge condition is the join's, below)."""
    output = plan.trees("output")
    target = _target_ids(plan)
    columns: list[Deps] = [{} for _ in output]
    for clauses in v.MERGE_ROWS_INSTRUCTIONS:
        for instruction in plan.trees(clauses):
            if not instruction.children:
                continue
            condition, *values = instruction.children
            if instruction.name in v.MERGE_ROWS_DISCARD:
                walker.add_dataset([condition], FILTER)
                continue
            if instruction.name not in v.MERGE_ROWS_KEEP | v.MERGE_ROWS_SPLIT or not output:
                continue
            shaped = walker.expression_deps(condition, (INDIRECT, CONDITIONAL))
            for position, value in enumerate(values):
                column = position % len(output)
                _merge(columns[column], walker.expression_deps(value))
                kept = value.name in v.ATTRIBUTES and value.expr_id() in target
                if not (kept and value.fields.get("name") == output[column].fields.get("name")):
                    _merge(columns[column], _copy(shaped))
    for attribute, deps in zip(output, columns, strict=True):
        walker.define(attribute, deps)
    return output


def _target_ids(plan: Node) -> set[ExprId | None]:
    """The target table's columns under a MergeRows (the join's first side, down to its relation)."""
    node = plan
    while node.children and node.name not in v.LEAF_RELATIONS:
        node = node.children[0]
    return {a.expr_id() for a in node.trees("output")}
