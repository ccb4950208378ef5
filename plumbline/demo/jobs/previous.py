"""Earlier revisions of two jobs, as they were before the changes the demo scenario replays.

- `clean_orders_strict_cast`: the first `clean_orders`, which cast prices strictly; day 2's
  store export writes "12,50" and the cast fails under ANSI mode (fixed by `parse_amount`).
- `build_order_facts_without_discount`: `fact_orders` before the `discount` and `net_amount`
  columns were added.
"""

from __future__ import annotations

from datetime import date

from pyspark.sql import SparkSession

from plumbline.demo.jobs import build_order_facts, clean_orders
from plumbline.demo.paths import DemoPaths

INSERT_FACTS_WITHOUT_DISCOUNT = """
INSERT OVERWRITE TABLE fact_orders
SELECT o.order_id, o.order_date, o.channel,
       o.customer_id, c.name AS customer_name, c.country,
       o.product_id, p.product_name, p.category,
       o.quantity, o.unit_price, o.quantity * o.unit_price AS amount,
       COALESCE(r.returned_quantity, 0) AS returned_quantity
FROM orders o
JOIN customers c ON o.customer_id = c.customer_id
JOIN products p ON o.product_id = p.product_id
LEFT JOIN (SELECT order_id, SUM(quantity) AS returned_quantity FROM returns GROUP BY order_id) r ON o.order_id = r.order_id
"""


def clean_orders_strict_cast(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """`clean_orders` before the fix: prices cast straight to decimal."""
    raw = clean_orders.read_raw(spark, paths)
    orders = clean_orders.clean(raw, day, amount=lambda text: text.cast(clean_orders.AMOUNT))
    clean_orders.write(orders, paths)


def build_order_facts_without_discount(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """`build_order_facts` before discounts: thirteen columns."""
    build_order_facts.register_views(spark, paths)
    spark.sql(build_order_facts.CREATE_TABLE)
    spark.sql(INSERT_FACTS_WITHOUT_DISCOUNT)
