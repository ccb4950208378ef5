"""Classifications that follow column lineage (issue 32 §1): propagation, declassification, config
rules, and the incremental result held equal to a full recompute after random edits."""

from __future__ import annotations

import random
import uuid
from typing import Any

import pytest
import sqlalchemy as sa
from builder import T0, StoreBuilder
from sqlalchemy.engine import Connection, Engine
from store_summary import column_lineage, dataset, facet, ingest, run_event

from plumbline.store import schema as s
from plumbline.store.read import classifications
from plumbline.store.write import classify, tagging
from plumbline.store.write.classification_rules import (
    ClassificationRules,
    ColumnRule,
    use_rules,
)

NS = "warehouse"
RULES = ClassificationRules(
    indirect=frozenset({"JOIN"}), rules=(ColumnRule("pii.email", r".*email.*", "ware*"),)
)


def _rows(conn: Connection) -> dict[tuple[str, str, str], dict[str, Any]]:
    """(dataset, field, tag) -> the row's origin, value, declared_by and path (links followed)."""
    cc, f, d, t = s.column_classifications, s.dataset_fields, s.datasets, s.tags
    query = (
        sa.select(d.c.name.label("dataset"), f.c.name.label("field"), t.c.name.label("tag"), cc)
        .select_from(cc)
        .join(f, f.c.id == cc.c.field_id)
        .join(d, d.c.id == f.c.dataset_id)
        .join(t, t.c.id == cc.c.tag_id)
    )
    rows = conn.execute(query).all()
    found: dict[int, dict[int, list[dict[str, str]]]] = {}
    for tag_id in {r.tag_id for r in rows}:
        found[tag_id] = classifications.paths(
            conn, tag_id, [r.field_id for r in rows if r.tag_id == tag_id]
        )
    return {
        (r.dataset, r.field, r.tag): {
            "origin": r.origin,
            "value": r.tag_value,
            "declared_by": r.declared_by,
            "path": found[r.tag_id][r.field_id],
            "hops": r.hops,
        }
        for r in rows
    }


def _edge(
    conn: Connection,
    b: StoreBuilder,
    src: tuple[str, str],
    dst: tuple[str, str],
    kind: str = "DIRECT",
    subtype: str = "IDENTITY",
    masking: bool = False,
) -> None:
    row = {
        "output_field_id": b.field(NS, *dst),
        "input_field_id": b.field(NS, *src),
        "transformation_type": kind,
        "transformation_subtype": subtype,
        "masking": masking,
        "first_seen": T0,
        "last_seen": T0,
    }
    conn.execute(sa.insert(s.column_lineage_edges).values(row))
    classify.edges_added(conn, [row])


@pytest.fixture
def ruled(engine: Engine) -> Engine:
    use_rules(engine, RULES)
    return engine


def test_a_tag_follows_direct_edges_with_its_path_and_stops_where_declassified(
    ruled: Engine,
) -> None:
    with ruled.begin() as conn:
        b = StoreBuilder(conn)
        _edge(conn, b, ("raw.users", "mail"), ("stg.users", "mail"))
        _edge(
            conn, b, ("stg.users", "mail"), ("mart.customers", "contact"), subtype="TRANSFORMATION"
        )
        _edge(conn, b, ("stg.users", "mail"), ("mart.stats", "domains"), "INDIRECT", "GROUP_BY")
        _edge(conn, b, ("stg.users", "mail"), ("mart.joined", "k"), "INDIRECT", "JOIN")
        _edge(conn, b, ("stg.users", "mail"), ("mart.hashed", "h"), masking=True)
        tagging.tag_field(conn, NS, "raw.users", "mail", "pii")
        rows = _rows(conn)
        assert rows[("raw.users", "mail", "pii")]["origin"] == "declared"
        contact = rows[("mart.customers", "contact", "pii")]
        assert contact["origin"] == "propagated"
        assert contact["path"] == [
            {"namespace": NS, "name": "raw.users", "field": "mail"},
            {
                "namespace": NS,
                "name": "stg.users",
                "field": "mail",
                "type": "DIRECT",
                "subtype": "IDENTITY",
            },
            {
                "namespace": NS,
                "name": "mart.customers",
                "field": "contact",
                "type": "DIRECT",
                "subtype": "TRANSFORMATION",
            },
        ]
        assert ("mart.joined", "k", "pii") in rows  # the config lets JOIN propagate
        assert ("mart.stats", "domains", "pii") not in rows  # GROUP_BY does not
        assert ("mart.hashed", "h", "pii") not in rows  # a masking edge does not

        tagging.declassify(conn, NS, "stg.users", "mail", "pii", by="ann", reason="hashed upstream")
        rows = _rows(conn)
        assert set(rows) == {("raw.users", "mail", "pii")}
        who = conn.execute(sa.select(s.field_declassifications)).one()
        assert (who.declassified_by, who.reason) == ("ann", "hashed upstream")


