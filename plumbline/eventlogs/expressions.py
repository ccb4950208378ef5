"""Catalyst expression strings (as event logs print them) parsed back into `plan.Node` trees.

An event log keeps a physical plan's expressions only as their `toString`: `upper(name#10)`,
`(v#11 * 2.0) AS v2#17`, `CASE WHEN (a#1 > 0) THEN b#2 ELSE 0 END`. This parser rebuilds the
nodes column lineage needs, with Catalyst's class names: `AttributeReference` and `Alias` (name and
expression id), `AggregateExpression`, `CaseWhen`, `If`, `Cast`, `WindowExpression`; any other
expression becomes a node of its function's name whose children are its arguments. What it
cannot split keeps every attribute it mentions as a child, so lineage stays complete (a
TRANSFORMATION) even where the structure is lost. Nothing here knows what the classes mean.
"""

from __future__ import annotations

import re

from plumbline.spark.surface import Node
from plumbline.spark.surface import vocabulary as v

_ATTRIBUTE = re.compile(r"^(?P<name>.+?)#(?P<id>\d+)L?$", re.S)
_ANY_ATTRIBUTE = re.compile(r"(`[^`]+`|[\w.$]+(?:\([^()#]*\))?)#(\d+)L?")
_FUNCTION = re.compile(r"^(?P<name>[A-Za-z_][\w$]*)\((?P<args>.*)\)$", re.S)
_ORDER_SUFFIX = re.compile(r"\s+(ASC|DESC)(\s+NULLS\s+(FIRST|LAST))?$")
_AGGREGATE_FUNCTIONS = frozenset(
    "sum count avg mean min max first last collect_list collect_set approx_count_distinct "
    "stddev stddev_samp stddev_pop variance var_samp var_pop count_if any every some bool_and "
    "bool_or max_by min_by percentile percentile_approx median mode".split()
)
_CLASSES = {"if": v.IF, "cast": v.CAST, "try_cast": v.CAST, "ansi_cast": v.CAST}


def attribute(name: str, expr_id: int) -> Node:
    """An `AttributeReference` node."""
    return Node(v.ATTRIBUTE_REFERENCE, {"name": name, "exprId": {"id": expr_id, "jvmId": ""}})


def split_top(text: str, separator: str = ",") -> list[str]:
    """`text` split at `separator`s outside brackets, parentheses and quotes, parts stripped."""
    parts, depth, quote, start = [], 0, "", 0
    index = 0
    while index < len(text):
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(separator, index):
            parts.append(text[start:index].strip())
            start = index + len(separator)
            index = start
            continue
        index += 1
    tail = text[start:].strip()
    if tail or parts:
        parts.append(tail)
    return [p for p in parts if p]


def parse_list(text: str) -> list[Node]:
    """A bracketed list of expressions (`[a#1, (b#2 + 1) AS c#3]`) as nodes."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return [parse(part) for part in split_top(text)]


def parse(text: str) -> Node:
    """One expression's string as a node tree."""
    text = _ORDER_SUFFIX.sub("", text.strip())
    aliased = split_top(text, " AS ")
    if len(aliased) > 1:
        match = _ATTRIBUTE.match(aliased[-1])
        if match is not None:
            inner = parse(" AS ".join(aliased[:-1]))
            fields = {
                "name": _unquote(match["name"]),
                "exprId": {"id": int(match["id"]), "jvmId": ""},
            }
            return Node(v.ALIAS, fields, [inner])
    if enclosed(text, "(", ")"):
        return _parenthesised(text[1:-1])
    if text.upper().startswith("CASE WHEN") and text.upper().endswith("END"):
        return _case_when(text)
    if text.startswith("if ("):
        found = _if(text)
        if found is not None:
            return found
    function = _FUNCTION.match(text)
    if function is not None and enclosed(text[len(function["name"]) :], "(", ")"):
        return _function(function["name"], function["args"])
    match = _ATTRIBUTE.match(text)
    if match is not None and " " not in text.split("(", 1)[0]:
        return attribute(_unquote(match["name"]), int(match["id"]))
    windowed = split_top(text, " windowspecdefinition")
    if len(windowed) == 2:
        spec = parse("windowspecdefinition" + windowed[1])
        return Node(v.WINDOW_EXPRESSION, {}, [parse(windowed[0]), spec])
    return _opaque(text)


def _unquote(name: str) -> str:
    return name[1:-1] if len(name) > 1 and name[0] == name[-1] == "`" else name


def enclosed(text: str, opening: str, closing: str) -> bool:
    """Whether `text` is one bracketed group (its first opening matches its last closing)."""
    if not (text.startswith(opening) and text.endswith(closing)):
        return False
    depth, quote = 0, ""
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"`":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0 and index != len(text) - 1:
                return False
    return depth == 0


def _parenthesised(inner: str) -> Node:
    """`(a op b)`: a binary or unary operator over its operands."""
    tokens = split_top(inner, " ")
    operands = [parse(t) for t in tokens if not _is_operator(t)]
    return Node(v.PARSED_OPERATOR, {"text": inner}, operands)


def _is_operator(token: str) -> bool:
    return bool(re.fullmatch(r"[-+*/%<>=!&|^]+|<=>|AND|OR|NOT|IN|LIKE|RLIKE|IS|NULL|DIV", token))


def _case_when(text: str) -> Node:
    body = text[len("CASE") : -len("END")].strip()
    children: list[Node] = []
    otherwise: Node | None = None
    for branch in split_top(body, "WHEN ")[0:]:
        branch = branch.strip()
        head, _, tail = branch.partition(" ELSE ")
        condition, _, value = head.partition(" THEN ")
        children += [parse(condition), parse(value)]
        if tail:
            otherwise = parse(tail)
    if otherwise is not None:
        children.append(otherwise)
    return Node(v.CASE_WHEN, {}, children)


def _if(text: str) -> Node | None:
    """`if (predicate) a else b` (Catalyst's `If`): the predicate's group, then the values split
    at the `else` of this `if` (one that a nested `if` in the first value does not take)."""
    group = split_top(text[len("if ") :], " ")[0]
    if not enclosed(group, "(", ")"):
        return None
    parts = split_top(text[len("if ") + len(group) :], " else ")
    nested = 0
    for index, part in enumerate(parts[:-1]):
        nested += len(split_top(f"_ {part}", " if ")) - 1  # the ifs this part opens
        if nested == 0:
            values = [" else ".join(parts[: index + 1]), " else ".join(parts[index + 1 :])]
            return Node(v.IF, {}, [parse(group[1:-1]), *(parse(value) for value in values)])
        nested -= 1
    return None


def _function(name: str, args_text: str) -> Node:
    lower = name.lower()
    if lower in ("cast", "try_cast", "ansi_cast"):
        value = split_top(args_text, " as ")
        return Node(v.CAST, {}, [parse(value[0])] if value else [])
    args = [parse(a) for a in split_top(args_text)]
    if lower.startswith("partial_") or lower.startswith("merge_"):
        lower = lower.split("_", 1)[1]
    if lower in _AGGREGATE_FUNCTIONS:
        return Node(v.AGGREGATE_EXPRESSION, {}, [Node(name, {}, args)])
    return Node(_CLASSES.get(lower, name), {}, args)


def _opaque(text: str) -> Node:
    """Something not split further: a literal, or a node over every attribute it mentions."""
    refs = [attribute(_unquote(m[1]), int(m[2])) for m in _ANY_ATTRIBUTE.finditer(text)]
    return Node(v.LITERAL if not refs else v.PARSED_EXPRESSION, {"text": text}, refs)
