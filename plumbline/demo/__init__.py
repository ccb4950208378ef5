"""The demo: a small shop's PySpark pipeline, traced end to end by plumbline.

- `data`: deterministic raw files (orders from two channels, customers, products, returns) per day.
- `jobs`: the pipeline as ordinary PySpark jobs, one module each, `run(spark, paths, day)`.
- `scenario`: two days of runs, with a code change and a run that fails and is then fixed.
- `runner`: runs the scenario on one SparkSession with plumbline's capture sending to a server.
- `summary`: counts what the server holds, through its HTTP read API.

`plumbline demo` (in `plumbline.cli.demo`) ties them to an in-process server.
"""
