"""One schema-diff rule (issue 31 §5): schema-drift alerts, run diff and the dataset page's
version history report the same changes, nested fields included, with types compared without
case or whitespace. Before, ``INT`` -> ``int`` raised a drift alert that run diff showed as
unchanged, and the UI compared top-level fields only. Both backends, over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from pipeline import DS, ORDERS, day, run_id
from store_summary import column_lineage, dataset, facet

from plumbline.openlineage.schema_diff import diff_schemas

SPELLED_OTHERWISE = {"id": "STRING", "price": "DECIMAL(10, 2)", "qty": "INT"}
ADDRESS = {"name": "address", "type": "struct", "fields": [{"name": "city", "type": "string"}]}
ADDRESS_RETYPED = {"name": "address", "type": "struct", "fields": [{"name": "city", "type": "int"}]}


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ([{"name": "a", "type": "INT"}], [{"name": "a", "type": "int"}], ([], [], [])),
        ([{"name": "a", "type": "decimal(10, 2)"}], [{"name": "a", "type": "DECIMAL(10,2)"}], ([], [], [])),
        ([{"name": "a", "type": "int"}], [{"name": "a", "type": "bigint"}], ([], [], [("a", "int", "bigint")])),
        ([{"name": "a"}], [{"name": "a", "type": "int"}], ([], [], [("a", None, "int")])),
        ([ADDRESS], [ADDRESS_RETYPED], ([], [], [("address.city", "string", "int")])),
        ([], [ADDRESS], ([("address", "struct"), ("address.city", "string")], [], [])),
        ([ADDRESS, {"name": "x", "type": "int"}], [{"name": "x", "type": "int"}],
         ([], [("address", "struct"), ("address.city", "string")], [])),
        ([{"name": "a", "type": "int", "description": "old"}], [{"name": "a", "type": "int"}], ([], [], [])),
        (None, [{"name": "a", "type": "int"}, "junk", {"type": "int"}], ([("a", "int")], [], [])),
    ],
)  # fmt: skip
def test_the_rule(before: Any, after: Any, expected: tuple[list[Any], ...]) -> None:
    diff = diff_schemas(before, after)
    retyped = [(r.name, r.before, r.after) for r in diff.retyped]
    assert (list(diff.added), list(diff.removed), retyped) == expected
    assert diff.same == (expected == ([], [], []))


def _orders(fields: list[dict[str, Any]]) -> dict[str, Any]:
    lineage = column_lineage(
        {f["name"]: [(DS, "raw", f["name"], "DIRECT", "IDENTITY")] for f in fields}
    )
    return dataset(DS, "orders", schema=facet(fields=fields), columnLineage=lineage)


def _fields(spec: dict[str, str]) -> list[dict[str, Any]]:
    return [{"name": k, "type": v} for k, v in spec.items()]


def _post(url: str, events: list[dict[str, Any]]) -> None:
    for event in events:  # one at a time: each write is normalized before the next
        answer = httpx.post(f"{url}/api/v1/lineage", json=event, timeout=30)
        assert answer.status_code == 201, answer.text
        httpx.get(f"{url}/api/v1/namespaces/{DS}/datasets/orders/versions", timeout=30)


def _drifts(url: str) -> list[dict[str, Any]]:
    alerts = httpx.get(f"{url}/api/v1/alerts", timeout=30).json()["alerts"]
    return [a for a in alerts if a["kind"] == "schema-drift"]


def _load_diff(url: str, hour: int) -> list[dict[str, Any]]:
    """Run diff of hour's load run against the hour before's: the orders output's changes."""
    answer = httpx.get(
        f"{url}/api/v1/jobs/runs/{run_id(2 * hour + 1)}/diff",
        params={"against": run_id(2 * hour - 1)},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text
    (orders,) = [o for o in answer.json()["outputs"] if o["name"] == "orders"]
    return list(orders["schemaChanges"])


def _newest_changes(url: str) -> dict[str, Any]:
    page = httpx.get(f"{url}/api/v1/namespaces/{DS}/datasets/orders/versions", timeout=30)
    return dict(page.json()["versions"][0]["schemaChanges"])


def test_alerts_run_diff_and_versions_agree(make_server: Callable[..., Any]) -> None:
    url = make_server().url
    _post(url, day(0) + day(1))
    # the same types spelled otherwise: no drift anywhere
    _post(url, day(2, outputs=[_orders(_fields(SPELLED_OTHERWISE))]))
    assert _drifts(url) == []
    assert _load_diff(url, 2) == []
    assert _newest_changes(url) == {"added": [], "removed": [], "retyped": []}
    # a nested field appears, then changes type: all three name `address.city`
    _post(url, day(3, outputs=[_orders(_fields(ORDERS) + [ADDRESS])]))
    _post(url, day(4, outputs=[_orders(_fields(ORDERS) + [ADDRESS_RETYPED])]))
    retype = {"name": "address.city", "before": "string", "after": "int"}
    assert _newest_changes(url) == {"added": [], "removed": [], "retyped": [retype]}
    assert _load_diff(url, 4) == [
        {
            "field": "address.city",
            "change": "typeChanged",
            "typeBefore": "string",
            "typeAfter": "int",
        }
    ]
    newest = [a for a in _drifts(url) if a["runId"] == run_id(9)]
    assert [a["details"]["retyped"] for a in newest] == [[retype]]


def test_a_single_version_carries_its_changes_and_the_first_none(
    make_server: Callable[..., Any],
) -> None:
    url = make_server().url
    _post(url, day(0) + day(1, outputs=[_orders(_fields(ORDERS) + [ADDRESS])]))
    base = f"{url}/api/v1/namespaces/{DS}/datasets/orders/versions"
    oldest, newest = reversed(httpx.get(base, timeout=30).json()["versions"])
    one = httpx.get(f"{base}/{newest['version']}", timeout=30).json()
    added = [{"name": "address", "type": "struct"}, {"name": "address.city", "type": "string"}]
    assert one["schemaChanges"] == {"added": added, "removed": [], "retyped": []}
    assert httpx.get(f"{base}/{oldest['version']}", timeout=30).json()["schemaChanges"] is None
    # a page of one still diffs its version against the one before it
    page = httpx.get(base, params={"limit": 1}, timeout=30).json()
    assert page["versions"][0]["schemaChanges"]["added"] == added
