"""Real Iceberg tables for the catalog tests: a pyiceberg SQL catalog with table sales.orders."""

from __future__ import annotations

from types import SimpleNamespace

import pyarrow as pa

ARROW_SCHEMA = pa.schema(
    [
        pa.field("order_id", pa.int64(), nullable=False),
        pa.field("amount", pa.float64()),
        pa.field(
            "customer", pa.struct([pa.field("id", pa.int64()), pa.field("country", pa.string())])
        ),
    ]
)


def rows(start: int) -> pa.Table:
    return pa.Table.from_pylist(
        [
            {"order_id": start, "amount": 9.5, "customer": {"id": 1, "country": "NL"}},
            {"order_id": start + 1, "amount": 20.0, "customer": {"id": 2, "country": "DE"}},
        ],
        schema=ARROW_SCHEMA,
    )


class Iceberg(SimpleNamespace):
    properties: dict[str, str]
    warehouse: str
    table_uuid: str
    location: str
    snapshots: list[int]


def make_iceberg(name: str, properties: dict[str, str]) -> Iceberg:
    """An Iceberg SQL catalog with table sales.orders, appended twice."""
    from pyiceberg.catalog import load_catalog

    catalog = load_catalog(name, **properties)
    catalog.create_namespace("sales")
    table = catalog.create_table("sales.orders", schema=ARROW_SCHEMA)
    table.append(rows(1))
    first = table.current_snapshot().snapshot_id
    table.append(rows(3))
    second = table.current_snapshot().snapshot_id
    return Iceberg(
        catalog=catalog,
        properties=properties,
        warehouse=properties["warehouse"],
        table_uuid=str(table.metadata.table_uuid),
        location=table.location(),
        snapshots=[first, second],
    )


EXPECTED_FIELDS = [
    {"name": "order_id", "type": "long"},
    {"name": "amount", "type": "double"},
    {
        "name": "customer",
        "type": "struct<4: id: optional long, 5: country: optional string>",
        "fields": [{"name": "id", "type": "long"}, {"name": "country", "type": "string"}],
    },
]
