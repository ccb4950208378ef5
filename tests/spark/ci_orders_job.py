"""The job of the CI recipe test (tests/spark/test_expectations_ci.py), an unchanged PySpark script
run by `plumbline run`: clean orders (amount in EUR), then revenue per country.

    python ci_orders_job.py DATA_DIR OUT_DIR
"""

import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

data, out = sys.argv[1], sys.argv[2]
spark = (
    SparkSession.builder.master("local[1]")
    .appName("ciOrders")
    .config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "1")
    .getOrCreate()
)
raw = spark.read.option("header", True).csv(f"{data}/orders.csv")
clean = raw.select(
    "id", "email", "country", (F.col("amount").cast("double") * 0.9).alias("amount_eur")
)
clean.write.mode("overwrite").parquet(f"{out}/orders_clean")
revenue = (
    spark.read.parquet(f"{out}/orders_clean")
    .groupBy("country")
    .agg(F.sum("amount_eur").alias("revenue"))
)
revenue.write.mode("overwrite").parquet(f"{out}/revenue")
spark.stop()
