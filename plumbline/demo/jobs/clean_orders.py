"""Clean the day's orders from both sales channels into partitioned Parquet."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from plumbline.demo.paths import DemoPaths

AMOUNT = "decimal(10,2)"

#: Both exports share one layout; every field is read as text and typed explicitly below.
RAW_SCHEMA = StructType(
    [
        StructField(name, StringType())
        for name in (
            "order_id",
            "customer_id",
            "product_id",
            "quantity",
            "unit_price",
            "discount",
            "ordered_at",
        )
    ]
)


def parse_amount(text: Column) -> Column:
    """A money amount; the store's point-of-sale system writes a decimal comma ("12,50")."""
    return F.regexp_replace(text, ",", ".").cast(AMOUNT)


def read_raw(spark: SparkSession, paths: DemoPaths) -> DataFrame:
    """Web and store exports as one DataFrame, tagged with their channel."""

    def source(path: str, channel: str) -> DataFrame:
        frame = spark.read.option("header", True).schema(RAW_SCHEMA).csv(path)
        return frame.withColumn("channel", F.lit(channel))

    web = source(str(paths.raw_orders_web), "web")
    store = source(str(paths.raw_orders_store), "store")
    return web.unionByName(store)


def clean(raw: DataFrame, day: date, amount: Callable[[Column], Column]) -> DataFrame:
    """Typed, de-duplicated, non-void orders of `day`."""
    typed = raw.select(
        "order_id",
        "customer_id",
        "product_id",
        F.col("quantity").cast("int").alias("quantity"),
        amount(F.col("unit_price")).alias("unit_price"),
        amount(F.col("discount")).alias("discount"),
        F.to_timestamp("ordered_at").alias("ordered_at"),
        "channel",
    )
    return (
        typed.where(F.col("quantity") > 0)
        .dropDuplicates(["order_id"])
        .withColumn("order_date", F.to_date("ordered_at"))
        .where(F.col("order_date") == F.lit(day))
    )


def write(orders: DataFrame, paths: DemoPaths) -> None:
    """Replace the day's partition only (the session uses dynamic partition overwrite)."""
    orders.write.mode("overwrite").partitionBy("order_date").parquet(str(paths.clean_orders))


def run(spark: SparkSession, paths: DemoPaths, day: date) -> None:
    """Clean `day`'s orders into `clean/orders/order_date=<day>`."""
    write(clean(read_raw(spark, paths), day, amount=parse_amount), paths)
