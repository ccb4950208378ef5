"""Plan trees as `Node`s: the one input of column lineage, whatever the plan's source.

A `Node` is a class name, the node's own fields and its children. Fields that hold other trees
(a command's query, an expression list, a subquery's plan) hold `Node`s too; other fields hold
plain JSON values. Two sources make them:

- live capture: `TreeNode.toJSON()` of an analyzed plan, read through py4j (`parse_plan`). Catalyst
  gives a tree as a flat JSON array of nodes in pre-order, each with `num-children`, trees inside
  fields as nested arrays of the same shape;
- event logs (later): a `sparkPlanInfo` tree (`nodeName`, `simpleString`, `children`, `metadata`)
  whose expressions are parsed back into nodes with Catalyst's class names and fields.

`Node.to_json()` / `Node.from_json()` are the contract between them: a nested, JSON-serialisable
form (`{"class": ..., "fields": {...}, "children": [...]}`) that the recorded plans under
`tests/golden/plans/` are stored in. This module knows nothing about what the classes mean.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson

from plumbline.spark.errors import PlanError

ExprId = tuple[int, str]
# simple class names by full class name (a plan has a few dozen classes; they repeat)
_SIMPLE_NAMES: dict[str, str] = {}


@dataclass(slots=True)
class Node:
    """One plan or expression node: its class, its own fields and its children."""

    cls: str
    fields: dict[str, Any]
    children: list[Node] = field(default_factory=list)
    # the simple class name (`Project`, `AttributeReference`...)
    name: str = field(init=False, repr=False, compare=False)
    # `expr_id()`, once read: (the id,) or None before
    _expr_id: tuple[ExprId | None] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        name = _SIMPLE_NAMES.get(self.cls)
        if name is None:
            name = _SIMPLE_NAMES[self.cls] = self.cls.rsplit(".", 1)[-1].rstrip("$")
        self.name = name

    def walk(self) -> Iterator[Node]:
        """This node and its descendants in pre-order (children only, not tree-valued fields)."""
        yield self
        for child in self.children:
            yield from child.walk()

    def expr_id(self) -> ExprId | None:
        """The expression id of an attribute or alias, if it has one."""
        known = self._expr_id
        if known is None:
            raw = self.fields.get("exprId")
            found = None
            if isinstance(raw, dict) and "id" in raw:
                found = (int(raw["id"]), str(raw.get("jvmId", "")))
            known = self._expr_id = (found,)
        return known[0]

    def to_json(self) -> dict[str, Any]:
        """The nested JSON form of this tree (tree-valued fields included)."""
        return {
            "class": self.cls,
            "fields": {k: _encode(v) for k, v in self.fields.items()},
            "children": [child.to_json() for child in self.children],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Node:
        """Rebuild a tree from `to_json()`'s form."""
        node = _decode(data)
        if not isinstance(node, Node):
            raise PlanError("not a plan node: an object with class, fields and children")
        return node

    def trees(self, key: str) -> list[Node]:
        """A tree-valued field as a list of trees (a single tree gives a one-element list)."""
        value = self.fields.get(key)
        if isinstance(value, Node):
            return [value]
        if isinstance(value, list):
            return [v for v in value if isinstance(v, Node)]
        return []


_NODE_KEYS = {"class", "fields", "children"}


def _encode(value: Any) -> Any:
    if isinstance(value, Node):
        return value.to_json()
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if value.keys() == _NODE_KEYS and isinstance(value["fields"], dict):
        children = value["children"]
        if not isinstance(children, list):
            raise PlanError("a plan node's children are not a list")
        node = Node(str(value["class"]), {k: _decode(v) for k, v in value["fields"].items()})
        node.children = [Node.from_json(child) for child in children]
        return node
    return {k: _decode(v) for k, v in value.items()}


class _Decoder:
    """Turns Catalyst's pre-order node lists (`toJSON()`'s form) into `Node`s."""

    def is_tree(self, value: Any) -> bool:
        if not isinstance(value, list) or not value:
            return False
        first = value[0]
        return isinstance(first, dict) and "class" in first and "num-children" in first

    def is_trees(self, value: Any) -> bool:
        """A list of trees, or of lists of trees (`Expand.projections`)."""
        return (
            isinstance(value, list)
            and bool(value)
            and all(self.is_tree(v) or self.is_trees(v) for v in value)
        )

    def convert(self, value: Any) -> Any:
        if type(value) is not list or not value:
            return value
        first = value[0]
        if type(first) is int:  # child indices
            return value
        if type(first) is dict:
            return self.tree(value) if "class" in first and "num-children" in first else value
        if self.is_trees(value):
            return [self.convert(v) for v in value]
        return value

    def node(self, raw: dict[str, Any]) -> Node:
        """One node with its own fields (no children yet)."""
        convert = self.convert
        own = {
            k: convert(v) if type(v) is list else v
            for k, v in raw.items()
            if k != "class" and k != "num-children"
        }
        return Node(str(raw["class"]), own)

    def tree(self, nodes: list[Any]) -> Node:
        """Rebuild one tree from its pre-order node list."""
        root, end = self._take(nodes, 0)
        if end != len(nodes):
            raise PlanError(f"plan JSON has {len(nodes) - end} nodes after the root tree")
        return root

    def _take(self, nodes: list[Any], position: int) -> tuple[Node, int]:
        """The tree starting at `position`, and the position after it."""
        if position >= len(nodes):
            raise PlanError("plan JSON ends before all children were read")
        raw = nodes[position]
        position += 1
        if not isinstance(raw, dict):
            raise PlanError("plan JSON has an entry that is not a node")
        node = self.node(raw)
        count = raw.get("num-children", 0)
        if count:
            children = node.children
            for _ in range(int(count)):
                child, position = self._take(nodes, position)
                children.append(child)
        return node, position


