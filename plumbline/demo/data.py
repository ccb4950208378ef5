"""Deterministic raw data for the demo shop: orders (two CSV sources), customers, products, returns.

Every file is a pure function of (day, scale, seed), so two runs at the same scale produce
byte-identical input and the lineage they record can be compared. Day 2 carries the surprises a
real landing zone has: a few new and updated customers, and store orders whose new point-of-sale
system writes prices with a decimal comma ("12,50"), which breaks a strict cast downstream.
"""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TypedDict

from plumbline.demo.paths import DAYS, DemoPaths

DEFAULT_SEED = 20240301

ORDER_COLUMNS = (
    "order_id",
    "customer_id",
    "product_id",
    "quantity",
    "unit_price",
    "discount",
    "ordered_at",
)
PRODUCT_COLUMNS = ("product_id", "product_name", "category", "list_price")

_FIRST = (
    "Ada",
    "Ben",
    "Chloe",
    "Dara",
    "Emil",
    "Fatma",
    "Goran",
    "Hana",
    "Ines",
    "Jonas",
    "Kai",
    "Lena",
    "Mika",
    "Nora",
    "Omar",
    "Pia",
    "Rafa",
    "Sofia",
    "Tomas",
    "Vera",
)
_LAST = (
    "Berg",
    "Costa",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Garcia",
    "Horvat",
    "Jansen",
    "Kowalski",
    "Larsen",
    "Moreau",
    "Novak",
    "Rossi",
    "Schmidt",
    "Vidal",
    "Weber",
)
_COUNTRIES = ("DE", "FR", "NL", "ES", "IT", "PL", "SE")
_CATEGORIES = {
    "kitchen": ("Kettle", "Knife Set", "Pan", "Grinder", "Scale"),
    "garden": ("Hose", "Shears", "Planter", "Rake", "Lamp"),
    "office": ("Desk Lamp", "Chair Mat", "Notebook", "Monitor Arm", "Stapler"),
    "outdoor": ("Tent", "Lantern", "Backpack", "Bottle", "Stove"),
}
_RETURN_REASONS = ("damaged", "wrong_size", "not_as_described", "changed_mind", "late_delivery")


class ReturnRow(TypedDict):
    """One entry of the returns document."""

    return_id: str
    order_id: str
    returned_at: str
    reason: str
    quantity: int


@dataclass(frozen=True)
class DaySummary:
    """What one day's drop contains (row counts as written to the raw files)."""

    day: date
    web_orders: int
    store_orders: int
    duplicate_orders: int
    invalid_quantity_orders: int
    decimal_comma_prices: int
    customers: int
    products: int
    returns: int


def _count(base: int, scale: float, minimum: int) -> int:
    return max(minimum, round(base * scale))


def _day_number(day: date) -> int:
    return DAYS.index(day) + 1


