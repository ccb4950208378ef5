"""The raw data generator: deterministic, and carrying the surprises the scenario relies on."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from plumbline.demo import data
from plumbline.demo.paths import DAY_1, DAY_2, DemoPaths


def _digests(paths: DemoPaths) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(paths.raw.iterdir())}


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_same_day_scale_and_seed_give_identical_files(tmp_path: Path) -> None:
    first, second = DemoPaths.under(tmp_path / "a"), DemoPaths.under(tmp_path / "b")
    data.write_day(first, DAY_2, 0.1)
    data.write_day(second, DAY_2, 0.1)
    assert _digests(first) == _digests(second)
    assert sorted(_digests(first)) == [
        "customers.jsonl",
        "orders_store.csv",
        "orders_web.csv",
        "products.csv",
        "returns.json",
    ]


def test_another_seed_gives_other_orders(tmp_path: Path) -> None:
    first, second = DemoPaths.under(tmp_path / "a"), DemoPaths.under(tmp_path / "b")
    data.write_day(first, DAY_1, 0.1)
    data.write_day(second, DAY_1, 0.1, seed=1)
    assert first.raw_orders_web.read_bytes() != second.raw_orders_web.read_bytes()


def test_summary_matches_the_files_written(tmp_path: Path) -> None:
    paths = DemoPaths.under(tmp_path)
    summary = data.write_day(paths, DAY_2, 0.1)
    web, store = _csv(paths.raw_orders_web), _csv(paths.raw_orders_store)
    all_orders = web + store
    assert (summary.web_orders, summary.store_orders) == (len(web), len(store))
    # scale 0.1: 150 distinct orders a day, plus 1% exporter-retry duplicates per source
    assert len({r["order_id"] for r in all_orders}) == 150
    assert summary.duplicate_orders == len(all_orders) - 150 > 0
    assert summary.decimal_comma_prices == sum("," in r["unit_price"] for r in all_orders) > 0
    assert len(paths.raw_customers.read_text().splitlines()) == summary.customers
    assert len(json.loads(paths.raw_returns.read_text())) == summary.returns
    assert len(_csv(paths.raw_products)) == summary.products == 8


def test_day_one_prices_all_parse_and_day_two_store_prices_do_not() -> None:
    day1 = data.orders(DAY_1, 0.1)
    day2 = data.orders(DAY_2, 0.1)
    assert not any("," in r["unit_price"] for rows in day1.values() for r in rows)
    assert not any("," in r["unit_price"] for r in day2["web"])
    assert any("," in r["unit_price"] for r in day2["store"])


def test_day_two_brings_new_customers_and_moves() -> None:
    day1 = data.customers(DAY_1, 0.1)
    day2 = data.customers(DAY_2, 0.1)
    assert [c["customer_id"] for c in day1] == [f"C{i:05d}" for i in range(1, 31)]
    ids = [c["customer_id"] for c in day2]
    assert set(ids) == {f"C{i:05d}" for i in range(1, 32)}  # one new sign-up
    moved = [c for c in day2 if c["updated_at"].startswith("2024-03-02")]
    assert len(ids) - len(set(ids)) == len(moved) == 1
    before = next(c for c in day1 if c["customer_id"] == moved[0]["customer_id"])
    assert before["country"] != moved[0]["country"]


def test_returns_refer_to_orders_of_that_day_or_earlier() -> None:
    known = {
        r["order_id"] for d in (DAY_1, DAY_2) for rows in data.orders(d, 0.1).values() for r in rows
    }
    day1_ids = {r["order_id"] for rows in data.orders(DAY_1, 0.1).values() for r in rows}
    assert {r["order_id"] for r in data.returns(DAY_1, 0.1)} <= day1_ids
    assert {r["order_id"] for r in data.returns(DAY_2, 0.1)} <= known


def test_unknown_day_and_bad_scale_are_refused(tmp_path: Path) -> None:
    from datetime import date

    with pytest.raises(ValueError, match="not 2024-03-03"):
        data.write_day(DemoPaths.under(tmp_path), date(2024, 3, 3), 1)
    with pytest.raises(ValueError, match="scale must be positive"):
        data.write_day(DemoPaths.under(tmp_path), DAY_1, 0)
