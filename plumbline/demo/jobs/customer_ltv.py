"""Customer lifetime value, ranked within each country."""

from __future__ import annotations

from datetime import date

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

from plumbline.demo.paths import DemoPaths


def run(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """Write lifetime value per customer, with its rank in the customer's country, to `marts/customer_ltv`."""
    facts = spark.table("fact_orders")
    lifetime = facts.groupBy("customer_id", "customer_name", "country").agg(
        F.sum("amount").alias("lifetime_value"),
        F.countDistinct("order_id").alias("orders"),
        F.min("order_date").alias("first_order_date"),
        F.max("order_date").alias("last_order_date"),
    )
    in_country = Window.partitionBy("country").orderBy(F.desc("lifetime_value"), "customer_id")
    ranked = lifetime.withColumn("value_rank", F.rank().over(in_country))
    ranked.write.mode("overwrite").parquet(str(paths.customer_ltv))