def test_a_config_rule_classifies_a_new_column_and_spreads_it(ruled: Engine) -> None:
    with ruled.begin() as conn:
        b = StoreBuilder(conn)
        _edge(conn, b, ("crm.people", "work_email"), ("mart.people", "email_copy"))
        other = b.dataset("elsewhere", "t", ("email",))
        classify.datasets_changed(conn, [b.datasets[(NS, "crm.people")], other])
        rows = _rows(conn)
        assert rows[("crm.people", "work_email", "pii.email")]["declared_by"] == "rule"
        # its dataset did not change yet: the tag reached it by propagation
        assert rows[("mart.people", "email_copy", "pii.email")]["origin"] == "propagated"
        assert ("t", "email", "pii.email") not in rows  # namespace elsewhere: no rule


FIELDS = [(f"d{i // 4}", f"c{i % 4}") for i in range(24)]
KINDS = [
    ("DIRECT", "IDENTITY"),
    ("DIRECT", "TRANSFORMATION"),
    ("DIRECT", "AGGREGATION"),
    ("INDIRECT", "JOIN"),
    ("INDIRECT", "FILTER"),
    ("", ""),
]


def _check_paths(conn: Connection, rows: dict[tuple[str, str, str], dict[str, Any]]) -> None:
    """Every propagated row's path is a chain of propagating edges from a declared column
    through no declassified column."""
    e, f, d = s.column_lineage_edges, s.dataset_fields, s.datasets
    fi, fo, di, do = f.alias(), f.alias(), d.alias(), d.alias()
    edges = {
        (r.di, r.fi, r.do, r.fo, r.kind, r.sub)
        for r in conn.execute(
            sa.select(
                di.c.name.label("di"),
                fi.c.name.label("fi"),
                do.c.name.label("do"),
                fo.c.name.label("fo"),
                e.c.transformation_type.label("kind"),
                e.c.transformation_subtype.label("sub"),
            )
            .select_from(e)
            .join(fi, fi.c.id == e.c.input_field_id)
            .join(di, di.c.id == fi.c.dataset_id)
            .join(fo, fo.c.id == e.c.output_field_id)
            .join(do, do.c.id == fo.c.dataset_id)
            .where(e.c.masking == sa.false())
        )
        if RULES.propagates(r.kind, r.sub, False)
    }
    dc, t = s.field_declassifications, s.tags
    blocked = {
        (r.name, r.field, r.tag)
        for r in conn.execute(
            sa.select(d.c.name, f.c.name.label("field"), t.c.name.label("tag"))
            .select_from(dc)
            .join(f, f.c.id == dc.c.field_id)
            .join(d, d.c.id == f.c.dataset_id)
            .join(t, t.c.id == dc.c.tag_id)
        )
    }
    for (ds, field, tag), row in rows.items():
        path = row["path"]
        assert len(path) == row["hops"] + 1
        assert (path[-1]["name"], path[-1]["field"]) == (ds, field)
        assert rows[(path[0]["name"], path[0]["field"], tag)]["origin"] == "declared"
        for before, hop in zip(path, path[1:], strict=False):
            assert (
                before["name"],
                before["field"],
                hop["name"],
                hop["field"],
                hop["type"],
                hop["subtype"],
            ) in edges
            assert (hop["name"], hop["field"], tag) not in blocked


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_incremental_classifications_equal_a_full_recompute_after_random_edits(
    ruled: Engine, seed: int
) -> None:
    rng = random.Random(seed)
    with ruled.begin() as conn:
        b = StoreBuilder(conn)
        for ds, field in FIELDS:
            b.field(NS, ds, field)
        for name in ("pii", "confidential"):
            tagging.put_tag(conn, name, None)
        edges: list[tuple[tuple[str, str], tuple[str, str], str, str, bool]] = []
        for step in range(60):
            op = rng.choice(
                ["edge", "edge", "edge", "tag", "untag", "stop", "declassify", "undo", "rule"]
            )
            src, dst = rng.sample(FIELDS, 2)
            tag = rng.choice(["pii", "confidential"])
            if op == "edge":
                kind, sub = rng.choice(KINDS)
                key = (src, dst, kind, sub, rng.random() < 0.1)
                if not any(k[:4] == key[:4] for k in edges):
                    edges.append(key)
                    _edge(conn, b, *key)
            elif op == "tag":
                tagging.tag_field(conn, NS, *src, tag)
            elif op == "untag":
                tagging.tag_field(conn, NS, *src, tag, add=False)
            elif op == "stop" and edges:
                (i_ds, i_f), (o_ds, o_f), kind, sub, _ = edges.pop(rng.randrange(len(edges)))
                e = s.column_lineage_edges
                conn.execute(
                    sa.delete(e).where(
                        e.c.input_field_id == b.field(NS, i_ds, i_f),
                        e.c.output_field_id == b.field(NS, o_ds, o_f),
                        e.c.transformation_type == kind,
                        e.c.transformation_subtype == sub,
                    )
                )
                classify.edges_removed(conn, [b.field(NS, i_ds, i_f)])
            elif op in ("declassify", "undo"):
                tagging.declassify(
                    conn, NS, *src, tag, by="bob", reason="hashed", declassified=op == "declassify"
                )
            elif op == "rule":
                new = b.field(NS, src[0], f"email{step}")
                _edge(conn, b, (src[0], f"email{step}"), dst)
                classify.datasets_changed(conn, [b.datasets[(NS, src[0])]])
                assert new
            incremental = _rows(conn)
            _check_paths(conn, incremental)
            with conn.begin_nested() as nested:
                classify.recompute(conn)
                full = _rows(conn)
                nested.rollback()

            def keys(rows: dict[tuple[str, str, str], dict[str, Any]]) -> dict[Any, Any]:
                return {k: (v["origin"], v["value"], v["declared_by"]) for k, v in rows.items()}

            assert keys(incremental) == keys(full), f"seed {seed} step {step} ({op})"
        assert any(v["origin"] == "propagated" for v in _rows(conn).values())


