"""Catalyst trees from their JSON form.

`TreeNode.toJSON()` returns a tree as a flat JSON array of nodes in pre-order, each with
`num-children`. Fields holding other trees (a command's plan, an expression list, a subquery's
plan) are nested arrays of the same shape. This module turns that into `Node` objects; it knows
nothing about what the classes mean.
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

    def trees(self, key: str) -> list[Node]:
        """A tree-valued field as a list of trees (a single tree gives a one-element list)."""
        value = self.fields.get(key)
        if isinstance(value, Node):
            return [value]
        if isinstance(value, list):
            return [v for v in value if isinstance(v, Node)]
        return []


def _is_tree(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], dict)
        and "class" in value[0]
        and "num-children" in value[0]
    )


def _convert(value: Any) -> Any:
    if _is_tree(value):
        return build_tree(value)
    if isinstance(value, list) and value and all(_is_tree(v) for v in value):
        return [build_tree(v) for v in value]
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
