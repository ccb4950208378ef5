"""Return rate per product, rebuilt with CREATE TABLE AS SELECT."""

from __future__ import annotations

from datetime import date

from pyspark.sql import SparkSession

from plumbline.demo.paths import DemoPaths

CREATE_AS_SELECT = """
CREATE TABLE product_return_rates USING parquet AS
SELECT product_id, product_name, category,
       SUM(quantity) AS units_sold,
       SUM(returned_quantity) AS units_returned,
       ROUND(SUM(returned_quantity) / SUM(quantity), 4) AS return_rate
FROM fact_orders
GROUP BY product_id, product_name, category
"""


def run(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """Replace `product_return_rates` with rates over all facts so far."""
    spark.sql("DROP TABLE IF EXISTS product_return_rates")
    spark.sql(CREATE_AS_SELECT)
