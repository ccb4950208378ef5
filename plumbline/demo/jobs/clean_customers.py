"""Clean the customer export: the latest record per customer, normalised e-mail."""

from __future__ import annotations

from datetime import date

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from plumbline.demo.paths import DemoPaths

RAW_SCHEMA = StructType(
    [
        StructField(name, StringType())
        for name in ("customer_id", "name", "email", "country", "signup_date", "updated_at")
    ]
)


def run(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """Write the current customer snapshot to `clean/customers`."""
    raw = spark.read.schema(RAW_SCHEMA).json(str(paths.raw_customers))
    newest_first = Window.partitionBy("customer_id").orderBy(F.col("updated_at").desc())
    latest = raw.withColumn("_recency", F.row_number().over(newest_first)).where("_recency = 1")
    customers = latest.select(
        "customer_id",
        F.trim("name").alias("name"),
        F.lower(F.trim("email")).alias("email"),
        "country",
        F.to_date("signup_date").alias("signup_date"),
    )
    customers.write.mode("overwrite").parquet(str(paths.clean_customers))
