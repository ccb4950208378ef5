"""An event log's `sparkPlanInfo` (a physical plan) as `plan.Node` trees the lineage walker reads.

The log keeps each physical operator as `nodeName`, `simpleString`, `metadata`, `metrics` and
`children`; expressions only as strings (parsed by `expressions`). Each operator the walker needs
becomes the logical node of the same meaning (`Project`, `Filter`, `Aggregate`, `Join`, `Sort`,
`Window`, `Union`, a relation leaf with its `output`), the write at the top becomes a node named
after its command (`InsertIntoHadoopFsRelationCommand`...) with `outputColumnNames`; operators that
do not change columns (exchanges, code generation, adaptive stages, `WriteFiles`) keep only their
children, which the walker passes through. A physical aggregate's string leaves out which output
attribute holds which function's result: that is read from the formatted plan description
(`Aggregate Attributes`, `Results`), matched by its keys and functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from plumbline.eventlogs.expressions import attribute, enclosed, parse, parse_list, split_top
from plumbline.spark.surface import TRUNCATED, Node
from plumbline.spark.surface import vocabulary as v

_JOIN_TYPES = re.compile(
    r"^(Inner|Cross|LeftOuter|RightOuter|FullOuter|LeftSemi|LeftAnti|"
    r"ExistenceJoin\(.*\))$"
)
_SECTION = re.compile(r"^\((\d+)\) (.+?)(?: \[codegen id : \d+\])?$")
_DESCRIPTION_CUT = re.compile(r"\.\.\. \d+ more (fields|characters)|Truncated plan of \d+")
_FORMATS = {"parquet", "json", "csv", "orc", "text", "avro", "delta", "iceberg", "hive"}
MODES = v.SAVE_MODES


@dataclass
class Scan:
    """What one scan operator reads: locations, format, read schema, table, metric ids."""

    locations: list[str]
    file_format: str | None
    schema: list[dict[str, Any]]
    table: tuple[str | None, str] | None
    metrics: dict[str, int]  # metric name -> accumulator id
    truncated: bool = False  # the location list was cut short
    v2_table: list[str] | None = None  # a `BatchScan catalog.db.tbl`'s identifier parts


@dataclass
class Write:
    """The write command at the top of a plan, from its string."""

    command: str
    arguments: list[str]
    metrics: dict[str, int]


@dataclass
class ConvertedPlan:
    """A plan as nodes: the root (a write command node, if the plan writes), its scans, and how
    much of it the log had cut short."""

    root: Node
    write: Write | None
    scans: dict[int, Scan] = field(default_factory=dict)  # by id() of the relation leaf node
    truncated_nodes: int = 0


def sections(description: str) -> list[tuple[str, dict[str, str]]]:
    """The formatted plan description's operator sections: (operator name, {key: value})."""
    found: list[tuple[str, dict[str, str]]] = []
    current: dict[str, str] | None = None
    for line in description.splitlines():
        header = _SECTION.match(line)
        if header is not None:
            current = {}
            found.append((header.group(2).strip(), current))
            continue
        if current is not None and ": " in line:
            key, _, value = line.partition(": ")
            current[re.sub(r" \[\d+\]$", "", key.strip())] = value.strip()
        elif not line.strip():
            current = None
    return found


def description_truncated(description: str) -> bool:
    """Whether Spark cut the plan description short (long plans, many fields)."""
    return bool(_DESCRIPTION_CUT.search(description))


