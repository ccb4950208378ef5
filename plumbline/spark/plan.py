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

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from plumbline.spark.errors import PlanError

ExprId = tuple[int, str]


@dataclass
class Node:
    """One plan or expression node: its class, its own fields and its children."""

    cls: str
    fields: dict[str, Any]
    children: list[Node] = field(default_factory=list)
    # the simple class name (`Project`, `AttributeReference`...)
    name: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.name = self.cls.rsplit(".", 1)[-1].rstrip("$")

    def walk(self) -> Iterator[Node]:
        """This node and its descendants in pre-order (children only, not tree-valued fields)."""
        yield self
        for child in self.children:
            yield from child.walk()

    def expr_id(self) -> ExprId | None:
        """The expression id of an attribute or alias, if it has one."""
        raw = self.fields.get("exprId")
        if isinstance(raw, dict) and "id" in raw:
            return (int(raw["id"]), str(raw.get("jvmId", "")))
        return None

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
    """Turns Catalyst's pre-order node lists into `Node`s.

    `shared` holds nodes written once and referenced by a negative integer `-1 - index` in place
    of a node (the compact form of `plan_reader`: each distinct attribute once). A reference is
    the same `Node` object wherever it appears.
    """

    def __init__(self, shared: list[Node]) -> None:
        self.shared = shared

    def is_tree(self, value: Any) -> bool:
        if not isinstance(value, list) or not value:
            return False
        first = value[0]
        if type(first) is int:
            return first < 0 and bool(self.shared)
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
        if type(first) is int:  # child indices, or a tree that is one shared expression
            return self.tree(value) if first < 0 and self.shared else value
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
        if type(raw) is int:
            if not -len(self.shared) <= raw < 0:
                raise PlanError(f"plan JSON refers to a shared tree {raw} it does not have")
            return self.shared[-1 - raw], position
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
    return _Decoder([]).tree(nodes)


def parse_plan(text: str) -> Node:
    """Parse the output of `toJSON()` into a tree of `Node`s."""
    try:
        data = orjson.loads(text)
    except ValueError as exc:
        raise PlanError(f"plan JSON is not valid JSON: {exc}") from exc
    decoder = _Decoder([])
    if not decoder.is_tree(data):
        raise PlanError("plan JSON is not a node list")
    return decoder.tree(data)


def parse_compact(text: str) -> Node:
    """Parse the compact form `plan_reader` reads: `[[shared tree, ...], [plan node, ...]]`.

    Each shared tree (a node list like the plan's) is an expression written once; node lists
    after it, the plan's included, refer to it by `-1 - index` in place of its nodes. The result
    is the tree `parse_plan` gives for the same plan's `toJSON()`, with equal expressions shared.
    """
    try:
        data = orjson.loads(text)
    except ValueError as exc:
        raise PlanError(f"compact plan is not valid JSON: {exc}") from exc
    if not (isinstance(data, list) and len(data) == 2 and all(isinstance(d, list) for d in data)):
        raise PlanError("compact plan is not [shared trees, plan nodes]")
    decoder = _Decoder([])
    for entry in data[0]:
        if not isinstance(entry, list) or not entry or not isinstance(entry[0], dict):
            raise PlanError("a shared tree of a compact plan is not a node list")
        decoder.shared.append(decoder.tree(entry))
    if not decoder.is_tree(data[1]):
        raise PlanError("compact plan has no node list")
    return decoder.tree(data[1])
