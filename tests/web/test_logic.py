"""Pure UI logic (graph model, node ids, schema diff, transformations), run in the real browser."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser


def graph_json(nodes: dict[str, str], edges: list[tuple[str, str]]) -> dict:
    """A Marquez-shaped lineage response."""
    return {
        "graph": [
            {
                "id": nid,
                "type": ntype,
                "data": {"name": nid},
                "inEdges": [{"origin": a, "destination": b} for a, b in edges if b == nid],
                "outEdges": [{"origin": a, "destination": b} for a, b in edges if a == nid],
            }
            for nid, ntype in nodes.items()
        ]
    }


LINEAGE = graph_json(
    {
        "dataset:s:raw": "DATASET",
        "job:s:clean": "JOB",
        "dataset:s:clean": "DATASET",
        "job:s:report": "JOB",
        "dataset:s:report": "DATASET",
        "dataset:s:other": "DATASET",
    },
    [
        ("dataset:s:raw", "job:s:clean"),
        ("job:s:clean", "dataset:s:clean"),
        ("dataset:s:clean", "job:s:report"),
        ("job:s:report", "dataset:s:report"),
        ("dataset:s:other", "job:s:report"),
    ],
)


def test_path_between_two_nodes(harness: Any) -> None:
    result = harness.evaluate(
        """async (g) => {
          const { GraphModel } = await import('/js/graph_model.js');
          const m = new GraphModel();
          m.merge(g);
          const p = m.pathBetween('dataset:s:report', 'dataset:s:raw');
          const none = m.pathBetween('dataset:s:other', 'dataset:s:clean');
          return { nodes: [...p.nodes].sort(), edges: [...p.edges].map((k) => k.split('\\u0000')).sort(),
                   none: none.nodes.size, size: [m.nodes.size, m.edges.size] };
        }""",
        LINEAGE,
    )
    assert result["size"] == [6, 5]
    assert result["nodes"] == sorted(
        ["dataset:s:raw", "job:s:clean", "dataset:s:clean", "job:s:report", "dataset:s:report"]
    )
    assert result["edges"] == sorted(
        [
            ["dataset:s:raw", "job:s:clean"],
            ["job:s:clean", "dataset:s:clean"],
            ["dataset:s:clean", "job:s:report"],
            ["job:s:report", "dataset:s:report"],
        ]
    )
    assert result["none"] == 0


def test_expand_one_step_merges_only_that_side(harness: Any) -> None:
    # The explorer shows clean + its producer; the server's depth-1 answer around job:s:report
    # also contains its inputs, of which only the upstream side is merged.
    first = graph_json(
        {"dataset:s:clean": "DATASET", "job:s:report": "JOB"},
        [
            ("dataset:s:clean", "job:s:report"),
            ("dataset:s:other", "job:s:report"),
            ("job:s:report", "dataset:s:report"),
        ],
    )
    result = harness.evaluate(
        """async ([first, around]) => {
          const { GraphModel, oneStep } = await import('/js/graph_model.js');
          const m = new GraphModel();
          m.merge(first);
          const before = m.hidden('job:s:report');
          const keep = oneStep(around, 'job:s:report', 'up');
          const added = m.merge(around, (x) => keep.has(x) || m.nodes.has(x));
          return { before, added: added.sort(), after: m.hidden('job:s:report'), keep: [...keep].sort() };
        }""",
        [first, LINEAGE],
    )
    assert result["before"] == {"up": 1, "down": 1}
    assert result["keep"] == ["dataset:s:clean", "dataset:s:other", "job:s:report"]
    assert result["added"] == ["dataset:s:other"]
    assert result["after"] == {"up": 0, "down": 1}


@pytest.mark.parametrize(
    ("node_id", "expected"),
    [
        (
            "dataset:file:/tmp/wh/orders",
            {"type": "DATASET", "namespace": "file", "name": "/tmp/wh/orders", "field": None},
        ),
        (
            "job:shop:shop.execute_insert.orders",
            {
                "type": "JOB",
                "namespace": "shop",
                "name": "shop.execute_insert.orders",
                "field": None,
            },
        ),
        (
            "dataset:postgres://db:5432:public.orders",
            {
                "type": "DATASET",
                "namespace": "postgres://db:5432",
                "name": "public.orders",
                "field": None,
            },
        ),
        (
            "datasetField:s3://bucket:warehouse/orders:amount",
            {
                "type": "DATASET_FIELD",
                "namespace": "s3://bucket",
                "name": "warehouse/orders",
                "field": "amount",
            },
        ),
    ],
)
def test_parse_node_id(harness: Any, node_id: str, expected: dict) -> None:
    got = harness.evaluate("async (id) => (await import('/js/api.js')).parseNodeId(id)", node_id)
    assert got == expected


def test_column_transformation_reads_both_marquez_and_spec_shapes(harness: Any) -> None:
    got = harness.evaluate(
        """async () => {
          const { columnTransformation } = await import('/js/graph_model.js');
          const origin = { data: { namespace: 'file', dataset: '/raw', field: 'amt' } };
          const legacy = { data: { inputFields: [{ namespace: 'file', dataset: '/raw', field: 'amt',
              transformationType: 'DIRECT', transformationDescription: 'sum' }] } };
          const spec = { data: { inputFields: [{ namespace: 'file', dataset: '/raw', field: 'amt',
              transformations: [{ type: 'INDIRECT', subtype: 'FILTER' }] }] } };
          const other = { data: { inputFields: [{ namespace: 'file', dataset: '/raw', field: 'id' }] } };
          return [columnTransformation(legacy, origin), columnTransformation(spec, origin), columnTransformation(other, origin)];
        }"""
    )
    assert got == [
        {"type": "DIRECT", "subtype": None, "description": "sum"},
        {"type": "INDIRECT", "subtype": "FILTER", "description": None},
        None,
    ]


def test_filter_edges_and_prune_keep_only_direct_provenance(harness: Any) -> None:
    # total <- amount (DIRECT), total <- customer_id (INDIRECT JOIN), customer_id <- raw_id (DIRECT),
    # amount -> other (DIRECT): without indirect edges only amount and other stay around total.
    def field(fid: str, inputs: list[tuple[str, str]]) -> dict:
        return {
            "namespace": "f",
            "dataset": "/d",
            "field": fid,
            "inputFields": [
                {
                    "namespace": "f",
                    "dataset": "/d",
                    "field": i,
                    "transformations": [{"type": t, "subtype": "X"}],
                }
                for i, t in inputs
            ],
        }

    nodes = {
        "total": field("total", [("amount", "DIRECT"), ("customer_id", "INDIRECT")]),
        "amount": field("amount", []),
        "customer_id": field("customer_id", [("raw_id", "DIRECT")]),
        "raw_id": field("raw_id", []),
        "other": field("other", [("amount", "DIRECT")]),
    }
    edges = [
        ("amount", "total"),
        ("customer_id", "total"),
        ("raw_id", "customer_id"),
        ("amount", "other"),
    ]
    graph = {
        "graph": [
            {
                "id": k,
                "type": "DATASET_FIELD",
                "data": v,
                "inEdges": [{"origin": a, "destination": b} for a, b in edges if b == k],
                "outEdges": [{"origin": a, "destination": b} for a, b in edges if a == k],
            }
            for k, v in nodes.items()
        ]
    }
    got = harness.evaluate(
        """async (g) => {
          const { GraphModel, filterEdges, columnTransformation } = await import('/js/graph_model.js');
          const direct = filterEdges(g, (o, d) => (columnTransformation(d, o) || {}).type === 'INDIRECT');
          const m = new GraphModel();
          m.merge(direct);
          const merged = [...m.nodes.keys()].sort();
          m.prune(() => false, 'total');
          return { merged, kept: [...m.nodes.keys()].sort(), edges: [...m.edges.values()].map((e) => `${e.from}>${e.to}`).sort(),
                   hidden: m.hidden('amount') };
        }""",
        graph,
    )
    assert got["merged"] == ["amount", "customer_id", "other", "raw_id", "total"]
    # other is downstream of amount but neither upstream nor downstream of total.
    assert got["kept"] == ["amount", "total"]
    assert got["edges"] == ["amount>total"]
    assert got["hidden"] == {"up": 0, "down": 1}


def test_one_short_form_of_ids_as_the_cli_prints(harness: Any) -> None:
    # issue 27: the UI printed the last 12 characters, the CLI the first 8; both print the last 8
    # (random in v4 and time-ordered v7 ids alike)
    result = harness.evaluate(
        """async () => {
          const { shortId } = await import('/js/format.js');
          return [shortId('7F9A06A0-1111-4000-8000-000000000002'), shortId('4358109269898203000'),
                  shortId('x'.repeat(30)), shortId(null)];
        }"""
    )
    assert result == ["00000002", "4358109269898203000", "x" * 23 + "…", "—"]


def test_jobs_sharing_a_short_name_are_told_apart(harness: Any) -> None:
    # issue 27: three jobs all shown as default_fact_orders on the Overview and in the graph
    names = [
        "shop.execute_insert_into_hadoop_fs_relation_command.default_fact_orders",
        "shop.create_data_source_table_as_select_command.default_fact_orders",
        "other.execute_insert_into_hadoop_fs_relation_command.default_fact_orders",
        "shop.execute_insert_into_hadoop_fs_relation_command.clean_readings",
        "plain_job",
    ]
    labels = harness.evaluate(
        """async (names) => {
          const { jobLabels } = await import('/js/names.js');
          const label = jobLabels(names);
          return names.map(label);
        }""",
        names,
    )
    assert labels == [
        "default_fact_orders (insert_into_hadoop_fs_relation, shop)",
        "default_fact_orders (create_data_source_table_as_select)",
        "default_fact_orders (insert_into_hadoop_fs_relation, other)",
        "clean_readings",
        "plain_job",
    ]
    assert len(set(labels)) == len(labels)
