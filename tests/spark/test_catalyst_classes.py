"""No Catalyst node left undecided (issue 31 §4).

Every concrete LogicalPlan, SparkPlan and Expression class in this Spark line's jars, and in the
Delta, Iceberg and Paimon runtime jars pinned for it, listed from a JVM (catalyst_classes.py, cached
per jar set), must be decided in plumbline/spark/vocabulary.py: a handler, a pass-through, or opaque
with its reason (catalyst_decisions.py). A new Spark release's new classes fail here by name.
"""

from __future__ import annotations

from typing import Any

import pytest
from catalyst_classes import catalyst_classes, format_jars

from plumbline.spark import catalyst_decisions as d
from plumbline.spark import lineage
from plumbline.spark import vocabulary as v

KINDS = ("logical", "physical", "expression")


def simple(name: str) -> str:
    """A Java class name as `plan.Node.name` gives it."""
    return name.rsplit(".", 1)[-1].rstrip("$")


@pytest.fixture(scope="module")
def classes() -> list[dict[str, Any]]:
    return catalyst_classes()


@pytest.mark.spark
def test_every_catalyst_class_is_decided(classes: list[dict[str, Any]]) -> None:
    undecided = sorted(
        {
            f"{c['kind']} {c['name']} ({c['jar']})"
            for c in classes
            if v.decision(c["kind"], simple(c["name"])) is None
        }
    )
    assert not undecided, (
        "Catalyst classes decided nowhere (plumbline/spark/vocabulary.py, catalyst_decisions.py):\n"
        + "\n".join(undecided)
    )


@pytest.mark.spark
def test_the_listing_reaches_every_jar_set(classes: list[dict[str, Any]]) -> None:
    """The listing is not vacuous: Spark's own nodes of each kind, and each format's, are there."""
    names = {(c["kind"], simple(c["name"])) for c in classes}
    for known in [("logical", "Project"), ("physical", "ProjectExec"), ("expression", "Add")]:
        assert known in names
    assert sum(1 for c in classes if c["kind"] == "expression") > 400
    for jar_set in format_jars():
        assert any(c["source"] == jar_set for c in classes), jar_set
    if "delta" in format_jars():
        assert ("logical", "MergeIntoCommand") in names


def test_decisions_agree_with_the_handlers() -> None:
    """`handler` means a handler exists; each class is decided once per kind, with a reason."""
    assert set(lineage.PLAN_HANDLERS) <= v.HANDLED_PLANS
    assert set(lineage.EXPRESSION_HANDLERS) == v.HANDLED_EXPRESSIONS
    for kind in KINDS:
        seen: dict[str, str] = {}
        for decided in v.DECISIONS[kind]:
            assert decided.treatment in (d.HANDLER, d.PASS_THROUGH, d.OPAQUE)
            assert decided.reason and decided.names
            twice = {n: seen[n] for n in decided.names if n in seen}
            assert not twice, f"{kind}: decided twice: {twice} and {decided.reason}"
            seen.update(dict.fromkeys(decided.names, decided.reason))
    # a name with a handler of its own is never also listed as passed through or opaque
    assert not any(v.HANDLED_EXPRESSIONS & x.names for x in d.EXPRESSION)
    assert not any(v.HANDLED_PLANS & x.names for x in d.LOGICAL)


def test_identity_wrappers_keep_identity() -> None:
    """A tag that does not change its value (KnownNotNull, a Scala UDF's argument) is IDENTITY,
    per the facet, where any other function of a column is TRANSFORMATION."""
    from plumbline.spark.plan import Node

    def attribute() -> Node:
        return Node(
            "org.apache.spark.sql.catalyst.expressions.AttributeReference",
            {"name": "a", "exprId": {"id": 1, "jvmId": "j"}},
            [],
        )

    walker = lineage.LineageWalker(lambda leaf, column: {})
    walker.lineage[(1, "j")] = {("t", "a"): {(lineage.DIRECT, lineage.IDENTITY)}}
    tagged = Node("org.apache.spark.sql.catalyst.expressions.KnownNotNull", {}, [attribute()])
    other = Node("org.apache.spark.sql.catalyst.expressions.Upper", {}, [attribute()])
    assert walker.expression_deps(tagged) == {("t", "a"): {("DIRECT", "IDENTITY")}}
    assert walker.expression_deps(other) == {("t", "a"): {("DIRECT", "TRANSFORMATION")}}
