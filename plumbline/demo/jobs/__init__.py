"""The demo shop's pipeline: ordinary PySpark jobs, one module each, each with `run(spark, paths, day)`.

Stage 1 cleans the raw drops into Parquet (`clean_*`), stage 2 joins them into `fact_orders`,
stage 3 builds the marts (`daily_revenue`, `customer_ltv`, `product_return_rates`) and the
`country_report` table. `previous` keeps earlier revisions of two jobs, which the demo scenario
replays to show how lineage records code changes and a failed run.
"""
