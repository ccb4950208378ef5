"""Clean the product catalogue."""

from __future__ import annotations

from datetime import date

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from plumbline.demo.paths import DemoPaths


def run(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """Write the typed catalogue to `clean/products`."""
    raw = spark.read.option("header", True).csv(str(paths.raw_products))
    products = raw.select(
        "product_id",
        F.trim("product_name").alias("product_name"),
        F.lower("category").alias("category"),
        F.col("list_price").cast("decimal(10,2)").alias("list_price"),
    )
    products.write.mode("overwrite").parquet(str(paths.clean_products))
