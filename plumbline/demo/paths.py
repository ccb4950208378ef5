"""Where the demo pipeline keeps its files: one work directory, laid out like a small lake."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

#: The two business days the scenario replays.
DAY_1 = date(2024, 3, 1)
DAY_2 = date(2024, 3, 2)
DAYS = (DAY_1, DAY_2)


@dataclass(frozen=True)
class DemoPaths:
    """Absolute locations of the raw landing files, the cleaned Parquet, marts and warehouse."""

    root: Path

    @classmethod
    def under(cls, root: str | Path) -> DemoPaths:
        """Paths under `root`, made absolute (dataset names are absolute paths)."""
        return cls(Path(root).resolve())

    # raw landing zone: overwritten by each day's drop, as upstream systems deliver it
    @property
    def raw(self) -> Path:
        return self.root / "raw"

    @property
    def raw_orders_web(self) -> Path:
        return self.raw / "orders_web.csv"

    @property
    def raw_orders_store(self) -> Path:
        return self.raw / "orders_store.csv"

    @property
    def raw_customers(self) -> Path:
        return self.raw / "customers.jsonl"

    @property
    def raw_products(self) -> Path:
        return self.raw / "products.csv"

    @property
    def raw_returns(self) -> Path:
        return self.raw / "returns.json"

    # cleaned Parquet
    @property
    def clean(self) -> Path:
        return self.root / "clean"

    @property
    def clean_orders(self) -> Path:
        return self.clean / "orders"

    @property
    def clean_customers(self) -> Path:
        return self.clean / "customers"

    @property
    def clean_products(self) -> Path:
        return self.clean / "products"

    @property
    def clean_returns(self) -> Path:
        return self.clean / "returns"

    # marts written as plain Parquet paths (tables live in the warehouse)
    @property
    def customer_ltv(self) -> Path:
        return self.root / "marts" / "customer_ltv"

    @property
    def warehouse(self) -> Path:
        return self.root / "warehouse"

    def table(self, name: str) -> Path:
        """Location of a managed table in the demo's Spark warehouse."""
        return self.warehouse / name
