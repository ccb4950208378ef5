"""Clean the day's returns (a JSON document) into partitioned Parquet."""

from __future__ import annotations

from datetime import date

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

from plumbline.demo.paths import DemoPaths

RAW_SCHEMA = StructType(
    [
        StructField("return_id", StringType()),
        StructField("order_id", StringType()),
        StructField("returned_at", StringType()),
        StructField("reason", StringType()),
        StructField("quantity", LongType()),
    ]
)


def run(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """Replace `clean/returns/return_date=<day>` with the day's returns."""
    raw = spark.read.option("multiLine", True).schema(RAW_SCHEMA).json(str(paths.raw_returns))
    returns = (
        raw.select(
            "return_id",
            "order_id",
            F.to_timestamp("returned_at").alias("returned_at"),
            "reason",
            F.col("quantity").cast("int").alias("quantity"),
        )
        .withColumn("return_date", F.to_date("returned_at"))
        .where(F.col("return_date") == F.lit(day))
    )
    returns.write.mode("overwrite").partitionBy("return_date").parquet(str(paths.clean_returns))
