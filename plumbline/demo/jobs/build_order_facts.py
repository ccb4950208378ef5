"""Join the cleaned orders with customers, products and returns into the `fact_orders` table."""

from __future__ import annotations

from datetime import date

from pyspark.sql import SparkSession

from plumbline.demo.paths import DemoPaths

CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS fact_orders (
  order_id STRING, order_date DATE, channel STRING,
  customer_id STRING, customer_name STRING, country STRING,
  product_id STRING, product_name STRING, category STRING,
  quantity INT, unit_price DECIMAL(10,2), amount DECIMAL(14,2), returned_quantity BIGINT
) USING parquet
"""

#: Added on day 2, when finance asked for revenue net of discounts.
DISCOUNT_COLUMNS = {"discount": "DECIMAL(10,2)", "net_amount": "DECIMAL(14,2)"}

INSERT_FACTS = """
INSERT OVERWRITE TABLE fact_orders
SELECT o.order_id, o.order_date, o.channel,
       o.customer_id, c.name AS customer_name, c.country,
       o.product_id, p.product_name, p.category,
       o.quantity, o.unit_price, o.quantity * o.unit_price AS amount,
       COALESCE(r.returned_quantity, 0) AS returned_quantity,
       o.discount, o.quantity * o.unit_price - o.discount AS net_amount
FROM orders o
JOIN customers c ON o.customer_id = c.customer_id
JOIN products p ON o.product_id = p.product_id
LEFT JOIN (SELECT order_id, SUM(quantity) AS returned_quantity FROM returns GROUP BY order_id) r ON o.order_id = r.order_id
"""


def register_views(spark: SparkSession, paths: DemoPaths) -> None:
    """The cleaned datasets as temporary views named after what they hold."""
    spark.read.parquet(str(paths.clean_orders)).createOrReplaceTempView("orders")
    spark.read.parquet(str(paths.clean_customers)).createOrReplaceTempView("customers")
    spark.read.parquet(str(paths.clean_products)).createOrReplaceTempView("products")
    spark.read.parquet(str(paths.clean_returns)).createOrReplaceTempView("returns")


def add_missing_columns(spark: SparkSession, table: str, columns: dict[str, str]) -> None:
    """Evolve `table`'s schema by appending the `columns` it does not have yet."""
    present = set(spark.table(table).columns)
    missing = [f"{name} {kind}" for name, kind in columns.items() if name not in present]
    if missing:
        spark.sql(f"ALTER TABLE {table} ADD COLUMNS ({', '.join(missing)})")


def run(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """Rebuild `fact_orders` from all cleaned orders, with discount and net amount."""
    register_views(spark, paths)
    spark.sql(CREATE_TABLE)
    add_missing_columns(spark, "fact_orders", DISCOUNT_COLUMNS)
    spark.sql(INSERT_FACTS)
