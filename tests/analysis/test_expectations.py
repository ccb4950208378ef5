"""Expectations (issue 31 §1): the rule language's parser (TOML with file:line errors, JSON with
rule paths) and each rule's verdict on a crafted graph, both backends."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from builder import T0, StoreBuilder

from plumbline.expectations.evaluate import check
from plumbline.expectations.rules import (
    DeclaredEdge,
    ExpectationsError,
    JobRef,
    Ref,
    Transformation,
    load,
    parse_mapping,
    parse_toml_text,
    to_json,
)
from plumbline.store import schema as s

GOOD = """\
namespace = "shop"

[[reach]]
from = "raw"
to = "report"

[[reach]]
from = { dataset = "raw", column = "amount" }
to = { dataset = "report", column = "total" }
transformation = "DIRECT/AGGREGATION"

[[never_reach]]
from = { dataset = "raw", column = "email" }
namespace = "analytics"
name = "no PII in analytics"

[[job]]
job = "load"
reads = ["raw"]
writes = [{ namespace = "shop", dataset = "orders" }]

[[fresh]]
dataset = "orders"
within = "26h"

[[declare]]
from = { namespace = "crm", dataset = "export", column = "id" }
to = { dataset = "raw", column = "customer_id" }
job = "nightly_copy"
transformation = "DIRECT/IDENTITY"
"""


def test_a_file_parses_to_typed_rules_and_declared_edges() -> None:
    found = parse_toml_text(GOOD, "ci/expect.toml")
    assert [r.describe() for r in found.rules] == [
        "dataset:shop:raw must reach dataset:shop:report",
        "datasetField:shop:raw:amount must reach datasetField:shop:report:total by "
        "DIRECT/AGGREGATION",
        "datasetField:shop:raw:email must never reach namespace 'analytics'",
        "job:shop:load must read dataset:shop:raw",
        "job:shop:load must write dataset:shop:orders",
        "dataset:shop:orders must be produced within 26h",
    ]
    assert found.fresh[0].within == timedelta(hours=26)
    assert found.never_reach[0].name == "no PII in analytics"
    assert found.declare == (
        DeclaredEdge(
            Ref("crm", "export", "id"),
            Ref("shop", "raw", "customer_id"),
            JobRef("shop", "nightly_copy"),
            Transformation("DIRECT", "IDENTITY"),
        ),
    )
    # the JSON form says the same (the CLI sends it to the server)
    assert parse_mapping(to_json(found)) == found


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('namespace = "shop"\n\n[[reach]]\nfrom = "a"\nto = \n', 5, "invalid TOML"),
        (
            'namespace = "shop"\n[[reach]]\nfrom = "a"\nto = "b"\n\n[[reach]]\nfrom = "a"\n',
            6,
            "'to'",
        ),  # fmt: skip
        ('namespace = "shop"\n[[fresh]]\ndataset = "a"\nwithin = "soon"\n', 2, "span"),
        ('[[reach]]\nfrom = "a"\nto = "b"\n', 1, "no namespace"),
        (
            'namespace = "s"\n[[reach]]\nfrom = "a"\nto = {dataset="b", column="c"}\n',
            2,
            "both be datasets or both be columns",
        ),  # fmt: skip
        (
            'namespace = "s"\n[[reach]]\nfrom = "a"\nto = "b"\ntransformation = "SIDEWAYS"\n',
            2,
            "DIRECT or INDIRECT",
        ),  # fmt: skip
        ('namespace = "s"\n[[reach]]\nfrom = "a"\nto = "b"\nvia = 1\n', 2, "unknown key 'via'"),
        ('namespace = "s"\n[[must]]\nfrom = "a"\n', 1, "unknown section 'must'"),
        ('namespace = "s"\n\n[[job]]\njob = "j"\n', 3, "'reads' or 'writes'"),
    ],
)
def test_a_malformed_file_names_the_file_and_line(text: str, line: int, message: str) -> None:
    with pytest.raises(ExpectationsError) as caught:
        parse_toml_text(text, "ci/expect.toml")
    assert caught.value.where == f"ci/expect.toml:{line}"
    assert message in caught.value.message


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ExpectationsError, match="missing.toml: cannot read"):
        load(tmp_path / "missing.toml")


def test_a_json_body_error_names_the_rule() -> None:
    with pytest.raises(ExpectationsError) as caught:
        parse_mapping({"namespace": "s", "reach": [{"from": "a", "to": "b"}, {"from": "a"}]})
    assert caught.value.where == "reach[1]"


@pytest.fixture
def shop(engine: sa.Engine) -> sa.Engine:
    """raw -> load -> orders -> report_job -> report; raw.amount -(DIRECT/IDENTITY)-> orders.amount
    -(DIRECT/AGGREGATION)-> report.total; raw.email -> orders.email -> analytics.emails (written by
    report_job too); ops.publish reads report and writes ops.dash; runs of load and report_job."""
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.job("shop", "load", ("raw",), ("orders",))
        b.job("shop", "report_job", ("orders",), ("report",))
        b.dataset("analytics", "emails")
        conn.execute(
            sa.insert(s.job_dataset_edges).values(
                job_id=b.jobs[("shop", "report_job")],
                dataset_id=b.datasets[("analytics", "emails")],
                direction="output",
                first_seen=T0,
                last_seen=T0,
            )
        )
        b.column_edge("shop", ("raw", "amount"), ("orders", "amount"))
        b.column_edge("shop", ("orders", "amount"), ("report", "total"), "DIRECT", "AGGREGATION")
        b.column_edge("shop", ("raw", "email"), ("orders", "email"))
        conn.execute(
            sa.insert(s.column_lineage_edges).values(
                output_field_id=b.field("analytics", "emails", "email"),
                input_field_id=b.fields[("shop", "orders", "email")],
                transformation_type="DIRECT",
                transformation_subtype="IDENTITY",
                first_seen=T0,
                last_seen=T0,
            )
        )
        b.job("ops", "publish", (), ("dash",))  # in namespace ops: reads shop.report, writes dash
        conn.execute(
            sa.insert(s.job_dataset_edges).values(
                job_id=b.jobs[("ops", "publish")],
                dataset_id=b.datasets[("shop", "report")],
                direction="input",
                first_seen=T0,
                last_seen=T0,
            )
        )
        b.run("shop", "load", writes=("orders",), run_uuid="00000000-0000-4000-8000-000000000001")
        b.run(
            "shop",
            "report_job",
            reads=("orders",),
            writes=("report",),
            run_uuid="00000000-0000-4000-8000-000000000002",
        )
    return engine


def verdicts(engine: sa.Engine, text: str, **kw: object) -> list[tuple[str, str]]:
    with engine.connect() as conn:
        found = check(conn, parse_toml_text('namespace = "shop"\n' + text), **kw)  # type: ignore[arg-type]
    return [(o.status, o.seen) for o in found]


def test_reach_holds_with_its_path_and_the_run_that_showed_it(shop: sa.Engine) -> None:
    with shop.connect() as conn:
        (outcome,) = check(
            conn, parse_toml_text('namespace = "shop"\n[[reach]]\nfrom = "raw"\nto = "report"\n')
        )
    assert outcome.status == "holds"
    assert outcome.path == (
        "dataset:shop:raw",
        "job:shop:load",
        "dataset:shop:orders",
        "job:shop:report_job",
        "dataset:shop:report",
    )
    assert outcome.run_id == "00000000-0000-4000-8000-000000000002"


def test_reach_is_broken_when_no_path_leads_there(shop: sa.Engine) -> None:
    [(status, seen)] = verdicts(shop, '[[reach]]\nfrom = "report"\nto = "raw"\n')
    assert status == "broken"
    assert seen.startswith("no path")
    with shop.connect() as conn:
        text = 'namespace = "shop"\n[[reach]]\nfrom = "report"\nto = "raw"\n'
        [outcome] = check(conn, parse_toml_text(text))
        assert (outcome.status, outcome.run_id) == ("broken", None)  # no run wrote raw
        text = 'namespace = "shop"\n[[reach]]\nfrom = "report"\nto = "orders"\n'
        [outcome] = check(conn, parse_toml_text(text))
    # the run whose lineage shows orders as it is: the one that wrote its current version
    assert (outcome.status, outcome.run_id) == ("broken", "00000000-0000-4000-8000-000000000001")


def test_column_reach_checks_the_transformation_of_every_hop(shop: sa.Engine) -> None:
    rule = '[[reach]]\nfrom = {dataset="raw", column="amount"}\nto = {dataset="report", column="total"}\n'
    assert [v[0] for v in verdicts(shop, rule)] == ["holds"]
    assert [v[0] for v in verdicts(shop, rule + 'transformation = "DIRECT"\n')] == ["holds"]
    [(status, seen)] = verdicts(shop, rule + 'transformation = "DIRECT/AGGREGATION"\n')
    assert status == "broken"  # the first hop is DIRECT/IDENTITY
    assert "DIRECT/AGGREGATION" in seen
    [(status, _)] = verdicts(shop, rule + 'transformation = "INDIRECT"\n')
    assert status == "broken"


def test_never_reach_is_broken_with_the_path_as_evidence(shop: sa.Engine) -> None:
    rule = '[[never_reach]]\nfrom = {dataset="raw", column="email"}\nnamespace = "analytics"\n'
    with shop.connect() as conn:
        (outcome,) = check(conn, parse_toml_text('namespace = "shop"\n' + rule))
    assert outcome.status == "broken"
    assert outcome.path == (
        "datasetField:shop:raw:email",
        "datasetField:shop:orders:email",
        "datasetField:analytics:emails:email",
    )
    # dataset level: raw reaches analytics.emails through both jobs
    [(status, seen)] = verdicts(shop, '[[never_reach]]\nfrom = "raw"\nnamespace = "analytics"\n')
    assert (status, seen) == ("broken", "reaches dataset:analytics:emails in 4 hop(s)")
    # raw.amount never reaches analytics
    [(status, _)] = verdicts(
        shop, '[[never_reach]]\nfrom = {dataset="raw", column="amount"}\nnamespace = "analytics"\n'
    )
    assert status == "holds"


def test_a_cut_walk_cannot_tell(shop: sa.Engine) -> None:
    [(status, seen)] = verdicts(
        shop, '[[never_reach]]\nfrom = "raw"\nnamespace = "ops"\n', max_nodes=1
    )
    assert status == "undecided"
    assert "node cap" in seen


def test_job_reads_and_writes(shop: sa.Engine) -> None:
    found = verdicts(
        shop, '[[job]]\njob = "load"\nreads = ["raw"]\nwrites = ["orders", "report"]\n'
    )
    assert found == [
        ("holds", "reads it"),
        ("holds", "writes it"),
        ("broken", "writes dataset:shop:orders"),
    ]


def test_unknown_names_are_broken_never_true(shop: sa.Engine) -> None:
    found = verdicts(
        shop,
        '[[reach]]\nfrom = "raw"\nto = "reprot"\n'
        '[[never_reach]]\nfrom = {dataset="raw", column="emial"}\nnamespace = "analytics"\n'
        '[[job]]\njob = "lod"\nreads = ["raw"]\n'
        '[[fresh]]\ndataset = {namespace = "nowhere", dataset = "x"}\nwithin = "1h"\n'
        '[[never_reach]]\nfrom = "raw"\nnamespace = "analytcs"\n',
    )
    assert [status for status, _ in found] == ["unknown"] * 5
    assert found[2] == ("unknown", "unknown: namespace 'analytcs' not found")
    assert "'reprot'" in found[0][1]
    assert "'emial'" in found[1][1]
    assert "'lod'" in found[3][1]


def test_freshness_of_the_producing_run(shop: sa.Engine) -> None:
    produced = T0 + timedelta(seconds=90)  # the builder's run ends 90 s after T0
    rule = '[[fresh]]\ndataset = "orders"\nwithin = "1h"\n'
    assert verdicts(shop, rule, now=produced + timedelta(minutes=30))[0][0] == "holds"
    [(status, seen)] = verdicts(shop, rule, now=produced + timedelta(hours=3, minutes=5))
    assert status == "broken"
    assert seen.endswith("3h5m ago")
    # raw was never produced by a run
    [(status, seen)] = verdicts(shop, '[[fresh]]\ndataset = "raw"\nwithin = "1h"\n')
    assert (status, seen) == ("broken", "no run has produced a version of it")


def test_a_namespace_limited_caller_cannot_tell_through_what_it_may_not_read(
    shop: sa.Engine,
) -> None:
    rule = '[[never_reach]]\nfrom = "report"\nnamespace = "analytics"\n'
    assert verdicts(shop, rule)[0][0] == "holds"  # report -> ops.publish -> ops.dash
    [(status, seen)] = verdicts(shop, rule, visible_to=frozenset({"shop", "analytics"}))
    assert (status, seen) == (
        "undecided",
        "cannot tell: the walk went through 2 node(s) you may not read",
    )