def n_customers(day: date, scale: float) -> int:
    """Customers known on `day`: day 2 adds about 5% new sign-ups."""
    base = _count(300, scale, 12)
    return base if _day_number(day) == 1 else base + max(1, base // 20)


def n_products(scale: float) -> int:
    return _count(40, scale, 8)


def n_orders(scale: float) -> int:
    """Orders per day across both sources (before duplicates)."""
    return _count(1500, scale, 40)


def products(scale: float, seed: int = DEFAULT_SEED) -> list[dict[str, str]]:
    """The product catalogue (the same on both days)."""
    rng = random.Random(f"{seed}:products")
    categories = sorted(_CATEGORIES)
    rows = []
    for i in range(1, n_products(scale) + 1):
        category = categories[(i - 1) % len(categories)]
        item = rng.choice(_CATEGORIES[category])
        price = rng.randint(399, 19999) / 100
        rows.append(
            {
                "product_id": f"P{i:04d}",
                "product_name": f"{item} {rng.choice('ABCDEFGH')}{i}",
                "category": category,
                "list_price": f"{price:.2f}",
            }
        )
    return rows


def customers(day: date, scale: float, seed: int = DEFAULT_SEED) -> list[dict[str, str]]:
    """The customer snapshot exported on `day`.

    Day 2's export also carries a second record for a few customers who moved country, with a
    later `updated_at`: the cleaning job must keep the latest one.
    """
    rng = random.Random(f"{seed}:customers")
    rows = []
    for i in range(1, n_customers(day, scale) + 1):
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        signup = date(2022, 1, 1) + timedelta(days=rng.randrange(790))
        rows.append(
            {
                "customer_id": f"C{i:05d}",
                "name": f"{first} {last}",
                "email": f"  {first}.{last}{i}@Example.com ",
                "country": rng.choice(_COUNTRIES),
                "signup_date": signup.isoformat(),
                "updated_at": f"{signup.isoformat()}T09:00:00",
            }
        )
    if _day_number(day) == 2:
        moved = random.Random(f"{seed}:moves")
        for row in moved.sample(rows[: n_customers(DAYS[0], scale)], k=max(1, len(rows) // 25)):
            updated = dict(row)
            updated["country"] = _COUNTRIES[
                (_COUNTRIES.index(row["country"]) + 1) % len(_COUNTRIES)
            ]
            updated["updated_at"] = f"{day.isoformat()}T06:30:00"
            rows.append(updated)
    return rows


def orders(day: date, scale: float, seed: int = DEFAULT_SEED) -> dict[str, list[dict[str, str]]]:
    """The day's orders by source (`web`, `store`), as the upstream systems export them.

    Includes a few exact duplicate rows (exporter retries) and a few zero-quantity rows (voided
    orders); on day 2 the store export writes some prices with a decimal comma.
    """
    number = _day_number(day)
    rng = random.Random(f"{seed}:orders:{number}")
    catalogue = products(scale, seed)
    known_customers = n_customers(day, scale)
    by_source: dict[str, list[dict[str, str]]] = {"web": [], "store": []}
    start = datetime(day.year, day.month, day.day)
    total = n_orders(scale)
    for i in range(1, total + 1):
        source = "web" if rng.random() < 0.6 else "store"
        product = rng.choice(catalogue)
        price = float(product["list_price"])
        quantity = rng.choice((1, 1, 1, 2, 2, 3, 4, 5)) if rng.random() > 0.01 else 0
        discount = rng.choice((0.0, 0.0, 0.0, 0.05, 0.10, 0.15)) * price * max(quantity, 1)
        ordered_at = start + timedelta(seconds=rng.randrange(86_400))
        unit_price = f"{price:.2f}"
        comma_roll = rng.random()
        if number == 2 and source == "store" and (comma_roll < 0.05 or not by_source["store"]):
            unit_price = unit_price.replace(".", ",")
        by_source[source].append(
            {
                "order_id": f"{source[0].upper()}{number}-{i:06d}",
                "customer_id": f"C{rng.randint(1, known_customers):05d}",
                "product_id": product["product_id"],
                "quantity": str(quantity),
                "unit_price": unit_price,
                "discount": f"{discount:.2f}",
                "ordered_at": ordered_at.isoformat(),
            }
        )
    for rows in by_source.values():
        for row in rng.sample(rows, k=max(1, len(rows) // 100)):
            rows.append(dict(row))
    return by_source


def returns(day: date, scale: float, seed: int = DEFAULT_SEED) -> list[ReturnRow]:
    """Returns registered on `day`, for orders of that day and (on day 2) the day before."""
    number = _day_number(day)
    rng = random.Random(f"{seed}:returns:{number}")
    eligible: list[dict[str, str]] = []
    for earlier in DAYS[:number]:
        for source_rows in orders(earlier, scale, seed).values():
            eligible.extend(r for r in source_rows if r["quantity"] != "0")
    eligible = sorted({r["order_id"]: r for r in eligible}.values(), key=lambda r: r["order_id"])
    chosen = rng.sample(eligible, k=max(2, len(eligible) // 20 // number))
    rows: list[ReturnRow] = []
    for i, order in enumerate(sorted(chosen, key=lambda r: r["order_id"]), start=1):
        returned_at = datetime(day.year, day.month, day.day, 8) + timedelta(
            minutes=rng.randrange(600)
        )
        rows.append(
            ReturnRow(
                return_id=f"R{number}-{i:05d}",
                order_id=order["order_id"],
                returned_at=returned_at.isoformat(),
                reason=rng.choice(_RETURN_REASONS),
                quantity=rng.randint(1, int(order["quantity"])),
            )
        )
    return rows


def _write_csv(path: Path, columns: tuple[str, ...], rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def write_day(paths: DemoPaths, day: date, scale: float, seed: int = DEFAULT_SEED) -> DaySummary:
    """Drop `day`'s raw files into the landing zone, replacing the previous day's drop."""
    if day not in DAYS:
        raise ValueError(f"the demo has data for {', '.join(map(str, DAYS))}, not {day}")
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    paths.raw.mkdir(parents=True, exist_ok=True)
    by_source = orders(day, scale, seed)
    _write_csv(paths.raw_orders_web, ORDER_COLUMNS, by_source["web"])
    _write_csv(paths.raw_orders_store, ORDER_COLUMNS, by_source["store"])
    catalogue = products(scale, seed)
    _write_csv(paths.raw_products, PRODUCT_COLUMNS, catalogue)
    people = customers(day, scale, seed)
    paths.raw_customers.write_text(
        "".join(json.dumps(row, sort_keys=True) + "\n" for row in people), encoding="utf-8"
    )
    day_returns = returns(day, scale, seed)
    paths.raw_returns.write_text(json.dumps(day_returns, indent=1), encoding="utf-8")
    all_orders = by_source["web"] + by_source["store"]
    return DaySummary(
        day=day,
        web_orders=len(by_source["web"]),
        store_orders=len(by_source["store"]),
        duplicate_orders=len(all_orders) - len({r["order_id"] for r in all_orders}),
        invalid_quantity_orders=len({r["order_id"] for r in all_orders if r["quantity"] == "0"}),
        decimal_comma_prices=sum("," in r["unit_price"] for r in all_orders),
        customers=len(people),
        products=len(catalogue),
        returns=len(day_returns),
    )
