"""The report table the business reads: the day's revenue and customer value per country."""

from __future__ import annotations

from datetime import date

from pyspark.sql import SparkSession

from plumbline.demo.paths import DemoPaths

REPORT = """
WITH day_revenue AS (
  SELECT country, SUM(orders) AS orders, SUM(revenue) AS revenue
  FROM daily_revenue WHERE order_date = :day GROUP BY country
), customer_value AS (
  SELECT country, COUNT(*) AS customers, SUM(lifetime_value) AS lifetime_value
  FROM customer_ltv GROUP BY country
), top_customer AS (
  SELECT country, MIN(customer_name) AS top_customer, MAX(lifetime_value) AS top_customer_value
  FROM customer_ltv WHERE value_rank = 1 GROUP BY country
)
SELECT v.country, :day AS report_date, d.orders, d.revenue,
       v.customers, v.lifetime_value, t.top_customer, t.top_customer_value
FROM customer_value v
JOIN top_customer t ON v.country = t.country
LEFT JOIN day_revenue d ON v.country = d.country
"""


def run(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """Overwrite the `country_report` table for `day`."""
    spark.read.parquet(str(paths.customer_ltv)).createOrReplaceTempView("customer_ltv")
    report = spark.sql(REPORT, args={"day": day}).orderBy("country")
    report.write.mode("overwrite").saveAsTable("country_report")