def walk_info(info: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A sparkPlanInfo node and its descendants, pre-order."""
    yield info
    for child in info.get("children") or []:
        yield from walk_info(child)


def metric_ids(info: dict[str, Any]) -> dict[str, int]:
    """A node's SQL metrics: display name -> accumulator id."""
    return {
        str(m.get("name")): int(m["accumulatorId"])
        for m in info.get("metrics") or []
        if "accumulatorId" in m
    }


def io_metric_ids(info: dict[str, Any]) -> list[int]:
    """The accumulator ids of the metrics of a plan's write and scan operators."""
    found: list[int] = []
    for node in walk_info(info):
        name = str(node.get("nodeName", "")).strip()
        text = str(node.get("simpleString", ""))
        if name.startswith(
            (v.V1_WRITE_EXEC_PREFIX, *v.V2_WRITE_EXECS, *v.SCAN_EXEC_PREFIXES)
        ) or text.startswith(v.FILE_SCAN_STRING):
            found += metric_ids(node).values()
    return found


class _Converter:
    def __init__(self, description: str) -> None:
        self.aggregates: dict[tuple[str, str], dict[str, str]] = {}
        for name, values in sections(description):
            if name in v.AGGREGATE_EXECS and "Keys" in values and "Functions" in values:
                self.aggregates[(values["Keys"], values["Functions"])] = values
        self.scans: dict[int, Scan] = {}
        self.truncated = 0
        # the order of each partition-local sort (`Sort [...], false`): the planner's, when an
        # operator above needs its rows in that order (a window, a sort-merge join)
        self.local_sorts: dict[int, list[str]] = {}
        self.filters: dict[int, str] = {}  # each Filter's condition, as the plan string gives it

    def convert(self, info: dict[str, Any]) -> Node:
        children = [self.convert(child) for child in info.get("children") or []]
        name = str(info.get("nodeName", "")).strip()
        text = str(info.get("simpleString", ""))
        if TRUNCATED.search(text.split(", ", 1)[0]) or "more fields" in text:
            self.truncated += 1
        body = text[len(name) :].strip() if text.startswith(name) else text
        if name.startswith(v.V1_WRITE_EXEC_PREFIX):
            command = name[len(v.V1_WRITE_EXEC_PREFIX) :].strip()
            args = split_top(body)
            node = Node(command, {"arguments": args}, children)
            if args and args[-1].startswith("[") and "=" not in args[-1]:
                node.fields["outputColumnNames"] = args[-1]
            return node
        if name.startswith(v.V2_WRITE_EXECS) or name in v.LOGGED_DDL:
            return Node(v2_command(name), {"arguments": split_top(body)}, children)
        if name in v.LOCAL_SCAN_EXECS or name.startswith(v.LOCAL_SCAN_PREFIXES):
            return Node(v.LOCAL_RELATION, {"output": _bracketed_attributes(text)}, [])
        if name.startswith(v.SCAN_EXEC_PREFIXES) or text.startswith(v.FILE_SCAN_STRING):
            return self._scan(info, text)
        if name == v.CACHED_SCAN:  # the columns it reads of the cached plan (its child)
            return Node(v.CACHED_SCAN, {"output": _bracketed_attributes(text)}, children)
        if name == v.PROJECT:
            children, found = _with_subqueries(info, body, children)
            return Node(v.PROJECT, {"projectList": found(parse_list)}, children)
        if name == v.FILTER:
            children, found = _with_subqueries(info, body, children)
            node = Node(v.FILTER, {"condition": found(parse)}, children)
            self.filters[id(node)] = body
            return node
        if name in v.AGGREGATE_EXECS:
            return self._aggregate(name, body, children)
        if name in v.JOIN_EXECS:
            return self._join(name, body, children)
        if name in v.SORT_EXECS:
            args = split_top(body)
            node = Node(v.SORT, {"order": parse_list(args[0]) if args else []}, children)
            if name == v.SORT and len(args) > 1 and args[1] == "false":
                self.local_sorts[id(node)] = _items(args[0])
            return node
        if name == v.WINDOW:
            args = split_top(body)
            if len(args) >= 3:  # sorted by its partition keys, then its order
                order = [f"{key} {v.ASCENDING}" for key in _items(args[1])] + _items(args[2])
                children = [self._unsorted(child, order) for child in children]
            return Node(
                v.WINDOW, {"windowExpressions": parse_list(args[0]) if args else []}, children
            )
        if name in v.PYTHON_EVALS:
            return _python_eval(name, body, children)
        if name == v.UNION:
            return Node(v.UNION, {}, children)
        if name == v.EXPAND:
            return _expand(body, children)
        if name == v.GENERATE:
            return _generate(body, children)
        return Node(name or "Unknown", {}, children)

    def _scan(self, info: dict[str, Any], text: str) -> Node:
        meta = {str(k): str(v) for k, v in (info.get("metadata") or {}).items()}
        head = text.split("[", 1)[0].split()
        table = _table_name(head[2]) if len(head) > 2 else None
        location = meta.get("Location", "")
        paths_text = (
            location[location.find("[") + 1 : location.rfind("]")] if "[" in location else ""
        )
        paths = [p.strip() for p in paths_text.split(",") if p.strip() and p.strip() != "..."]
        scan = Scan(
            locations=paths,
            file_format=(meta.get("Format") or (head[1] if len(head) > 1 else "")).lower() or None,
            schema=struct_fields(meta.get("ReadSchema", "")),
            table=table,
            metrics=metric_ids(info),
            truncated="..." in paths_text,
        )
        if head[:1] == [v.V2_BATCH_SCAN] and len(head) == 2:  # a V2 table (Iceberg's) by name
            scan.v2_table = [p.strip("`") for p in head[1].split(".")]
            scan.file_format, scan.table = None, None
        node = Node(v.LOGICAL_RELATION, {"output": _bracketed_attributes(text)}, [])
        self.scans[id(node)] = scan
        return node

    def _aggregate(self, name: str, body: str, children: list[Node]) -> Node:
        # `HashAggregate(keys=[...], ...)`, `SortAggregate(key=[...], ...)`
        match = re.match(
            r"^\(keys?=(\[.*?\]), functions=(\[.*\])(?:, output=(\[.*\]))?\)$", body, re.S
        )
        if match is None:
            return Node(v.AGGREGATE, {}, children)
        keys, functions = match.group(1), match.group(2)
        if name == v.SORT_AGGREGATE:  # its rows sorted by its keys first
            order = [f"{key} {v.ASCENDING}" for key in _items(keys)]
            children = [self._unsorted(child, order) for child in children]
        grouping = parse_list(keys)
        calls = parse_list(functions)
        details = self.aggregates.get((keys, functions))
        if details is None or "Results" not in details:
            # unknown result attributes: the keys, then one column per function
            aliases = [Node(v.ALIAS, {"name": f"_{i}"}, [c]) for i, c in enumerate(calls)]
            fields = {"groupingExpressions": grouping, "aggregateExpressions": grouping + aliases}
            return Node(v.AGGREGATE, fields, children)
        results = parse_list(details["Results"])
        holders = parse_list(details.get("Aggregate Attributes", "[]"))
        computed = [
            Node(v.ALIAS, dict(holder.fields), [call])
            for holder, call in zip(holders, calls, strict=False)
            if holder.expr_id() is not None
        ]
        inner = Node(
            v.AGGREGATE,
            {"groupingExpressions": grouping, "aggregateExpressions": computed},
            children,
        )
        return Node(v.PROJECT, {"projectList": results}, [inner])

    def _unsorted(self, node: Node, order: list[str]) -> Node:
        """`node` without the sort the planner put under an operator that needs rows in `order`
        (found through operators that keep the order: code generation, adapters, query stages)."""
        if node.name == v.SORT and self.local_sorts.get(id(node)) == order and node.children:
            return node.children[0]
        if not node.fields and len(node.children) == 1:
            node.children[0] = self._unsorted(node.children[0], order)
        return node

    def _without_checks(self, node: Node, checks: set[str]) -> Node:
        """`node` without the `isnotnull(key)` conditions (`checks`) of the Filter under a join
        whose equality on that key drops rows with a null key anyway: the optimizer adds them
        (its inferred filters), so they change no row and are not the query's filters. Found
        through operators that pass rows on (code generation, adapters, exchanges, stages, a
        projection that only keeps columns)."""
        condition = self.filters.get(id(node))
        if condition is not None and node.children:
            kept = [c for c in _conjuncts(condition) if c not in checks]
            if not kept:
                return node.children[0]
            if len(kept) < len(_conjuncts(condition)):
                node.fields["condition"] = Node(
                    v.PARSED_OPERATOR, {"text": "AND"}, [parse(c) for c in kept]
                )
            return node
        if len(node.children) == 1 and (not node.fields or _keeps_columns(node)):
            node.children[0] = self._without_checks(node.children[0], checks)
        return node

    def _join(self, name: str, body: str, children: list[Node]) -> Node:
        args = split_top(body)
        if name == v.SORT_MERGE_JOIN and len(args) >= 2 and len(children) == 2:
            orders = [[f"{key} {v.ASCENDING}" for key in _items(a)] for a in args[:2]]
            children = [self._unsorted(c, o) for c, o in zip(children, orders, strict=True)]
        join_type = next((a for a in args if _JOIN_TYPES.match(a)), v.INNER_JOIN)
        if name in v.EQUI_JOIN_EXECS and len(args) >= 2 and len(children) == 2:
            sides = v.NULL_KEYS_DROPPED.get(join_type, ())
            if join_type == v.LEFT_ANTI_JOIN and "true" in args:  # NOT IN's null-aware anti join:
                sides = ()  # a null key on its right side empties the result
            for side in sides:
                checks = {f"isnotnull({key})" for key in _items(args[side])}
                children[side] = self._without_checks(children[side], checks)
        conditions = [parse(a) for a in args if "#" in a]
        fields: dict[str, Any] = {"joinType": join_type}
        if conditions:
            fields["condition"] = Node(v.PARSED_OPERATOR, {"text": "join"}, conditions)
        return Node(v.JOIN, fields, children)


def _keeps_columns(node: Node) -> bool:
    """Whether `node` is a projection that only keeps some of its input's columns."""
    columns = node.fields.get("projectList")
    return node.name == v.PROJECT and all(c.name == v.ATTRIBUTE_REFERENCE for c in columns or [])


def _conjuncts(condition: str) -> list[str]:
    """The conditions a Filter's `a AND b` joins, as the plan string gives them."""
    text = condition.strip()
    while text.startswith("(") and text.endswith(")") and enclosed(text, "(", ")"):
        parts = split_top(text[1:-1], " AND ")
        if len(parts) == 1:
            text = parts[0]
            continue
        return [c for part in parts for c in _conjuncts(part)]
    parts = split_top(text, " AND ")
    if len(parts) > 1:
        return [c for part in parts for c in _conjuncts(part)]
    return [text]


_SUBQUERY = "__subquery_"  # the name of a subquery's stand-in attribute while it is parsed


def _with_subqueries(
    info: dict[str, Any], body: str, children: list[Node]
) -> tuple[list[Node], Callable[[Callable[[str], Any]], Any]]:
    """An operator's children less the subqueries its expressions run (`Subquery subquery#5,
    [id=#9]`: a child of its own in the log), and a function parsing `body` with `parse_with`
    where each names its plan as a `ScalarSubquery` (whose value is its plan's first column)."""
    kept: list[Node] = []
    plans: dict[str, Node] = {}
    for raw, child in zip(info.get("children") or [], children, strict=False):
        if str(raw.get("nodeName", "")).strip() in v.SUBQUERY_EXECS:
            body = body.replace(str(raw.get("simpleString", "")), f"{_SUBQUERY}{len(plans)}#0")
            plans[f"{_SUBQUERY}{len(plans)}"] = child
        else:
            kept.append(child)

    def stand_in(node: Node) -> Node:
        plan = plans.get(str(node.fields.get("name"))) if node.name in v.ATTRIBUTES else None
        if plan is not None:
            return Node(v.SCALAR_SUBQUERY, {"plan": plan})
        node.children = [stand_in(child) for child in node.children]
        return node

    def parsed(parse_with: Callable[[str], Any]) -> Any:
        found = parse_with(body)
        if not plans:
            return found
        return [stand_in(n) for n in found] if isinstance(found, list) else stand_in(found)

    return kept, parsed


def _items(text: str) -> list[str]:
    """The items of a bracketed list as the plan string gives them (`[a#1, b#2 DESC]`)."""
    text = text.strip()
    return split_top(text[1:-1]) if text.startswith("[") and text.endswith("]") else []


_PYTHON_UDF = re.compile(r"^(?P<name>.+?)\((?P<args>.*)\)#\d+L?$", re.S)


def _python_eval(name: str, body: str, children: list[Node]) -> Node:
    """`BatchEvalPython [f(a#1)#5], [pythonUDF0#9]`: each UDF (`name(arguments)#id`) computes
    the result attribute at its position (the logical node's `udfs` and `resultAttrs`)."""
    args = split_top(body)
    if len(args) < 2:
        return Node(name, {}, children)
    udfs = []
    for text in _items(args[0]):
        match = _PYTHON_UDF.match(text)
        arguments = [parse(a) for a in split_top(match["args"])] if match else [parse(text)]
        udfs.append(Node(v.PYTHON_UDF, {"name": match["name"] if match else text}, arguments))
    return Node(name, {"udfs": udfs, "resultAttrs": parse_list(args[1])}, children)


def _expand(body: str, children: list[Node]) -> Node:
    """`Expand [[a#1, null, 0], [a#1, b#2, 1]], [a#5, b#6, spark_grouping_id#4L]`: output column
    i is column i of every projection (the logical Expand's fields)."""
    args = split_top(body)
    if len(args) < 2 or not args[0].startswith("[["):
        return Node(v.EXPAND, {}, children)
    projections = [parse_list(p) for p in split_top(args[0].strip()[1:-1])]
    return Node(v.EXPAND, {"projections": projections, "output": parse_list(args[1])}, children)


def _generate(body: str, children: list[Node]) -> Node:
    """`Generate explode(xs#3), [id#1], false, [x#7]`: the generated columns come from the
    generator's arguments (the logical Generate's `generator` and `generatorOutput`), under a
    projection of the columns the operator outputs."""
    args = split_top(body)
    if len(args) < 4 or not args[-1].startswith("["):
        return Node(v.GENERATE, {}, children)
    generated = parse_list(args[-1])
    generate = Node(
        v.GENERATE, {"generator": parse(args[0]), "generatorOutput": generated}, children
    )
    # the physical operator outputs only the child columns it keeps, then the generated ones
    kept = parse_list(args[1]) if args[1].startswith("[") else []
    return Node(v.PROJECT, {"projectList": [*kept, *generated]}, [generate])


def _bracketed_attributes(text: str) -> list[Node]:
    start = text.find("[")
    if start < 0:
        return []
    depth = 0
    for index in range(start, len(text)):
        depth += {"[": 1, "]": -1}.get(text[index], 0)
        if depth == 0:
            return [
                n for n in parse_list(text[start : index + 1]) if n.name == v.ATTRIBUTE_REFERENCE
            ]
    return []


def _table_name(text: str) -> tuple[str | None, str] | None:
    parts = [p.strip("`") for p in text.split(".") if p]
    if not parts or not parts[-1]:
        return None
    return (parts[-2] if len(parts) > 1 else None, parts[-1])


def table_argument(text: str) -> tuple[str | None, str] | None:
    """A quoted table identifier argument (`` `spark_catalog`.`db`.`t` ``) as (database, table)."""
    if not re.fullmatch(r"`[^`]+`(\.`[^`]+`)*", text.strip()):
        return None
    return _table_name(text.strip())


_SIMPLE_TYPES = {"int": "integer", "bigint": "long", "smallint": "short", "tinyint": "byte"}


def struct_fields(text: str) -> list[dict[str, Any]]:
    """`struct<id:int,name:string>` (a ReadSchema) as schema fields with JSON type names."""
    text = text.strip()
    if not (text.startswith("struct<") and text.endswith(">")):
        return []
    fields = []
    for part in split_top(text[len("struct<") : -1]):
        name, _, kind = part.partition(":")
        if not name or not kind:
            continue
        fields.append({"name": name.strip("`"), "type": _json_type(kind)})
    return fields


def _json_type(kind: str) -> Any:
    if kind.startswith("struct<"):
        return {"type": "struct", "fields": struct_fields(kind)}
    return _SIMPLE_TYPES.get(kind, kind)


def convert(info: dict[str, Any], description: str) -> ConvertedPlan:
    """A sparkPlanInfo tree as nodes; the write command found at the top (under adaptive plans,
    result stages and other single-child wrappers), if any."""
    converter = _Converter(description)
    root = converter.convert(info)
    write: Write | None = None
    node, raw = root, info
    while True:
        name = str(raw.get("nodeName", "")).strip()
        if (
            name.startswith(v.V1_WRITE_EXEC_PREFIX)
            or name.startswith(v.V2_WRITE_EXECS)
            or name in v.LOGGED_DDL
        ):
            command = node.name
            arguments = list(node.fields.get("arguments") or [])
            if not arguments:  # Spark 3.5 logs `Execute SaveIntoDataSourceCommand` bare
                arguments = argument_after(description, command)
            write = Write(command, arguments, metric_ids(raw))
            break
        kids = raw.get("children") or []
        if len(kids) != 1 or len(node.children) != 1:
            break
        node, raw = node.children[0], kids[0]
    truncated = converter.truncated + (1 if description_truncated(description) else 0)
    return ConvertedPlan(node if write is not None else root, write, converter.scans, truncated)


def v2_command(exec_name: str) -> str:
    """The logical command a V2 write operator runs, as live capture names it
    (`AppendDataExecV1` -> `AppendData`, `AtomicCreateTableAsSelect` -> `CreateTableAsSelect`)."""
    name = exec_name.removeprefix(v.V2_EXEC_PREFIX)
    for suffix in v.V2_EXEC_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def v2_table(argument: str) -> tuple[str, list[str]] | None:
    """A V2 write's table from its first argument, `JDBCTable(public.t,StructType(...),...)`:
    the table's class and identifier parts; None when it is not such a string."""
    match = re.match(r"^(\w+)\(([^,()]+),", argument.strip())
    if match is None:
        return None
    return match.group(1), [p.strip("`") for p in match.group(2).split(".")]


def struct_type_names(text: str) -> list[str]:
    """The field names of a `StructType(StructField(id,LongType,true),...)` string."""
    return re.findall(r"StructField\(([^,]+),", text)


def argument_after(description: str, command: str) -> list[str]:
    """The `Arguments:` of the formatted description's section named `command` (CTAS's table)."""
    for name, values in sections(description):
        if name == command and "Arguments" in values:
            return split_top(values["Arguments"])
    return []


__all__ = ["MODES", "ConvertedPlan", "Scan", "Write", "attribute", "convert", "struct_fields"]
