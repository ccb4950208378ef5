"""Append the day's revenue per country and channel to the `daily_revenue` table."""

from __future__ import annotations

from datetime import date

from pyspark.sql import SparkSession

from plumbline.demo.paths import DemoPaths

CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS daily_revenue (
  order_date DATE, country STRING, channel STRING,
  orders BIGINT, units BIGINT, revenue DECIMAL(16,2), returned_units BIGINT
) USING parquet
"""

INSERT_DAY = """
INSERT INTO daily_revenue
SELECT order_date, country, channel,
       COUNT(DISTINCT order_id) AS orders,
       SUM(quantity) AS units,
       SUM(amount) AS revenue,
       SUM(returned_quantity) AS returned_units
FROM fact_orders
WHERE order_date = :day
GROUP BY order_date, country, channel
"""


def run(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """Aggregate `day`'s facts into `daily_revenue`."""
    spark.sql(CREATE_TABLE)
    spark.sql(INSERT_DAY, args={"day": day})