def build_tree(nodes: list[dict[str, Any]]) -> Node:
    """Rebuild one tree from its pre-order node list."""
    return _Decoder().tree(nodes)


def parse_plan(text: str) -> Node:
    """Parse the output of `toJSON()` into a tree of `Node`s."""
    with _no_collection():
        try:
            data = orjson.loads(text)
        except ValueError as exc:
            raise PlanError(f"plan JSON is not valid JSON: {exc}") from exc
        decoder = _Decoder()
        if not decoder.is_tree(data):
            raise PlanError("plan JSON is not a node list")
        return decoder.tree(data)


# what a field of the compact form needs decoding into (`java/PlumblinePlanJson.java`)
_TREE, _TREES, _CATALYST, _EXPR_ID, _REFS = 1, 2, 3, 4, 5


class _CompactDecoder:
    """Turns the compact form's node lists into `Node`s (see `parse_compact`)."""

    def __init__(self, strings: list[str]) -> None:
        self.strings = strings
        self.shared: list[Node] = []
        self.catalyst = _Decoder()  # Catalyst's own JSON of rare values: toJSON()'s form

    def tree(self, entries: list[Any]) -> Node:
        """One tree from its pre-order entries (a node, or `-1 - index` of a shared tree)."""
        if len(entries) == 1:
            first = entries[0]
            if type(first) is int:
                return self.reference(first)
        root, end = self._take(entries, 0)
        if end != len(entries):
            raise PlanError(f"compact plan has {len(entries) - end} nodes after a root tree")
        return root

    def reference(self, raw: int) -> Node:
        if not -len(self.shared) <= raw < 0:
            raise PlanError(f"compact plan refers to a shared tree {raw} it does not have")
        return self.shared[-1 - raw]

    def _take(self, entries: list[Any], position: int) -> tuple[Node, int]:
        raw = entries[position]
        position += 1
        if type(raw) is int:
            return self.reference(raw), position
        fields = raw[2]
        if len(raw) > 3:
            for key, (kind, value) in raw[3].items():
                fields[key] = self.special(kind, value)
        node = Node(self.strings[raw[0]], fields)
        count = raw[1]
        if count:
            children = node.children
            for _ in range(count):
                entry = entries[position]
                if type(entry) is int:  # most children are shared expressions: no recursion
                    children.append(self.reference(entry))
                    position += 1
                else:
                    child, position = self._take(entries, position)
                    children.append(child)
        return node, position

    def special(self, kind: int, value: Any) -> Any:
        """A field value the writer marked: trees, an expression id, Catalyst's own JSON."""
        if kind == _TREES:
            shared, trees = self.shared, []
            for entries in value:
                first = entries[0]
                if len(entries) == 1 and type(first) is int and first < 0:
                    trees.append(shared[-1 - first])
                else:
                    trees.append(self.tree(entries))
            return trees
        if kind == _REFS:  # a list of trees that are each one shared expression
            shared = self.shared
            if value and not (-len(shared) <= min(value) and max(value) < 0):
                raise PlanError(f"compact plan refers to a shared tree in {value} it does not have")
            return [shared[-1 - raw] for raw in value]
        if kind == _EXPR_ID:
            cls, number, jvm_id = value
            return {"product-class": self.strings[cls], "id": number, "jvmId": self.strings[jvm_id]}
        if kind == _TREE:
            return self.tree(value)
        if kind == _CATALYST:
            return self.catalyst.convert(value)
        raise PlanError(f"compact plan has a field of unknown kind {kind}")


@contextmanager
def _no_collection() -> Iterator[None]:
    """Python's cyclic collector held off while a plan is decoded.

    Decoding makes tens of thousands of lists, dicts and `Node`s, none of them garbage yet;
    every 700 the collector would scan them and the young objects of the whole process
    (measured: 80 % of `orjson.loads` time on a 1.3 MB plan). A collection left out is made up
    by the next one after this; a collector already off (the user's choice) stays off.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_compact(text: str | bytes) -> Node:
    """Parse the compact form `plan_reader` reads: `[strings, shared trees, plan tree]`.

    A tree is a list of entries in pre-order: a node `[class, number of children, {fields}]`
    (with `{key: [kind, value]}` after the fields for values that are trees, lists of trees or
    of shared trees' references, expression ids or Catalyst's own JSON), or `-1 - index` of a
    shared tree, an expression
    written once that later trees (the plan's included) refer to. Class names and JVM ids are
    indices into `strings`. The result is the tree `parse_plan` gives for the same plan's
    `toJSON()`, with equal expressions shared (the same `Node` wherever they appear).
    """
    with _no_collection():
        try:
            data = orjson.loads(text)
        except ValueError as exc:
            raise PlanError(f"compact plan is not valid JSON: {exc}") from exc
        if not (isinstance(data, list) and len(data) == 3 and all(type(d) is list for d in data)):
            raise PlanError("compact plan is not [strings, shared trees, plan tree]")
        decoder = _CompactDecoder(data[0])
        try:
            for entries in data[1]:
                decoder.shared.append(decoder.tree(entries))
            return decoder.tree(data[2])
        except (IndexError, KeyError, TypeError, ValueError) as exc:
            raise PlanError(f"compact plan is malformed ({type(exc).__name__}: {exc})") from exc
