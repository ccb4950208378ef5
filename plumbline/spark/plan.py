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

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from plumbline.spark.errors import PlanError

ExprId = tuple[int, str]


@dataclass
class Node:
    """One plan or expression node: its class, its own fields and its children."""

    cls: str
    fields: dict[str, Any]
    children: list[Node] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The simple class name (`Project`, `AttributeReference`...)."""
        return self.cls.rsplit(".", 1)[-1].rstrip("$")

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


def _is_tree(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], dict)
        and "class" in value[0]
        and "num-children" in value[0]
    )


def _is_trees(value: Any) -> bool:
    """A list of trees, or of lists of trees (`Expand.projections`)."""
    return (
        isinstance(value, list) and bool(value) and all(_is_tree(v) or _is_trees(v) for v in value)
    )


def _convert(value: Any) -> Any:
    if _is_tree(value):
        return build_tree(value)
    if _is_trees(value):
        return [_convert(v) for v in value]
    return value


def build_tree(nodes: list[dict[str, Any]]) -> Node:
    """Rebuild one tree from its pre-order node list."""
    position = 0

    def take() -> Node:
        nonlocal position
        if position >= len(nodes):
            raise PlanError("plan JSON ends before all children were read")
        raw = nodes[position]
        position += 1
        own = {k: _convert(v) for k, v in raw.items() if k not in ("class", "num-children")}
        node = Node(str(raw["class"]), own)
        for _ in range(int(raw.get("num-children", 0))):
            node.children.append(take())
        return node

    root = take()
    if position != len(nodes):
        raise PlanError(f"plan JSON has {len(nodes) - position} nodes after the root tree")
    return root


def parse_plan(text: str) -> Node:
    """Parse the output of `toJSON()` into a tree of `Node`s."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PlanError(f"plan JSON is not valid JSON: {exc}") from exc
    if not _is_tree(data):
        raise PlanError("plan JSON is not a node list")
    return build_tree(data)