def _write(
    job: str, run: str, second: int, source: str, target: str, subtype: str, **facets: Any
) -> list[dict[str, Any]]:
    lineage = column_lineage({"contact": [("ns", source, "email", "DIRECT", subtype)]})
    out = dataset("ns", target, columnLineage=lineage)
    src = dataset("ns", source, **facets)
    when = f"2024-01-01T00:00:{second:02d}Z"
    return [run_event(run, "COMPLETE", when, job=job, inputs=[src], outputs=[out])]


def test_a_producers_tags_facet_classifies_a_column_that_then_follows_events_of_other_jobs(
    engine: Engine,
) -> None:
    tags = facet(
        tags=[
            {"key": "pii", "value": "email", "field": "email", "source": "DBT CORE"},
            {"key": "owner", "value": "crm"},
            {"key": "x" * 300, "value": "too long", "field": "email"},
        ]
    )
    run = [str(uuid.UUID(int=i + 1, version=4)) for i in range(3)]
    ingest(engine, _write("load", run[0], 1, "raw", "stg", "IDENTITY", tags=tags))
    # stg.contact -> mart.email arrives later, from another job
    lineage = column_lineage({"email": [("ns", "stg", "contact", "DIRECT", "TRANSFORMATION")]})
    event = run_event(
        run[1],
        "COMPLETE",
        "2024-01-01T00:00:03Z",
        job="mart",
        inputs=[dataset("ns", "stg")],
        outputs=[dataset("ns", "mart", columnLineage=lineage)],
    )
    ingest(engine, [event])
    with engine.connect() as conn:
        rows = _rows(conn)
        owner = conn.execute(
            sa.select(s.dataset_tags.c.tag_value)
            .join(s.tags, s.tags.c.id == s.dataset_tags.c.tag_id)
            .where(s.tags.c.name == "owner")
        ).scalar_one()
    assert owner == "crm"
    assert rows[("raw", "email", "pii")] == {
        "origin": "declared",
        "value": "email",
        "declared_by": "tag",
        "path": [{"namespace": "ns", "name": "raw", "field": "email"}],
        "hops": 0,
    }
    assert rows[("stg", "contact", "pii")]["origin"] == "propagated"
    mart = rows[("mart", "email", "pii")]
    assert (mart["origin"], mart["value"]) == ("propagated", "email")
    assert [(h["name"], h["field"], h.get("subtype")) for h in mart["path"]] == [
        ("raw", "email", None),
        ("stg", "contact", "IDENTITY"),
        ("mart", "email", "TRANSFORMATION"),
    ]
    assert {k for k in rows if k[2] != "pii"} == set()  # the over-long key was skipped


def test_a_store_from_before_classifications_is_computed_once(engine: Engine) -> None:
    with engine.begin() as conn:
        b = StoreBuilder(conn)
        b.column_edge(NS, ("raw", "email"), ("stg", "email"))
        tagging.put_tag(conn, "pii", None)
        tag = conn.execute(sa.select(s.tags.c.id).where(s.tags.c.name == "pii")).scalar_one()
        # as a store migrated from 0019 holds it: a field tag, nothing classified
        conn.execute(
            sa.insert(s.dataset_field_tags).values(
                field_id=b.field(NS, "raw", "email"), tag_id=tag, tagged_at=T0
            )
        )
        assert classify.recompute_if_empty(conn) is True
        assert _rows(conn)[("stg", "email", "pii")]["origin"] == "propagated"
        assert classify.recompute_if_empty(conn) is False
